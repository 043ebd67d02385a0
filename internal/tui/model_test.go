package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/internal/approval"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/internal/pipeline"
	"github.com/agentutils/agentutils/lib/event"
)

// testModel is a model with a clock the test moves.
func testModel(t *testing.T) (*Model, *time.Time) {
	t.Helper()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// (no stages to run: nothing is started ahead)
	m := New(Config{Stages: &pipeline.Stages{}, Dir: t.TempDir(), NoAhead: true, Now: func() time.Time { return now }}, 80)
	m.printing = true // what is printed stays in the outbox
	return m, &now
}

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

var (
	enter = tea.KeyMsg{Type: tea.KeyEnter}
	esc   = tea.KeyMsg{Type: tea.KeyEsc}
	ctrlC = tea.KeyMsg{Type: tea.KeyCtrlC}
)

func bashReq(cmd string) *approval.Request {
	in, _ := json.Marshal(map[string]string{"command": cmd})
	return approval.NewRequest(hooks.Input{ToolName: "bash", ToolInput: in})
}

// TestApprovalKeys: which keys answer an approval, in which state of the
// editor, and where the others go.
func TestApprovalKeys(t *testing.T) {
	for _, c := range []struct {
		name   string
		typed  string        // in the editor before the approval
		wait   time.Duration // after the approval appeared
		keys   []tea.KeyMsg
		want   *approval.Answer
		editor string
	}{
		{"y after the guard allows", "", time.Second, []tea.KeyMsg{runes("y")}, &approval.Answer{Allow: true}, ""},
		{"y at once goes to the editor", "", 0, []tea.KeyMsg{runes("y")}, nil, "y"},
		{"enter never answers", "", time.Second, []tea.KeyMsg{enter}, nil, ""},
		{"a prompt being typed keeps the keys", "fix the", time.Second, []tea.KeyMsg{runes("y")}, nil, "fix they"},
		{"enter queues the prompt, then y answers", "next one", time.Second, []tea.KeyMsg{enter, runes("y")}, &approval.Answer{Allow: true}, ""},
		{"esc denies", "", time.Second, []tea.KeyMsg{esc}, &approval.Answer{}, ""},
		{"esc while typing does nothing", "half", time.Second, []tea.KeyMsg{esc}, nil, "half"},
		{"n asks a reason, enter sends it", "", time.Second, []tea.KeyMsg{runes("n"), runes("too risky"), enter}, &approval.Answer{Reason: "too risky"}, ""},
		{"n then esc denies without one", "", time.Second, []tea.KeyMsg{runes("n"), runes("x"), esc}, &approval.Answer{}, ""},
		{"^C aborts, whatever is typed", "half", 0, []tea.KeyMsg{ctrlC}, &approval.Answer{Abort: true, Reason: "aborted by the user"}, "half"},
		{"a paste of y is text", "", time.Second, []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("y"), Paste: true}}, nil, "y"},
	} {
		m, now := testModel(t)
		m.phase = running
		m.ed.Set(c.typed)
		req := bashReq("rm -rf build")
		m.Update(approvalMsg{req})
		*now = now.Add(c.wait)
		for _, k := range c.keys {
			m.Update(k)
			*now = now.Add(c.wait)
		}
		if d := cmp.Diff(c.want, peek(req)); d != "" {
			t.Errorf("%s: answer (-want +got)\n%s", c.name, d)
		}
		if got := m.ed.String(); got != c.editor {
			t.Errorf("%s: editor %q, want %q", c.name, got, c.editor)
		}
	}
}

// peek is the answer a request got, without waiting (nil: none).
func peek(r *approval.Request) *approval.Answer {
	select {
	case a := <-r.Reply:
		return &a
	default:
		return nil
	}
}

