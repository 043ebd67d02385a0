package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// flagTable is a command line for parseOptions.
type flagTable map[string]any

func (f flagTable) String(n string) string {
	if v, ok := f[n].(string); ok {
		return v
	}
	return map[string]string{"session-cmd": "agent-session", "compact-cmd": "agent-compact", "chat-cmd": "agent-chat"}[n]
}
func (f flagTable) Bool(n string) bool  { v, _ := f[n].(bool); return v }
func (f flagTable) IsSet(n string) bool { _, ok := f[n]; return ok }
func (f flagTable) StringSlice(n string) []string {
	v, _ := f[n].([]string)
	return v
}

func TestParseOptions(t *testing.T) {
	def := options{session: []string{"agent-session"}, chat: []string{"agent-chat"}, compact: []string{"agent-compact"}, chatArgs: []string{"--checkpoint"}}
	with := func(f func(*options)) options { o := def; f(&o); return o }
	for _, c := range []struct {
		name  string
		flags flagTable
		args  []string
		tty   bool
		want  options
		err   string
	}{
		{"defaults", flagTable{}, nil, true, def, ""},
		{"a prompt", flagTable{"print": true}, []string{"why", "not"}, false, with(func(o *options) { o.print, o.prompt = true, "why not" }), ""},
		{"print without a prompt", flagTable{"print": true}, nil, false, options{}, "--print needs a PROMPT"},
		{"no terminal", flagTable{}, nil, false, options{}, "needs a terminal"},
		{"new and session", flagTable{"new": true, "session": "s.jsonl"}, nil, true, options{}, "exclude each other"},
		{"no compaction", flagTable{"compact-cmd": " "}, nil, true, with(func(o *options) { o.compact, o.compactSet = nil, true }), ""},
		{"commands split as the shell does", flagTable{"chat-cmd": `agent-chat --system-prompt "be brief"`, "chat-args": "--max-tokens 10", "yes": true},
			nil, true, with(func(o *options) {
				o.chat, o.chatArgs, o.yes = []string{"agent-chat", "--system-prompt", "be brief"}, []string{"--max-tokens", "10", "--checkpoint"}, true
			}), ""},
		{"an unclosed quote", flagTable{"session-cmd": `agent-session "x`}, nil, true, options{}, "--session-cmd"},
		{"no checkpoints", flagTable{"no-checkpoint": true}, nil, true, with(func(o *options) { o.chatArgs = nil }), ""},
		{"a sandbox mode", flagTable{"sandbox": "read-only"}, nil, true, with(func(o *options) { o.sandbox = "read-only" }), ""},
		{"an unknown sandbox mode", flagTable{"sandbox": "strict"}, nil, true, options{}, `--sandbox "strict": the modes are workspace-write, read-only, off`},
		{"model and tools", flagTable{"model": "fake/m", "thinking": "high", "tools-cmd": []string{"agent-tool serve --read-only"}}, nil, true,
			with(func(o *options) {
				o.model, o.thinking, o.tools = "fake/m", "high", []string{"agent-tool serve --read-only"}
			}), ""},
		{"json-schema goes to agent-chat", flagTable{"print": true, "json-schema": "answer.schema.json"}, []string{"list"}, false,
			with(func(o *options) {
				o.print, o.prompt, o.jsonAnswer = true, "list", true
				o.chatArgs = []string{"--checkpoint", "--json-schema", "answer.schema.json"}
			}), ""},
		{"json-schema without print", flagTable{"json-schema": "a.json"}, nil, true, options{}, "--json-schema needs --print"},
		{"permission flags go to agent-chat", flagTable{"print": true, "chat-args": "--max-tokens 10", "permission-mode": "acceptEdits",
			"allowed-tools": []string{"Bash(go test:*)", "Read"}, "disallowed-tools": []string{"Bash(rm:*)"}}, []string{"fix"}, false,
			with(func(o *options) {
				o.print, o.prompt = true, "fix"
				o.chatArgs = []string{"--max-tokens", "10", "--checkpoint", "--permission-mode", "acceptEdits", "--allowed-tools", "Bash(go test:*)",
					"--allowed-tools", "Read", "--disallowed-tools", "Bash(rm:*)"}
			}), ""},
	} {
		got, err := parseOptions(c.flags, c.args, c.tty, os.Getenv)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if d := cmp.Diff(c.want, got, cmp.AllowUnexported(options{})); d != "" {
			t.Errorf("%s: (-want +got)\n%s", c.name, d)
		}
	}
}
