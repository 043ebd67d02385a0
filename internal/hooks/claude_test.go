package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestClaudeInput: the hook sees Claude Code's argument names beside ours
// (paths absolute), and an updated input comes back by our names.
func TestClaudeInput(t *testing.T) {
	for _, tc := range []struct {
		name, tool, args, want string
	}{
		{"edit", "edit", `{"path":"a.go","old_text":"x","new_text":"y"}`,
			`{"file_path":"/w/a.go","new_string":"y","new_text":"y","old_string":"x","old_text":"x","path":"a.go"}`},
		{"absolute kept", "write", `{"path":"/t/a","content":"c"}`, `{"content":"c","file_path":"/t/a","path":"/t/a"}`},
		{"no names of its own", "bash", `{"command":"ls"}`, `{"command":"ls"}`},
		{"mcp", "mcp__s__t", `{"q":1}`, `{"q":1}`},
	} {
		if got := string(claudeInput(tc.tool, json.RawMessage(tc.args), "/w")); got != tc.want {
			t.Errorf("%s: claudeInput = %s, want %s", tc.name, got, tc.want)
		}
	}
	sent := claudeInput("edit", json.RawMessage(`{"path":"a.go","old_text":"x","new_text":"y"}`), "/w")
	for _, tc := range []struct {
		name, updated, want string
	}{
		{"claude's name changed", `{"file_path":"/w/a.go","old_string":"x","new_string":"z","path":"a.go","old_text":"x","new_text":"y"}`,
			`{"new_text":"z","old_text":"x","path":"a.go"}`},
		{"ours changed", `{"file_path":"/w/a.go","old_string":"x","new_string":"y","path":"b.go","old_text":"x","new_text":"y"}`,
			`{"new_text":"y","old_text":"x","path":"b.go"}`},
		{"claude's names only", `{"file_path":"/w/c.go","old_string":"p","new_string":"q"}`, `{"new_text":"q","old_text":"p","path":"/w/c.go"}`},
	} {
		if got := string(ourInput("edit", sent, json.RawMessage(tc.updated))); got != tc.want {
			t.Errorf("%s: ourInput = %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestEvents runs real hooks (sh -c) for the events beyond the tools: what
// each matcher matches, what exit 2 does, plain stdout as context.
func TestEvents(t *testing.T) {
	dir := t.TempDir()
	hook := func(ev, matcher, cmd string) Hook {
		return Hook{Event: ev, Matcher: matcher, Command: cmd, Timeout: DefaultTimeout, Source: ev + matcher}
	}
	hs := []Hook{
		hook(SessionStart, "startup", "echo fresh"),
		hook(SessionStart, "resume", "echo back"),
		hook(PreCompact, "manual", "echo no >&2; exit 2"),
		hook(Notification, "permission_prompt", "cat > "+filepath.Join(dir, "note.json")),
		hook(SubagentStop, "explore", "echo keep going >&2; exit 2"),
		hook(PromptSubmit, "ignored", `echo '{"decision":"block","reason":"no"}'`),
		hook(Stop, "", `echo '{"continue":false,"stopReason":"enough","systemMessage":"bye"}'`),
	}
	for _, tc := range []struct {
		name     string
		in       Input
		want     Verdict
		warnings []string
	}{
		{"startup context", Input{Event: SessionStart, Source: "startup"}, Verdict{AdditionalContext: []string{"fresh"}}, nil},
		{"resume context", Input{Event: SessionStart, Source: "resume"}, Verdict{AdditionalContext: []string{"back"}}, nil},
		{"clear: none", Input{Event: SessionStart, Source: "clear"}, Verdict{}, nil},
		{"PreCompact cannot block", Input{Event: PreCompact, Trigger: "manual"}, Verdict{}, []string{"hook echo no >&2; exit 2: no"}},
		{"auto: none", Input{Event: PreCompact, Trigger: "auto"}, Verdict{}, nil},
		{"notification", Input{Event: Notification, NotificationType: "permission_prompt", Message: "m"}, Verdict{}, nil},
		{"SubagentStop blocks", Input{Event: SubagentStop, AgentType: "explore"}, Verdict{Block: true, Reason: "keep going"}, nil},
		{"other agent: none", Input{Event: SubagentStop, AgentType: "plan"}, Verdict{}, nil},
		{"UserPromptSubmit ignores matchers", Input{Event: PromptSubmit, Prompt: "p"}, Verdict{Block: true, Reason: "no"}, nil},
		{"continue false", Input{Event: Stop}, Verdict{Stop: true, StopReason: "enough"}, []string{`hook echo '{"continue":false,"stopReason":"enough","systemMessage":"bye"}': bye`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warnings []string
			got := Run(context.Background(), hs, tc.in, nil, func(s string) { warnings = append(warnings, s) })
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Error(diff)
			}
			if diff := cmp.Diff(tc.warnings, warnings); diff != "" {
				t.Errorf("warnings: %s", diff)
			}
		})
	}
	b, err := os.ReadFile(filepath.Join(dir, "note.json"))
	if err != nil || !strings.Contains(string(b), `"hook_event_name":"Notification","session_id":"","cwd":"","message":"m","notification_type":"permission_prompt"`) {
		t.Errorf("Notification input %s, %v", b, err)
	}
}

// TestSources: the hooks of one file run together; the next file's see
// the first's updated input, and a block ends the event before them.
func TestSources(t *testing.T) {
	hs := []Hook{
		{Event: PreToolUse, Command: `echo '{"hookSpecificOutput":{"updatedInput":{"command":"echo two"}}}'`, Timeout: DefaultTimeout, Source: "a"},
		{Event: PreToolUse, Command: `jq -e '.tool_input.command == "echo two"' >/dev/null || exit 2`, Timeout: DefaultTimeout, Source: "b"},
	}
	v := Run(context.Background(), hs, Input{Event: PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"echo one"}`)}, nil, func(string) {})
	if v.Block || string(v.UpdatedInput) != `{"command":"echo two"}` {
		t.Fatalf("chained: %+v", v)
	}
	ran := filepath.Join(t.TempDir(), "ran")
	hs[0].Command = "exit 2"
	hs[1].Command = "touch " + ran
	v = Run(context.Background(), hs, Input{Event: PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(`{}`)}, nil, func(string) {})
	if _, err := os.Stat(ran); !v.Block || err == nil {
		t.Fatalf("blocked %v, the next file's hook ran: %v", v.Block, err == nil)
	}
}

func TestSettingsFiles(t *testing.T) {
	home, conf, proj := t.TempDir(), t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(home, ".claude", "settings.json"), filepath.Join(proj, ".claude", "settings.local.json"), filepath.Join(proj, ".agentutils", "settings.json")} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{}"), 0o644)
	}
	want := []string{filepath.Join(home, ".claude", "settings.json"), filepath.Join(proj, ".claude", "settings.local.json"), filepath.Join(proj, ".agentutils", "settings.json")}
	if diff := cmp.Diff(want, SettingsFiles(home, conf, proj)); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff(want[:1], SettingsFiles(home, conf, "")); diff != "" {
		t.Errorf("untrusted project: %s", diff)
	}
}