// TestApprovalQueuesTypedPrompt: enter at an approval queues the prompt
// being typed; the approval stays.
func TestApprovalQueuesTypedPrompt(t *testing.T) {
	m, now := testModel(t)
	m.phase = running
	req := bashReq("make")
	m.Update(approvalMsg{req})
	m.Update(runes("and then the docs"))
	*now = now.Add(time.Second)
	m.Update(enter)
	if d := cmp.Diff([]string{"and then the docs"}, m.queued); d != "" {
		t.Errorf("queued (-want +got)\n%s", d)
	}
	if m.approve.active() == nil || peek(req) != nil {
		t.Fatal("enter answered the approval")
	}
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "answer in a moment") {
		t.Errorf("just after typing, the view says the keys answer:\n%s", view)
	}
	*now = now.Add(time.Second)
	if view := ansi.Strip(m.View()); !strings.Contains(view, "[y] yes") {
		t.Errorf("the keys are not offered once the editor is idle:\n%s", view)
	}
	m.Update(runes("a"))
	if got := peek(req); got == nil || !got.Allow {
		t.Errorf("a: %+v", got)
	}
}

// TestApprovalClock: a tool's clock stands still while an approval waits.
func TestApprovalClock(t *testing.T) {
	m, now := testModel(t)
	m.phase = running
	start := m.clock.Now()
	m.Update(approvalMsg{bashReq("make")})
	*now = now.Add(time.Minute)
	m.Update(runes("y"))
	*now = now.Add(2 * time.Second)
	if got := m.clock.Now().Sub(start); got != 2*time.Second {
		t.Errorf("the tool's time is %v, want 2s (the minute's wait left out)", got)
	}
}

// TestApprovalDetail: what each kind of call shows.
func TestApprovalDetail(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	in := func(tool string, args map[string]any) hooks.Input {
		b, _ := json.Marshal(args)
		return hooks.Input{ToolName: tool, ToolInput: b}
	}
	for _, c := range []struct {
		name string
		in   hooks.Input
		want []string
	}{
		{"bash", in("bash", map[string]any{"command": "go test ./...\ngit status"}), []string{"  go test ./...", "  git status", "in " + dir + " · sandbox read-only"}},
		{"edit", in("edit", map[string]any{"path": "main.go", "old_text": "func main() {}", "new_text": "func main() { run() }"}),
			[]string{"-func main() {}", "+func main() { run() }"}},
		{"edit that fails", in("edit", map[string]any{"path": "main.go", "old_text": "nowhere", "new_text": "x"}), []string{"the edit will fail"}},
		{"write new", in("write", map[string]any{"path": "n.txt", "content": "a\nb\nc\n"}), []string{"a new file: 3 lines, 6 bytes", "  a", "  c"}},
		{"write over", in("write", map[string]any{"path": "main.go", "content": "x\n"}), []string{"replaces 3 lines (29 bytes) with 1 lines, 2 bytes"}},
		{"apply_patch", in("apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: main.go\n@@\n-func main() {}\n+func main() { go() }\n*** End Patch"}),
			[]string{"-func main() {}", "+func main() { go() }"}},
		{"fetch", in("fetch", map[string]any{"url": "https://go.dev/"}), []string{"reads the network, which the sandbox (read-only) keeps bash off"}},
	} {
		got := ansi.Strip(approvalDetail(c.in, dir, "read-only", 80, 10, false))
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: lacks %q:\n%s", c.name, w, got)
			}
		}
	}
}

// TestPickerKeys: filter, move, choose, cancel.
func TestPickerKeys(t *testing.T) {
	p := &picker{items: []pickItem{{"alpha", "a"}, {"beta", "b"}, {"gamma", "g"}}}
	for _, k := range []tea.KeyMsg{{Type: tea.KeyDown}, {Type: tea.KeyDown}, {Type: tea.KeyDown}} {
		p.key(k)
	}
	if p.sel != 2 {
		t.Errorf("down past the end: sel %d, want 2", p.sel)
	}
	p.key(runes("et"))
	if done, it := p.key(enter); !done || it == nil || it.value != "b" {
		t.Errorf("filtered choice: %v %+v", done, it)
	}
	if done, it := p.key(esc); !done || it != nil {
		t.Errorf("esc: %v %+v", done, it)
	}
}

