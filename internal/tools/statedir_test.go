package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The default state dir sits in the shared temp dir: one that another
// user could have made (a link, or a directory others can write to) is
// refused, not used.
func TestDefaultStateDirIsPrivate(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	d := filepath.Join(tmp, fmt.Sprintf("agent-tool-state-%d", os.Getuid()))
	e := &Env{}
	got, err := e.stateDir()
	if err != nil || got != d {
		t.Fatalf("stateDir() = %q, %v; want %q", got, err, d)
	}
	if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v, want 0700", fi.Mode().Perm())
	}
	os.Remove(d)
	os.Symlink(t.TempDir(), d) // planted link
	if _, err := e.stateDir(); err == nil || !strings.Contains(err.Error(), "not a private directory") {
		t.Errorf("a link: err = %v", err)
	}
	os.Remove(d)
	os.Mkdir(d, 0o777)
	os.Chmod(d, 0o777)
	if _, err := e.stateDir(); err == nil || !strings.Contains(err.Error(), "not a private directory") {
		t.Errorf("a shared directory: err = %v", err)
	}
}
