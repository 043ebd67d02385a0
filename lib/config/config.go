// Package config merges agentutils' settings: the defaults, the user's
// config.toml ($XDG_CONFIG_HOME/agentutils/config.toml), the project's
// (.agentutils/config.toml in the working directory or the nearest parent
// holding one), AGENT_ variables and flags, later ones winning:
// flag > env > project > user > default. It is pure: the shells read the
// files and pass their bytes, the environment and the flags in.
package config

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agentutils/agentutils/lib/permission"
	"github.com/agentutils/agentutils/lib/redact"
	"github.com/agentutils/agentutils/lib/sandbox"
	"github.com/agentutils/agentutils/lib/websearch"
)

// The sources of a value, weakest first.
const (
	Default = "default"
	User    = "user"
	Project = "project"
	Env     = "env"
	Flag    = "flag"
)

// ThinkingLevels are the thinking levels, weakest first (llm.ThinkingLevels).
var ThinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

// EditModes are the edit tool's modes (agent-tool --edit-mode).
var EditModes = []string{"replace", "hashline", "apply_patch"}

// ApprovalModes are the interactive agent's: ask before edits and bash, or
// run them without asking (agent --yes).
var ApprovalModes = []string{"ask", "yes"}

// A Setting is one key of config.toml with its variable and flag.
type Setting struct {
	Key     string             // TOML key, dotted for a table: modelRoles.default
	Env     string             // AGENT_ variable
	Flag    string             // flag name without dashes (agent-chat's or agent's)
	List    bool               // a list of strings (a string is a list of one)
	Sep     string             // splits the variable's value into the list ("": one value)
	Valid   func(string) error // checks each value (nil: any; Choices apply too)
	Choices []string           // allowed values; nil: any
	Default []string           // nil: none
	Doc     string
	// UserOnly settings name commands to run or widen the sandbox: a
	// project's file (which comes with a cloned repository) may not set them.
	UserOnly bool
}