// TestFooterSandbox: the footer names the sandbox mode; /sandbox changes
// it for the next runs, which pass it to agent-chat and the hooked tools.
func TestFooterSandbox(t *testing.T) {
	m, _ := testModel(t)
	m.a.state.modelRef = "fake/m"
	if f := ansi.Strip(m.a.footer(100)); !strings.HasSuffix(f, "sandbox workspace-write") || !strings.HasPrefix(f, "fake/m · thinking off") {
		t.Errorf("footer %q", f)
	}
	m.Update(submitMsg("/sandbox off"))
	if f := ansi.Strip(m.a.footer(100)); !strings.HasSuffix(f, "sandbox off") {
		t.Errorf("footer after /sandbox off: %q", f)
	}
	m.a.approver, m.a.asks = &approval.Server{Settings: "/s.json", AskCmd: "ask"}, true
	o := m.a.runOpts("hi")
	if o.Sandbox != "off" || o.Model != "fake/m" || !strings.Contains(strings.Join(o.Extra, " "), "--settings '/s.json' --sandbox 'off'") {
		t.Errorf("run options %+v", o)
	}
	m.Update(submitMsg("/sandbox strict"))
	if m.a.Sandbox != "off" || !strings.Contains(strings.Join(m.outbox, "\n"), `unknown mode "strict"`) {
		t.Errorf("a bad mode: %q, %q", m.a.Sandbox, m.outbox)
	}
}

// TestQueueDuringRun: prompts and most commands typed during a run wait
// for it; /help answers at once.
func TestQueueDuringRun(t *testing.T) {
	m, _ := testModel(t)
	m.phase = running
	for _, s := range []string{"first", "/model x", "/help"} {
		m.Update(submitMsg(s))
	}
	if d := cmp.Diff([]string{"first", "/model x"}, m.queued); d != "" {
		t.Errorf("queued (-want +got)\n%s", d)
	}
	if !strings.Contains(strings.Join(m.outbox, "\n"), "the commands and keys") {
		t.Errorf("/help did not answer during the run: %q", m.outbox)
	}
}

// TestPrintsInOrder: finished text reaches the scrollback one print at a
// time, in order.
func TestPrintsInOrder(t *testing.T) {
	m, _ := testModel(t)
	m.printing = false
	m.print("one")
	if m.flush() == nil || !m.printing {
		t.Fatal("nothing printed")
	}
	m.print("two")
	if m.flush() != nil {
		t.Error("a second print while the first is on its way")
	}
	m.Update(printedMsg{})
	if m.printing != true || len(m.outbox) != 0 {
		t.Errorf("after the first print: printing %v, outbox %q", m.printing, m.outbox)
	}
}

// TestPlace: the footer's directory, ~ for the home, and its git branch
// (a worktree's too; a detached head as a short commit).
func TestPlace(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(home, "repo")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	sub := filepath.Join(repo, "sub")
	os.MkdirAll(sub, 0o755)
	wt := filepath.Join(home, "wt")
	os.MkdirAll(filepath.Join(repo, ".git", "worktrees", "wt"), 0o755)
	os.WriteFile(filepath.Join(repo, ".git", "worktrees", "wt", "HEAD"), []byte("0123456789abcdef\n"), 0o644)
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(repo, ".git", "worktrees", "wt")+"\n"), 0o644)
	for _, c := range []struct{ dir, want string }{
		{sub, "~/repo/sub (main)"},
		{wt, "~/wt (0123456)"},
		{home, "~"},
	} {
		if got := place(c.dir, home); got != c.want {
			t.Errorf("place(%s) = %q, want %q", c.dir, got, c.want)
		}
	}
}

