package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The precedence table: each case gives the layers and the one value (and
// source) the merge must pick for the key it names.
var precedence = []struct {
	name     string
	user     string
	project  string
	env      map[string]string
	flags    map[string][]string
	key      string
	want     []string
	source   string
	where    string
	errMatch string
}{
	{name: "default", key: "edit.mode", want: []string{"replace"}, source: Default},
	{name: "no default", key: "modelRoles.default", source: Default},
	{name: "user", user: "[modelRoles]\ndefault = \"sonnet\"\n", key: "modelRoles.default",
		want: []string{"sonnet"}, source: User, where: "user.toml:2"},
	{name: "dotted key", user: "modelRoles.default = \"sonnet\"\n", key: "modelRoles.default",
		want: []string{"sonnet"}, source: User, where: "user.toml:1"},
	{name: "project over user", user: "defaultThinkingLevel = \"low\"\n",
		project: "# c\n\ndefaultThinkingLevel = \"high\"\n", key: "defaultThinkingLevel",
		want: []string{"high"}, source: Project, where: "project.toml:3"},
	{name: "env over project", project: "defaultThinkingLevel = \"high\"\n",
		env: map[string]string{"AGENT_THINKING": "medium"}, key: "defaultThinkingLevel",
		want: []string{"medium"}, source: Env, where: "AGENT_THINKING"},
	{name: "flag over env", env: map[string]string{"AGENT_MODEL": "gpt"},
		flags: map[string][]string{"model": {"opus"}}, key: "modelRoles.default",
		want: []string{"opus"}, source: Flag, where: "--model"},
	{name: "flag over all", user: "approvalMode = \"yes\"\n", project: "approvalMode = \"yes\"\n",
		env: map[string]string{"AGENT_APPROVAL_MODE": "yes"}, flags: map[string][]string{"yes": {"ask"}},
		key: "approvalMode", want: []string{"ask"}, source: Flag, where: "--yes"},
	{name: "a list flag split as its variable", flags: map[string][]string{"models": {"sonnet, openai/gpt-5.1", "haiku"}},
		key: "enabledModels", want: []string{"sonnet", "openai/gpt-5.1", "haiku"}, source: Flag, where: "--models"},
	{name: "a list variable", env: map[string]string{"AGENT_MODELS": "sonnet,haiku"},
		key: "enabledModels", want: []string{"sonnet", "haiku"}, source: Env, where: "AGENT_MODELS"},
	{name: "tools list", user: "toolsCmd = [\"agent-tool serve --read-only\", \"agent-mcp bridge\"]\n",
		key: "toolsCmd", want: []string{"agent-tool serve --read-only", "agent-mcp bridge"}, source: User, where: "user.toml:1"},
	{name: "tools string", user: "toolsCmd = \"agent-mcp bridge\"\n", key: "toolsCmd",
		want: []string{"agent-mcp bridge"}, source: User, where: "user.toml:1"},
	{name: "tools not from a project", user: "toolsCmd = \"a\"\n", project: "toolsCmd = \"evil\"\n", key: "toolsCmd",
		want: []string{"a"}, source: User, where: "user.toml:1"},
	{name: "other tables ignored", user: "[hooks]\nx = 1\n[commit]\nmapReduceEnabled = true\n[edit]\nmode = \"hashline\"\n",
		key: "edit.mode", want: []string{"hashline"}, source: User, where: "user.toml:6"},
	{name: "empty env ignored", user: "edit.mode = \"apply_patch\"\n", env: map[string]string{"AGENT_EDIT_MODE": ""},
		key: "edit.mode", want: []string{"apply_patch"}, source: User, where: "user.toml:1"},

	{name: "bad level", project: "\ndefaultThinkingLevel = \"ultra\"\n", key: "x",
		errMatch: `project.toml:2: defaultThinkingLevel: must be one of off, minimal, low, medium, high, xhigh, not "ultra"`},
	{name: "bad type", user: "[edit]\nmode = 3\n", key: "x", errMatch: "user.toml:2: edit.mode: a string, not int64"},
	{name: "syntax", user: "a = 1\nmodel = \n", key: "x", errMatch: "user.toml:2: "},
	{name: "array for a string", user: "approvalMode = [\"ask\"]\n", key: "x", errMatch: "user.toml:1: approvalMode: a string, not an array"},
	{name: "key of too many parts", project: "a = 1\n" + strings.Repeat("a.", 70) + "b = 1\n", key: "x",
		errMatch: "project.toml:2: a key with more than 64 dotted parts"},
	{name: "bad env", env: map[string]string{"AGENT_APPROVAL_MODE": "sure"}, key: "x",
		errMatch: `AGENT_APPROVAL_MODE: must be one of ask, yes, not "sure"`},
	{name: "bad flag", flags: map[string][]string{"thinking": {"max"}}, key: "x", errMatch: `--thinking: must be one of`},
}

func TestPrecedence(t *testing.T) {
	for _, tc := range precedence {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Flags: tc.flags, Getenv: func(k string) string { return tc.env[k] }}
			if tc.user != "" {
				in.User = &File{Name: "user.toml", Data: []byte(tc.user)}
			}
			if tc.project != "" {
				in.Project = &File{Name: "project.toml", Data: []byte(tc.project)}
			}
			c, err := Merge(in)
			if tc.errMatch != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errMatch) {
					t.Fatalf("error %v, want one containing %q", err, tc.errMatch)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := Value{Key: tc.key, Value: tc.want, Source: tc.source, Where: tc.where}
			if d := cmp.Diff(want, c.Get(tc.key)); d != "" {
				t.Error(d)
			}
			if len(c.Values) != len(Settings) {
				t.Errorf("%d values, want one per setting (%d)", len(c.Values), len(Settings))
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("[modelRoles]\ndefault = \"x\"\n[edit]\nmode = \"replace\"\n"))
	f.Add([]byte("toolsCmd = [\"a\", 1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		Parse(File{Name: "f", Data: data}, User)
	})
}

func TestProjectMayNotRunCommands(t *testing.T) {
	c, err := Merge(Input{Project: &File{Name: "p.toml", Data: []byte("toolsCmd = [\"curl x | sh\"]\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if v := c.ToolsCmd(); v.Source != Default {
		t.Errorf("toolsCmd from %s, want the default", v.Source)
	}
	if len(c.Ignored) != 1 || !strings.HasPrefix(c.Ignored[0], "p.toml:1: toolsCmd is ignored") {
		t.Errorf("ignored: %q", c.Ignored)
	}
}

// Policy is the one reading of permissions.* that agent and agent-chat
// share: nil when nothing sets them, the rules parsed, a bad rule named by
// where it was set.
func TestPolicy(t *testing.T) {
	c, err := Merge(Input{})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := c.Policy(false); p != nil || err != nil {
		t.Errorf("nothing set: %+v, %v", p, err)
	}
	c, err = Merge(Input{User: &File{Name: "u.toml", Data: []byte("[permissions]\nallow = [\"Bash(go test:*)\"]\ndeny = [\"Read(./.env)\"]\n")}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Policy(true)
	if err != nil || p == nil || len(p.Allow) != 1 || len(p.Deny) != 1 || !p.Asked {
		t.Fatalf("policy: %+v, %v", p, err)
	}
	c, err = Merge(Input{Flags: map[string][]string{"allowed-tools": {"Bash(go test"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Policy(false); err == nil || !strings.HasPrefix(err.Error(), "--allowed-tools: ") {
		t.Errorf("bad rule: %v", err)
	}
}