// Settings are the keys config.toml holds, in the order they print.
var Settings = []Setting{
	{Key: "modelRoles.default", Env: "AGENT_MODEL", Flag: "model",
		Doc: "model PATTERN (provider/id, id or a fuzzy name, :LEVEL optional)"},
	{Key: "modelRoles.commit", Env: "AGENT_COMMIT_MODEL",
		Doc: "the model agent-commit uses (else modelRoles.fast, else the default)"},
	{Key: "modelRoles.fast", Env: "AGENT_FAST_MODEL",
		Doc: "a fast model for small jobs: agent-commit's when no commit role is set"},
	{Key: "enabledModels", Env: "AGENT_MODELS", Flag: "models", List: true, Sep: ",",
		Doc: "the interactive agent: the models ctrl+p cycles through (patterns; default: those with a key)"},
	{Key: "defaultThinkingLevel", Env: "AGENT_THINKING", Flag: "thinking", Choices: ThinkingLevels,
		Doc: "thinking level"},
	{Key: "toolsCmd", Env: "AGENT_TOOLS_CMD", Flag: "tools-cmd", List: true, Default: []string{"agent-tool serve"}, UserOnly: true,
		Doc: "tool co-process commands"},
	{Key: "edit.mode", Env: "AGENT_EDIT_MODE", Flag: "edit-mode", Choices: EditModes, Default: []string{"replace"},
		Doc: "how agent-tool edits files"},
	{Key: "tools.memory", Env: "AGENT_MEMORY_TOOL", Flag: "memory-tool", Choices: []string{"true", "false"}, Default: []string{"false"}, UserOnly: true,
		Doc: "offer the memory tool: the model adds lines to the project's or the user's AGENTS.md/CLAUDE.md"},
	{Key: "web_search.mcp", Env: "AGENT_SEARCH_MCP", Flag: "search-mcp", UserOnly: true, Valid: mcpTarget,
		Doc: "web_search through an MCP server: SERVER/TOOL, or SERVER for its tool named like *search* with a query argument"},
	{Key: "shell.env", Env: "AGENT_SHELL_ENV", Flag: "shell-env", List: true, Sep: ",", UserOnly: true, Valid: varName,
		Doc: "secret-looking variables the tools may see"},
	{Key: "permissions.defaultMode", Env: "AGENT_PERMISSION_MODE", Flag: "permission-mode", Choices: permission.Modes, UserOnly: true,
		Doc: "agent-chat's permission mode in a pipe"},
	{Key: "permissions.allow", Env: "AGENT_ALLOWED_TOOLS", Flag: "allowed-tools", List: true, UserOnly: true,
		Doc: "tool rules that run without approval"},
	{Key: "permissions.deny", Env: "AGENT_DISALLOWED_TOOLS", Flag: "disallowed-tools", List: true, UserOnly: true,
		Doc: "tool rules that never run"},
	{Key: "task.hosts", Env: "AGENT_TASK_HOSTS", Flag: "task-host", List: true, Sep: ",", UserOnly: true,
		Doc: "hosts the task tool may run a sub-agent on over ssh (DEST or DEST:DIR)"},
	{Key: "approvalMode", Env: "AGENT_APPROVAL_MODE", Flag: "yes", Choices: ApprovalModes, Default: []string{"ask"},
		Doc: "the interactive agent: ask before edits and bash, or yes"},
	{Key: "statusLine", Env: "AGENT_STATUS_LINE", UserOnly: true,
		Doc: "the interactive agent: a command whose first line of output is shown above the footer (Claude Code's statusLine: JSON on stdin)"},
	{Key: "sandbox.mode", Env: "AGENT_SANDBOX", Flag: "sandbox", Choices: sandbox.Modes, Default: []string{sandbox.WorkspaceWrite}, UserOnly: true,
		Doc: "the bash tool's sandbox: workspace-write, read-only or off"},
	{Key: "sandbox.writable", Env: "AGENT_SANDBOX_WRITABLE", Flag: "sandbox-writable", List: true, UserOnly: true,
		Doc: "more directories the sandbox may write (~ is home)"},
	{Key: "sandbox.net", Env: "AGENT_SANDBOX_NET", Flag: "sandbox-net", Choices: []string{"true", "false"}, Default: []string{"false"}, UserOnly: true,
		Doc: "keep the network inside the sandbox"},
	{Key: "sandbox.hide", Env: "AGENT_SANDBOX_HIDE", List: true, Default: sandbox.DefaultHide, UserOnly: true,
		Doc: "credential stores the sandbox hides (~ is home, {config} and {data} agentutils' directories)"},
}

// A File is one config.toml: its name (for messages) and contents.
type File struct {
	Name string
	Data []byte
}

// A Value is a setting's merged value and where it came from.
type Value struct {
	Key    string   `json:"key"`
	Value  []string `json:"value"`
	Source string   `json:"source"`          // default, user, project, env or flag
	Where  string   `json:"where,omitempty"` // FILE:LINE, the variable or --flag
}

// String is the value of a single-valued setting ("" when unset).
func (v Value) String() string {
	if len(v.Value) == 0 {
		return ""
	}
	return v.Value[0]
}

// Config is the merged result, one Value per Setting in Settings' order.
type Config struct {
	Values []Value
	// Ignored says what a project file set that only the user's may
	// (FILE:LINE: KEY ...), for a warning.
	Ignored []string
}

// Get is the value of key; the zero Value when key is unknown.
func (c Config) Get(key string) Value {
	for _, v := range c.Values {
		if v.Key == key {
			return v
		}
	}
	return Value{Key: key}
}

// Model, Thinking, ToolsCmd, EditMode and ApprovalMode are the settings by name.
func (c Config) Model() Value        { return c.Get("modelRoles.default") }
func (c Config) Thinking() Value     { return c.Get("defaultThinkingLevel") }
func (c Config) ToolsCmd() Value     { return c.Get("toolsCmd") }
func (c Config) EditMode() Value     { return c.Get("edit.mode") }
func (c Config) ApprovalMode() Value { return c.Get("approvalMode") }

