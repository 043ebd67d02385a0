package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/event"
)

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		matcher, tool string
		want          bool
	}{
		{"", "bash", true},
		{"*", "read", true},
		{"Bash", "bash", true},
		{"bash", "bash", true},
		{"Edit|Write", "edit", true},
		{"Edit|Write", "write", true},
		{"Edit", "apply_patch", true},
		{"Glob", "find", true},
		{"Bash", "bashful", false},
		{"Read", "bash", false},
		{"mcp__.*", "mcp__gh__list", true},
	} {
		if got := (Hook{Matcher: tc.matcher}).Matches(tc.tool); got != tc.want {
			t.Errorf("%q ~ %q = %v, want %v", tc.matcher, tc.tool, got, tc.want)
		}
	}
}

func TestApplyJSON(t *testing.T) {
	yes := true
	for _, tc := range []struct {
		name, stdout string
		want         Verdict
	}{
		{"plain text ignored", "hello", Verdict{}},
		{"empty object", "{}", Verdict{}},
		{"block", `{"decision":"block","reason":"no"}`, Verdict{Block: true, Reason: "no"}},
		{"claude deny", `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"nope"}}`, Verdict{Block: true, Reason: "nope"}},
		{"ask", `{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}`, Verdict{Ask: true, Reason: "sure?"}},
		{"approve", `{"decision":"approve"}`, Verdict{Allow: true}},
		{"permission request allow", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"ls -a"}}}}`,
			Verdict{Allow: true, UpdatedInput: json.RawMessage(`{"command":"ls -a"}`)}},
		{"permission request deny", `{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"no","interrupt":true}}}`,
			Verdict{Block: true, Reason: "no", Stop: true, StopReason: "no"}},
		{"continue false", `{"continue":false,"stopReason":"enough"}`, Verdict{Stop: true, StopReason: "enough"}},
		{"updated input", `{"updatedInput":{"command":"ls"}}`, Verdict{UpdatedInput: json.RawMessage(`{"command":"ls"}`)}},
		{"context", `{"hookSpecificOutput":{"additionalContext":"note"}}`, Verdict{AdditionalContext: []string{"note"}}},
		{"result rewrite", `{"content":[{"type":"text","text":"x"}],"is_error":true}`, Verdict{Content: json.RawMessage(`[{"type":"text","text":"x"}]`), IsError: &yes}},
		{"broken json ignored", `{"decision":`, Verdict{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v Verdict
			v.applyJSON(Input{ToolName: "bash"}, tc.stdout, nil)
			if diff := cmp.Diff(tc.want, v); diff != "" {
				t.Error(diff)
			}
		})
	}
}

// TestAfter runs real PostToolUse hooks (sh -c) on a result: the hook reads
// the result's fields, replaces the content, flips the error status and
// adds context; content that is not a list of blocks is ignored with a
// warning.
func TestAfter(t *testing.T) {
	in := Input{Event: PreToolUse, SessionID: "s1", ToolName: "mcp__t__echo", ToolCallID: "c1", ToolInput: json.RawMessage(`{"message":"hi"}`)}
	hook := func(cmd string) []Hook {
		return []Hook{{Event: "tool_result", Matcher: "mcp__.*", Command: cmd, Timeout: DefaultTimeout}}
	}
	var warnings []string
	warn := func(s string) { warnings = append(warnings, s) }

	// The hook sees the result (it keeps its input) and adds context.
	saved := filepath.Join(t.TempDir(), "in.json")
	r := event.Result{Content: []event.Content{event.Text("hello")}}
	After(context.Background(), hook(`cat > '`+saved+`'; echo '{"additional_context":"checked"}'`), in, &r, Opts{Warn: warn})
	if len(r.Content) != 2 || r.Content[0].Text != "hello" || r.Content[1].Text != "checked" || r.IsError {
		t.Fatalf("context: %+v", r)
	}
	data, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	var seen map[string]any
	if err := json.Unmarshal(data, &seen); err != nil {
		t.Fatalf("hook input %s: %v", data, err)
	}
	want := map[string]any{"event": "tool_result", "hook_event_name": "PostToolUse", "session_id": "s1", "tool_name": "mcp__t__echo",
		"tool_call_id": "c1", "tool_use_id": "c1", "tool_input": map[string]any{"message": "hi"}, "cwd": "",
		"content": []any{map[string]any{"type": "text", "text": "hello"}}, "is_error": false,
		"tool_response": map[string]any{"content": []any{map[string]any{"type": "text", "text": "hello"}}, "details": nil, "isError": false, "success": true}}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("hook input (-want +got):\n%s", diff)
	}

	// Replaced content and a flipped error status.
	r = event.Result{Content: []event.Content{event.Text("secret")}, IsError: true}
	After(context.Background(), hook(`echo '{"content":[{"type":"text","text":"redacted"}],"is_error":false}'`), in, &r, Opts{Warn: warn})
	if len(r.Content) != 1 || r.Content[0].Text != "redacted" || r.IsError {
		t.Fatalf("rewrite: %+v", r)
	}
	if len(warnings) != 0 {
		t.Fatalf("warnings: %q", warnings)
	}

	// Content that is not a list of blocks: kept, with a warning.
	r = event.Result{Content: []event.Content{event.Text("kept")}}
	After(context.Background(), hook(`echo '{"content":"a string"}'`), in, &r, Opts{Warn: warn})
	if len(r.Content) != 1 || r.Content[0].Text != "kept" || len(warnings) != 1 || !strings.Contains(warnings[0], "PostToolUse content of mcp__t__echo ignored") {
		t.Fatalf("bad content: %+v, warnings %q", r, warnings)
	}
}

// TestLoad: settings files then directories; a missing file or directory
// is an error, a non-executable hook a warning.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(settings, []byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	hooksDir := filepath.Join(dir, "hooks")
	if err := os.MkdirAll(filepath.Join(hooksDir, "post"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hooksDir, "post", "read"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hooksDir, "post", "edit"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hs, warnings, err := Load([]string{settings}, []string{hooksDir})
	if err != nil || len(hs) != 2 || hs[0].Event != PreToolUse || hs[0].Command != "true" || hs[1].Event != ToolResult || hs[1].Matcher != "read" {
		t.Fatalf("Load: %+v, %v", hs, err)
	}
	if len(warnings) != 1 || !strings.HasSuffix(warnings[0], "post/edit: not executable, skipped") {
		t.Errorf("warnings %q", warnings)
	}
	if _, _, err := Load(nil, []string{filepath.Join(dir, "nope")}); err == nil || err.Error() != "--hooks-dir "+filepath.Join(dir, "nope")+": not a directory" {
		t.Errorf("missing directory: %v", err)
	}
	if _, _, err := Load(nil, []string{settings}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file as --hooks-dir: %v", err)
	}
	if _, _, err := Load([]string{filepath.Join(dir, "nope.json")}, nil); err == nil || !strings.HasPrefix(err.Error(), "--settings: open ") {
		t.Errorf("missing settings: %v", err)
	}
}
