package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSlashHelp: a mistyped command names the nearest ones; /hotkeys
// lists every key, ctrl+g among them.
func TestSlashHelp(t *testing.T) {
	for _, c := range []struct{ typed, want string }{
		{"/sesion", "unknown command /sesion (did you mean /session?) (/help lists them)"},
		{"/zzzzzz", "unknown command /zzzzzz (/help lists them)"},
		{"/hotkeys", "ctrl+g            edit the prompt in $VISUAL or $EDITOR"},
		{"/name", "this session has no name (/name NAME sets one)"},
	} {
		m, _ := testModel(t)
		m.Update(submitMsg(c.typed))
		if got := strings.Join(m.outbox, "\n"); !strings.Contains(got, c.want) {
			t.Errorf("%s: printed %q, want %q in it", c.typed, got, c.want)
		}
	}
}

// TestEditedOutside: what the editor leaves in the file becomes the
// prompt (without the editor's final newline) and the file is removed;
// when the editor fails the prompt stays as it was.
func TestEditedOutside(t *testing.T) {
	m, _ := testModel(t)
	m.ed.Set("draft")
	f := filepath.Join(t.TempDir(), "p.md")
	os.WriteFile(f, []byte("line one\n\tline two\n"), 0o644)
	m.Update(edited{file: f})
	if got := m.ed.String(); got != "line one\n\tline two" {
		t.Errorf("prompt %q", got)
	}
	if _, err := os.Stat(f); !os.IsNotExist(err) {
		t.Error("the file is left behind")
	}
	m.ed.Set("draft")
	os.WriteFile(f, []byte("half-written"), 0o644)
	m.Update(edited{file: f, err: os.ErrInvalid})
	if got := m.ed.String(); got != "draft" {
		t.Errorf("after a failed editor the prompt is %q", got)
	}
	if !strings.Contains(strings.Join(m.outbox, "\n"), "the prompt is as it was") {
		t.Errorf("no word of the failure: %q", m.outbox)
	}
}
