package render

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ev(t *testing.T, v map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func delta(typ string, i int, d string) map[string]any {
	return map[string]any{"type": "message_update", "assistantMessageEvent": map[string]any{"type": typ, "contentIndex": i, "delta": d}}
}

// stream is a run with a prompt, thinking, markdown text, a bash call
// with long output, an edit with a diff and a failing call.
func stream(t *testing.T) [][]byte {
	f := false
	tr := true
	diff := "--- a/m.go\n+++ b/m.go\n@@ -1,3 +1,3 @@\n package m\n-func f() int { return 1 }\n+func f() int { return 2 }\n"
	var bash []string
	for i := 1; i <= 12; i++ {
		bash = append(bash, "line "+strings.Repeat("x", i%3))
	}
	return [][]byte{
		ev(t, map[string]any{"type": "agent_start"}),
		ev(t, map[string]any{"type": "message_start", "message": map[string]any{"role": "user", "content": "fix it", "timestamp": 1}}),
		ev(t, map[string]any{"type": "message_start", "message": map[string]any{"role": "assistant", "content": []any{}, "timestamp": 2}}),
		ev(t, delta("thinking_start", 0, "")),
		ev(t, delta("thinking_delta", 0, "Let me ")),
		ev(t, delta("thinking_delta", 0, "look.")),
		ev(t, delta("thinking_end", 0, "")),
		ev(t, delta("text_start", 1, "")),
		ev(t, delta("text_delta", 1, "# Plan\n\nI will **fix**")),
		ev(t, delta("text_delta", 1, " it:\n\n```go\nx := 1\n```\n- one\n")),
		ev(t, delta("text_delta", 1, "- two")),
		ev(t, delta("text_end", 1, "")),
		ev(t, map[string]any{"type": "message_end", "message": map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "thinking", "thinking": "Let me look."},
			map[string]any{"type": "text", "text": "# Plan..."},
		}, "usage": map[string]any{"input": 1200, "output": 30, "cost": map[string]any{"total": 0.01}}, "stopReason": "toolUse", "timestamp": 2}}),
		ev(t, map[string]any{"type": "tool_execution_start", "toolCallId": "1", "toolName": "bash", "args": map[string]any{"command": "go test ./..."}}),
		ev(t, map[string]any{"type": "tool_execution_start", "toolCallId": "2", "toolName": "edit", "args": map[string]any{"path": "m.go", "old_text": "1", "new_text": "2"}}),
		ev(t, map[string]any{"type": "tool_execution_end", "toolCallId": "2", "toolName": "edit", "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "Successfully replaced text"}}, "details": map[string]any{"diff": diff}}, "isError": f}),
		ev(t, map[string]any{"type": "tool_execution_end", "toolCallId": "1", "toolName": "bash", "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.Join(bash, "\n") + "\n"}}}, "isError": f}),
		ev(t, map[string]any{"type": "tool_execution_start", "toolCallId": "3", "toolName": "read", "args": map[string]any{"path": "nope.go", "offset": 10, "limit": 20}}),
		ev(t, map[string]any{"type": "tool_execution_end", "toolCallId": "3", "toolName": "read", "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "ENOENT: nope.go"}}}, "isError": tr}),
		ev(t, map[string]any{"type": "agent_end", "messages": []any{}}),
	}
}

func run(t *testing.T, o Options, lines [][]byte) string {
	t.Helper()
	r := New(o)
	var b strings.Builder
	for _, l := range lines {
		s, err := r.Event(l)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(s)
	}
	b.WriteString(r.Finish())
	return b.String()
}

func TestPlainStream(t *testing.T) {
	now := time.Unix(0, 0)
	clock := func() time.Time { now = now.Add(250 * time.Millisecond); return now }
	got := run(t, Options{Width: 60, Now: clock, ToolLines: 3}, stream(t))
	want := `> fix it
Let me look.
# Plan

I will **fix** it:

` + "```go\nx := 1\n```" + `
- one
- two
● $ go test ./...
● edit m.go
  @@ -1,3 +1,3 @@
   package m
  -func f() int { return 1 }
  +func f() int { return 2 }
  250ms
● $ go test ./...
  … 9 more lines
  line x
  line xx
  line 
  750ms
● read nope.go:10-29
  ENOENT: nope.go
  ✗ error · 250ms
↑1.2k ↓30 · $0.0100
`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("plain render (-want +got):\n%s", d)
	}
}

func TestEveryDeltaIsShownAtOnceWithoutColour(t *testing.T) {
	r := New(Options{})
	for _, d := range []string{"Hel", "lo **wor", "ld**"} {
		s, _ := r.Event(ev(t, delta("text_delta", 0, d)))
		if s != d {
			t.Errorf("delta %q printed as %q", d, s)
		}
	}
}

func TestColourHoldsBackThePartialLine(t *testing.T) {
	r := New(Options{Color: true})
	s, _ := r.Event(ev(t, delta("text_delta", 0, "# Title\nhalf a li")))
	if !strings.Contains(s, "\x1b[1mTitle\x1b[0m\n") || strings.Contains(s, "half") {
		t.Errorf("got %q", s)
	}
	if r.Pending() != "half a li" {
		t.Errorf("pending %q", r.Pending())
	}
	if s := r.Finish(); s != "half a li\n" {
		t.Errorf("finish %q", s)
	}
}

// HoldLine without colour: whole lines go out, the one still streaming
// is held back (a screen printing each event's text as lines would break
// it at every delta), as it came: no styling.
func TestPlainHoldLine(t *testing.T) {
	r := New(Options{HoldLine: true})
	var out strings.Builder
	for _, d := range []string{"Hello ", "**there** ", "world.\nnext ", "line"} {
		s, _ := r.Event(ev(t, delta("text_delta", 0, d)))
		out.WriteString(s)
	}
	if out.String() != "Hello **there** world.\n" || r.Pending() != "next line" {
		t.Errorf("printed %q, pending %q", out.String(), r.Pending())
	}
	if s := r.Finish(); s != "next line\n" {
		t.Errorf("finish %q", s)
	}
}

func TestColourStream(t *testing.T) {
	got := run(t, Options{Width: 60, Color: true}, stream(t))
	for _, want := range []string{
		"\x1b[2;3mLet me \x1b[0m",                                  // thinking dimmed
		"\x1b[31m-func f() int { return \x1b[7m1\x1b[27m }\x1b[0m", // word-level change
		"\x1b[32m+func f() int { return \x1b[7m2\x1b[27m }\x1b[0m",
		"\x1b[31m  ENOENT: nope.go\x1b[0m", // error output red
		"\x1b[90m  │ \x1b[0mx := 1\n",      // code block line
	} {
		if !strings.Contains(got, want) {
			t.Errorf("colour render lacks %q:\n%s", want, got)
		}
	}
}

func TestBadLine(t *testing.T) {
	r := New(Options{})
	if _, err := r.Event([]byte("not json")); err == nil {
		t.Error("no error for a line that is not an event")
	}
	if s, err := r.Event([]byte("  \n")); s != "" || err != nil {
		t.Errorf("blank line: %q %v", s, err)
	}
}

func FuzzEvent(f *testing.F) {
	f.Add([]byte(`{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"x"}}`))
	f.Add([]byte(`{"type":"tool_execution_end","toolCallId":"1","result":{"content":[],"details":{"diff":"-a\n+b"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := New(Options{Color: true, Width: 20})
		r.Event(b)
		r.Finish()
	})
}

func TestAnnouncedCallIsShownOnce(t *testing.T) {
	f := false
	got := run(t, Options{}, [][]byte{
		ev(t, map[string]any{"type": "message_end", "message": map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "toolCall", "id": "c1", "name": "bash", "arguments": map[string]any{"command": "ls"}},
		}, "stopReason": "toolUse", "timestamp": 2}}),
		ev(t, map[string]any{"type": "tool_execution_start", "toolCallId": "c1", "toolName": "bash", "args": map[string]any{"command": "ls"}}),
		ev(t, map[string]any{"type": "tool_execution_end", "toolCallId": "c1", "toolName": "bash", "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "a\nb"}}}, "isError": f}),
	})
	if want := "● $ ls\n  a\n  b\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDiffExpandsTabsAndClips(t *testing.T) {
	r := New(Options{Color: true, Width: 16})
	got := r.Diff("-\tx := 1\n+\tx := 2 + a long tail\n")
	want := "  \x1b[31m-    x := \x1b[7m1\x1b[27m\x1b[0m\n  \x1b[32m+    x := \x1b[7m2 +\x1b[27m…\x1b[0m\n"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestNotice: a tool process's notice (a custom message the model reads)
// is shown as one dim line; one not to be displayed is not.
func TestNotice(t *testing.T) {
	notice := func(display bool) []byte {
		return ev(t, map[string]any{"type": "message_start", "message": map[string]any{"role": "custom", "customType": "job_end",
			"content": "Background job 1 ended (exited with code 0 after 3s): make watch\nLast output:\nok", "display": display, "timestamp": 1}})
	}
	got := run(t, Options{Width: 60}, [][]byte{notice(true), notice(false)})
	if d := cmp.Diff("· Background job 1 ended (exited with code 0 after 3s): make watch\n", got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// An edit whose result carries the language servers' new errors
// (details.diagnostics): one folded line under the diff, the rest
// counted; all of them with DiagnosticLines (agent's ctrl+o). A write
// (no diff) shows its text without the note, which the line repeats.
func TestEditDiagnostics(t *testing.T) {
	f := false
	diff := "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-var a = f(\"x\")\n+var a = f(1)\n"
	diags := "2 new errors in x.go:\nx.go:1:11: error: cannot use 1 (untyped int constant) as string value in argument to f (compiler)\nx.go:3:2: error: undefined: g (compiler)"
	note := "\n\nLanguage server diagnostics:\n" + diags
	lines := [][]byte{
		ev(t, map[string]any{"type": "tool_execution_start", "toolCallId": "1", "toolName": "edit", "args": map[string]any{"path": "x.go", "old_text": "\"x\"", "new_text": "1"}}),
		ev(t, map[string]any{"type": "tool_execution_end", "toolCallId": "1", "toolName": "edit", "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "Successfully replaced text in x.go." + note}},
			"details": map[string]any{"diff": diff, "diagnostics": diags}}, "isError": f}),
		ev(t, map[string]any{"type": "tool_execution_start", "toolCallId": "2", "toolName": "write", "args": map[string]any{"path": "y.go", "content": "package y\nvar b = c\n"}}),
		ev(t, map[string]any{"type": "tool_execution_end", "toolCallId": "2", "toolName": "write", "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "Successfully wrote 22 bytes to y.go\n\nLanguage server diagnostics:\n1 error in y.go:\ny.go:2:9: error: undefined: c (compiler)"}},
			"details": map[string]any{"diagnostics": "1 error in y.go:\ny.go:2:9: error: undefined: c (compiler)"}}, "isError": f}),
	}
	folded := `● edit x.go
  @@ -1 +1 @@
  -var a = f("x")
  +var a = f(1)
  ✗ 2 new errors in x.go: x.go:1:11: error: cannot use 1 (untyped int… (+1 more)
● write y.go
  Successfully wrote 22 bytes to y.go
  ✗ 1 error in y.go: y.go:2:9: error: undefined: c (compiler)
`
	if d := cmp.Diff(folded, run(t, Options{Width: 80}, lines)); d != "" {
		t.Errorf("folded (-want +got):\n%s", d)
	}
	late := [][]byte{lines[0], ev(t, map[string]any{"type": "tool_execution_end", "toolCallId": "1", "toolName": "edit", "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "Successfully replaced text in x.go."}},
		"details": map[string]any{"diff": diff, "diagnostics": "x.go: gopls sent no diagnostics within 5s."}}, "isError": f})}
	if got := run(t, Options{Width: 80}, late); !strings.HasSuffix(got, "  +var a = f(1)\n  · x.go: gopls sent no diagnostics within 5s.\n") {
		t.Errorf("late server:\n%s", got)
	}
	expanded := run(t, Options{Width: 120, DiagnosticLines: 100}, lines)
	if !strings.Contains(expanded, "  +var a = f(1)\n  ✗ 2 new errors in x.go:\n    x.go:1:11: error: cannot use 1 (untyped int constant) as string value in argument to f (compiler)\n    x.go:3:2: error: undefined: g (compiler)\n● write") {
		t.Errorf("expanded:\n%s", expanded)
	}
}
