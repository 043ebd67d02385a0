package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStatusLine: the command gets Claude Code's JSON on stdin, its
// first line is shown above the footer; it runs again only when the
// input changed, and not sooner than statusEvery after the last run; a
// failing command leaves the last line.
func TestStatusLine(t *testing.T) {
	m, now := testModel(t)
	in := filepath.Join(t.TempDir(), "in.json")
	m.a.File = "/s/2026-01-01T00-00-00-000Z_abc123.jsonl"
	m.a.state.modelRef, m.a.state.cost = "fake/model-x", 0.25
	m.a.StatusLine = "cat > " + in + "; printf '\\033[1mmine\\033[0m · ok\\nsecond line\\n'"
	cmd := m.statusLine()
	if cmd == nil {
		t.Fatal("no run")
	}
	m.Update(cmd())
	if !strings.Contains(m.View(), "\x1b[1mmine\x1b[0m · ok\n") || strings.Contains(m.View(), "second line") {
		t.Errorf("view:\n%s", m.View())
	}
	var got statusInput
	b, _ := os.ReadFile(in)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("input %s: %v", b, err)
	}
	if got.HookEventName != "Status" || got.SessionID != "abc123" || got.Model.ID != "fake/model-x" || got.Cost.TotalCostUSD != 0.25 || got.Workspace.CurrentDir != m.a.Dir {
		t.Errorf("input %s", b)
	}
	if m.statusLine() != nil {
		t.Error("ran again with the same input")
	}
	m.a.state.cost = 0.5
	*now = now.Add(100 * time.Millisecond)
	cmd = m.statusLine()
	if msg := cmd(); msg != (statusMsg{retry: true}) {
		t.Fatalf("within statusEvery: %#v, want a wait", msg)
	}
	m.a.StatusLine = "exit 3"
	cmd = m.statusDone(statusMsg{retry: true})
	m.Update(cmd())
	if !strings.Contains(m.View(), "mine") {
		t.Errorf("a failed run changed the line:\n%s", m.View())
	}
}