// ShellEnv is shell.env: the secret-looking variables the user lets the
// tools see (lib/redact.Environ's keep).
func (c Config) ShellEnv() []string { return c.Get("shell.env").Value }

// MemoryTool is tools.memory: whether agent-tool offers the memory tool.
func (c Config) MemoryTool() bool { return c.Get("tools.memory").String() == "true" }

// SearchMCP is web_search.mcp: the MCP server (and tool) web_search
// calls ("": none).
func (c Config) SearchMCP() string { return c.Get("web_search.mcp").String() }

func mcpTarget(s string) error {
	_, _, err := websearch.MCPTarget(s)
	return err
}

// Policy is the permission policy of permissions.defaultMode, .allow and
// .deny; nil when none of them is set (then nothing is refused or allowed
// by a rule). asked: a person answers the calls no rule decides. A rule
// that does not parse is an error naming where it was set.
func (c Config) Policy(asked bool) (*permission.Policy, error) {
	mode, allow, deny := c.Get("permissions.defaultMode"), c.Get("permissions.allow"), c.Get("permissions.deny")
	if mode.Source == Default && allow.Source == Default && deny.Source == Default {
		return nil, nil
	}
	p := &permission.Policy{Mode: mode.String(), Asked: asked}
	var err error
	if p.Allow, err = permission.ParseRules(allow.Value); err != nil {
		return nil, fmt.Errorf("%s: %v", allow.At(), err)
	}
	if p.Deny, err = permission.ParseRules(deny.Value); err != nil {
		return nil, fmt.Errorf("%s: %v", deny.At(), err)
	}
	return p, nil
}

// At names the source of a value for a message: FILE:LINE, the
// variable or the flag, else the key.
func (v Value) At() string {
	if v.Where != "" {
		return v.Where
	}
	return v.Key
}

func varName(s string) error { return redact.CheckNames([]string{s}) }

// Input is everything a merge reads.
type Input struct {
	User, Project *File               // nil: no such file
	Getenv        func(string) string // nil: no variables
	Flags         map[string][]string // flag name → value, only flags given
}

// Merge applies the layers in order and checks every value. A bad file is
// reported as FILE:LINE: message, a bad variable or flag by its name.
func Merge(in Input) (Config, error) {
	layers := make([]map[string]Value, 0, 2)
	for _, f := range []struct {
		file   *File
		source string
	}{{in.User, User}, {in.Project, Project}} {
		if f.file == nil {
			continue
		}
		l, err := Parse(*f.file, f.source)
		if err != nil {
			return Config{}, err
		}
		layers = append(layers, l)
	}
	var c Config
	for _, s := range Settings {
		v := Value{Key: s.Key, Value: s.Default, Source: Default}
		for _, l := range layers {
			lv, ok := l[s.Key]
			switch {
			case !ok:
			case s.UserOnly && lv.Source == Project:
				how := "set it in your own"
				if s.Flag != "" {
					how += " or with --" + s.Flag
				}
				c.Ignored = append(c.Ignored, fmt.Sprintf("%s: %s is ignored in a project's config.toml (it runs commands or widens the sandbox); %s", lv.Where, s.Key, how))
			default:
				v = lv
			}
		}
		if in.Getenv != nil {
			if e := in.Getenv(s.Env); e != "" {
				v = Value{Key: s.Key, Value: s.split([]string{e}), Source: Env, Where: s.Env}
				if err := s.check(v.Value); err != nil {
					return Config{}, fmt.Errorf("%s: %v", s.Env, err)
				}
			}
		}
		if f, ok := in.Flags[s.Flag]; ok {
			v = Value{Key: s.Key, Value: s.split(f), Source: Flag, Where: "--" + s.Flag}
			if err := s.check(v.Value); err != nil {
				return Config{}, fmt.Errorf("--%s: %v", s.Flag, err)
			}
		}
		c.Values = append(c.Values, v)
	}
	return c, nil
}