// TestExpandToolOutput: ctrl+o shows the last call's output whole, and
// the next runs' tools whole; again folds.
func TestExpandToolOutput(t *testing.T) {
	m, _ := testModel(t)
	var out strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&out, "line %d\n", i)
	}
	streamEnd(t, m, map[string]any{"type": "tool_execution_end", "toolCallId": "c1", "toolName": "bash",
		"args": map[string]string{"command": "seq"}, "result": map[string]any{"content": []any{map[string]string{"type": "text", "text": out.String()}}}, "isError": false})
	if got := strings.Join(m.outbox, "\n"); strings.Contains(got, "line 1\n") || !strings.Contains(got, "more lines") {
		t.Fatalf("folded output:\n%s", got)
	}
	m.outbox = nil
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlO})
	if got := strings.Join(m.outbox, "\n"); !strings.Contains(got, "line 1\n") || !strings.Contains(got, "line 30") || !m.expanded {
		t.Errorf("expanded output:\n%s", got)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlO})
	if m.expanded {
		t.Error("ctrl+o again did not fold")
	}
}

// TestEditDiagnosticsCard: an edit whose result carries the language
// servers' new errors (details.diagnostics, as agent-tool adds them)
// shows them on its card folded to one line; ctrl+o shows them all.
func TestEditDiagnosticsCard(t *testing.T) {
	m, _ := testModel(t)
	diags := "2 new errors in x.go:\nx.go:3:9: error: undefined: y (compiler)\nx.go:4:2: error: missing return (compiler)"
	streamEnd(t, m, map[string]any{"type": "tool_execution_end", "toolCallId": "c1", "toolName": "edit",
		"args": map[string]string{"path": "x.go", "old_text": "a", "new_text": "b"},
		"result": map[string]any{"content": []any{map[string]string{"type": "text", "text": "Successfully replaced text in x.go.\n\nLanguage server diagnostics:\n" + diags}},
			"details": map[string]any{"diff": "--- a/x.go\n+++ b/x.go\n@@ -3 +3 @@\n-\treturn a\n+\treturn y\n", "diagnostics": diags}}, "isError": false})
	got := strings.Join(m.outbox, "\n")
	if !strings.Contains(got, "+    return y\n  ✗ 2 new errors in x.go: x.go:3:9: error: undefined: y (compiler) (+1 more)") || strings.Contains(got, "missing return") {
		t.Fatalf("folded card:\n%s", got)
	}
	m.outbox = nil
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlO})
	if got := strings.Join(m.outbox, "\n"); !strings.Contains(got, "  ✗ 2 new errors in x.go:\n    x.go:3:9: error: undefined: y (compiler)\n    x.go:4:2: error: missing return (compiler)") {
		t.Errorf("expanded card:\n%s", got)
	}
}

// streamEnd gives m, in an 80-column transcript, the one event ev of a
// run (a tool's end).
func streamEnd(t *testing.T, m *Model, ev map[string]any) {
	t.Helper()
	line, _ := json.Marshal(ev)
	e, err := event.Decode(line)
	if err != nil {
		t.Fatal(err)
	}
	m.view = newTranscript(80, false, nil)
	m.started = map[string]event.Event{}
	m.stream([]event.Event{e})
}

// TestFooterNarrow: at 60 columns the footer keeps the model, the tokens
// and the sandbox, and leaves out the thinking level first.
func TestFooterNarrow(t *testing.T) {
	m, _ := testModel(t)
	m.a.state.modelRef = "fake/test-model"
	m.a.state.in, m.a.state.out, m.a.state.cost = 1200, 300, 0.0123
	got := ansi.Strip(m.a.footer(60))
	if want := "fake/test-model · ↑1.2k ↓300 · sandbox workspace-write"; !strings.HasSuffix(got, want) {
		t.Errorf("footer at 60 columns:\n%q\nwant\n%q", got, want)
	}
	if got := ansi.Strip(m.a.footer(140)); !strings.Contains(got, "thinking off · ↑1.2k ↓300 · $0.0123") {
		t.Errorf("footer at 140 columns: %q", got)
	}
}
