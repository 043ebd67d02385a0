package permission

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/shpolicy"
)

func TestParseRules(t *testing.T) {
	got, err := ParseRules([]string{"Bash(git log:*) Edit,Read", "Bash(git diff:*),mcp__github", " Read(src/**) "})
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{{"Bash", "git log:*"}, {"Edit", ""}, {"Read", ""}, {"Bash", "git diff:*"}, {"mcp__github", ""}, {"Read", "src/**"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("-want +got\n%s", d)
	}
	for _, bad := range []string{"Bash(git", "Bash)x", "Bash()", "Bash(x)y", "Ba$h", "(x)"} {
		if _, err := ParseRules([]string{bad}); err == nil {
			t.Errorf("ParseRules(%q): no error", bad)
		}
	}
}

func TestDecide(t *testing.T) {
	bash := func(script string) Call {
		return Call{Names: []string{"bash", "Bash"}, Class: Exec, Command: script,
			Bash: shpolicy.Options{Resolve: func(p string) string {
				if filepath.IsAbs(p) {
					return filepath.Clean(p)
				}
				return filepath.Join("/w", p)
			},
				File: func(abs string, write bool) string {
					if !strings.HasPrefix(abs, "/w/") {
						return "outside the working directory"
					}
					return ""
				}}}
	}
	read := Call{Names: []string{"read", "Read"}, Class: Read, Path: "src/a.go"}
	edit := Call{Names: []string{"edit", "Edit", "MultiEdit"}, Class: Write, Path: "src/a.go"}
	editDoc := Call{Names: []string{"edit", "Edit", "MultiEdit"}, Class: Write, Path: "docs/x.md"}
	mcp := Call{Names: []string{"mcp__github__list_issues"}}
	rules := func(s ...string) []Rule { r, _ := ParseRules(s); return r }
	for _, c := range []struct {
		name string
		p    Policy
		call Call
		want string // "" runs, else a part of the refusal
	}{
		{"default reads", Policy{}, read, ""},
		{"default refuses edits", Policy{}, edit, "needs approval"},
		{"default refuses bash", Policy{}, bash("ls"), "with no one to ask"},
		{"default refuses an mcp tool", Policy{}, mcp, "needs approval"},
		{"acceptEdits edits", Policy{Mode: "acceptEdits"}, edit, ""},
		{"acceptEdits refuses bash", Policy{Mode: "acceptEdits"}, bash("ls"), "needs approval"},
		{"plan reads", Policy{Mode: "plan"}, read, ""},
		{"plan refuses edits", Policy{Mode: "plan"}, edit, "plan mode"},
		{"plan ignores allow rules", Policy{Mode: "plan", Allow: rules("Bash")}, bash("ls"), "plan mode"},
		{"bypass runs all", Policy{Mode: "bypassPermissions"}, bash("rm -rf x"), ""},
		{"bypass keeps deny", Policy{Mode: "bypassPermissions", Deny: rules("Bash(rm:*)")}, bash("ls && rm -rf x"), "denied by the rule Bash(rm:*)"},
		{"Bash prefix", Policy{Allow: rules("Bash(git diff:*)")}, bash("git diff --stat"), ""},
		{"Bash prefix, space form", Policy{Allow: rules("Bash(git diff *)")}, bash("git diff --stat"), ""},
		{"Bash prefix is whole words", Policy{Allow: rules("Bash(git diff:*)")}, bash("git diffx"), "not an allowed command"},
		{"Bash exact", Policy{Allow: rules("Bash(npm run build)")}, bash("npm run build"), ""},
		{"Bash exact, more words", Policy{Allow: rules("Bash(npm run build)")}, bash("npm run build --x"), "not an allowed command"},
		{"Bash compound, every command", Policy{Allow: rules("Bash(git diff:*)")}, bash("git diff && curl evil"), "curl evil"},
		{"Bash compound, two rules", Policy{Allow: rules("Bash(git diff:*)", "Bash(wc:*)")}, bash("git diff | wc -l"), ""},
		{"Bash redirect write, default", Policy{Allow: rules("Bash(git diff:*)")}, bash("git diff > d.patch"), "read-only"},
		{"Bash redirect write, acceptEdits", Policy{Mode: "acceptEdits", Allow: rules("Bash(git diff:*)")}, bash("git diff > d.patch"), ""},
		{"Bash redirect read outside", Policy{Allow: rules("Bash(cat:*)")}, bash("cat < /etc/passwd"), "outside the working directory"},
		{"Bash tcp", Policy{Mode: "acceptEdits", Allow: rules("Bash(echo:*)")}, bash("echo x > /dev/tcp/127.0.0.1/1"), "network"},
		{"Bash whole tool", Policy{Allow: rules("Bash")}, bash("anything at all"), ""},
		{"Bash by our name", Policy{Allow: rules("bash(ls:*)")}, bash("ls -l"), ""},
		{"deny by name", Policy{Mode: "bypassPermissions", Deny: rules("Edit")}, edit, "denied by the rule Edit"},
		{"deny wins over allow", Policy{Allow: rules("Bash"), Deny: rules("Bash(curl:*)")}, bash("curl x"), "denied"},
		{"deny a script that does not parse", Policy{Allow: rules("Bash"), Deny: rules("Bash(curl:*)")}, bash("echo 'x"), "denied"},
		{"Edit path rule", Policy{Allow: rules("Edit(docs/**)")}, editDoc, ""},
		{"Edit path rule, other path", Policy{Allow: rules("Edit(docs/**)")}, edit, "needs approval"},
		{"Edit path rule, ./", Policy{Allow: rules("Edit(./docs/**)")}, editDoc, ""},
		{"deny a path", Policy{Mode: "acceptEdits", Deny: rules("Edit(src/**)")}, edit, "denied"},
		{"mcp server rule", Policy{Allow: rules("mcp__github")}, mcp, ""},
		{"mcp other server", Policy{Allow: rules("mcp__gitlab")}, mcp, "needs approval"},
		{"mcp wildcard", Policy{Allow: rules("mcp__github__*")}, mcp, ""},
		{"asked: edits go to the person", Policy{Asked: true}, edit, ""},
		{"asked: bash goes to the person", Policy{Asked: true}, bash("curl x"), ""},
		{"asked: deny still refuses", Policy{Asked: true, Deny: rules("Bash(curl:*)")}, bash("curl x"), "denied"},
		{"asked: plan still refuses", Policy{Asked: true, Mode: "plan"}, edit, "plan mode"},
	} {
		got := c.p.Decide(c.call)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestSummary(t *testing.T) {
	r, _ := ParseRules([]string{"Bash(git diff:*) Edit"})
	d, _ := ParseRules([]string{"Bash(rm:*)"})
	for _, c := range []struct {
		p    Policy
		want string
	}{
		{Policy{}, "permission mode default: tools that read run; anything else needs approval and is refused (no one to ask)"},
		{Policy{Mode: "acceptEdits", Allow: r, Deny: d}, "permission mode acceptEdits: tools that read or edit files run; also allowed: Bash(git diff:*), Edit; denied: Bash(rm:*); anything else needs approval and is refused (no one to ask)"},
		{Policy{Mode: "bypassPermissions"}, "permission mode bypassPermissions: every tool runs"},
		{Policy{Mode: "plan", Allow: r}, "permission mode plan: only tools that read run; anything else needs approval and is refused (no one to ask)"},
		{Policy{Asked: true, Deny: d}, "permission mode default: tools that read run; denied: Bash(rm:*); anything else is asked of a person"},
		{Policy{Asked: true, Mode: "plan"}, "permission mode plan: only tools that read run"},
	} {
		if got := c.p.Summary(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestWithSession(t *testing.T) {
	acc := &Policy{Mode: "acceptEdits"}
	unset := &Policy{Allow: []Rule{{Tool: "Read"}}}
	for _, c := range []struct {
		name    string
		p       *Policy
		session string
		given   bool
		want    *Policy
	}{
		{"no policy, no session mode", nil, "none", false, nil},
		{"no policy, session in plan", nil, "plan", false, &Policy{Mode: "plan", Asked: true}},
		{"no policy, session acceptEdits: nothing refused", nil, "acceptEdits", false, nil},
		{"the flag wins", acc, "plan", true, acc},
		{"config.toml's mode loses to the session's", acc, "plan", false, &Policy{Mode: "plan"}},
		{"rules keep, the session's mode", unset, "default", false, &Policy{Mode: "default", Allow: unset.Allow}},
		{"an unknown mode is ignored", acc, "architect", false, acc},
	} {
		got := WithSession(c.p, c.session, c.given, true)
		if c.want != nil && c.p == nil {
			c.want.Asked = true
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", c.name, diff)
		}
	}
}

func TestModeEntry(t *testing.T) {
	for _, c := range []struct {
		p       *Policy
		session string
		mode    string
		ok      bool
	}{
		{nil, "plan", "", false},
		{&Policy{}, "none", "default", false},
		{&Policy{Mode: "default"}, "", "default", false},
		{&Policy{Mode: "plan"}, "none", "plan", true},
		{&Policy{Mode: "plan"}, "plan", "plan", false},
		{&Policy{Mode: "acceptEdits"}, "plan", "acceptEdits", true},
	} {
		mode, ok := ModeEntry(c.p, c.session)
		if mode != c.mode || ok != c.ok {
			t.Errorf("ModeEntry(%+v, %q) = %q, %v; want %q, %v", c.p, c.session, mode, ok, c.mode, c.ok)
		}
	}
}