// split is a list's values from a variable or flags, each one split at
// Sep ("a, b" is a and b, as the variable and a flag write it).
func (s Setting) split(vals []string) []string {
	if s.Sep == "" {
		return vals
	}
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, s.Sep) {
			out = append(out, strings.TrimSpace(p))
		}
	}
	return out
}

func (s Setting) check(vals []string) error {
	if !s.List && len(vals) != 1 {
		return fmt.Errorf("one value, not %d", len(vals))
	}
	for _, v := range vals {
		if strings.TrimSpace(v) == "" {
			return errors.New("empty value")
		}
		if s.Choices != nil && !slices.Contains(s.Choices, v) {
			return fmt.Errorf("must be one of %s, not %q", strings.Join(s.Choices, ", "), v)
		}
		if s.Valid != nil {
			if err := s.Valid(v); err != nil {
				return err
			}
		}
	}
	return nil
}

var lineErr = regexp.MustCompile(`^toml: line (\d+) \(last key "?([^"]*)"?\): (.*)$`)

// Parse reads one config.toml into the settings it sets, each with its
// FILE:LINE. Keys it does not know ([hooks], [commit], other roles) belong
// to other readers and are left alone; a known key with a bad value is an
// error at its line.
func Parse(f File, source string) (map[string]Value, error) {
	if err := CheckKeyParts(f.Data); err != nil {
		return nil, fmt.Errorf("%s:%v", f.Name, strings.TrimPrefix(err.Error(), "line "))
	}
	var doc map[string]any
	if _, err := toml.Decode(string(f.Data), &doc); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", f.Name, pe.Position.Line, pe.Message)
		}
		if m := lineErr.FindStringSubmatch(err.Error()); m != nil {
			return nil, fmt.Errorf("%s:%s: %s: %s", f.Name, m[1], m[2], m[3])
		}
		return nil, fmt.Errorf("%s: %v", f.Name, err)
	}
	out := map[string]Value{}
	for _, s := range Settings {
		raw, ok := lookup(doc, s.Key)
		if !ok {
			continue
		}
		line := keyLine(f.Data, s.Key)
		where := f.Name
		if line > 0 {
			where += ":" + strconv.Itoa(line)
		}
		vals, err := strings2(raw, s.List)
		if err == nil {
			err = s.check(vals)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", where, s.Key, err)
		}
		out[s.Key] = Value{Key: s.Key, Value: vals, Source: source, Where: where}
	}
	return out, nil
}

func lookup(doc map[string]any, key string) (any, bool) {
	parts := strings.Split(key, ".")
	var cur any = doc
	for _, p := range parts {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func strings2(raw any, list bool) ([]string, error) {
	switch v := raw.(type) {
	case string:
		return []string{v}, nil
	case bool:
		return []string{strconv.FormatBool(v)}, nil
	case []any:
		if !list {
			return nil, errors.New("a string, not an array")
		}
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("an array of strings, not one holding %T", e)
			}
			out = append(out, s)
		}
		return out, nil
	}
	if list {
		return nil, fmt.Errorf("a string or an array of strings, not %T", raw)
	}
	return nil, fmt.Errorf("a string, not %T", raw)
}

// keyLine finds the line that sets key (dotted: a.b) in a TOML document
// already known to parse: `a.b = …` at the top, or `b = …` under `[a]`.
// 0 when not found (an inline table, say).
func keyLine(data []byte, key string) int {
	table, leaf := "", key
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		table, leaf = key[:i], key[i+1:]
	}
	cur := ""
	for n, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			cur = strings.Trim(strings.TrimSpace(strings.SplitN(t, "#", 2)[0]), "[] ")
			continue
		}
		k, _, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		k = strings.ReplaceAll(strings.ReplaceAll(k, " ", ""), `"`, "")
		if (cur == table && k == leaf) || (cur == "" && k == key) {
			return n + 1
		}
	}
	return 0
}
