package checkpoint

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	cp "github.com/agentutils/agentutils/lib/checkpoint"
)

func write(t *testing.T, root, p, s string) {
	t.Helper()
	full := filepath.Join(root, p)
	os.MkdirAll(filepath.Dir(full), 0o755)
	if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func paths(cs []cp.Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Path)
	}
	return out
}

// TestTakeAndRestore: a scan sees what changed in place, what was
// removed and created, never .git nor the excluded data; a restore
// brings the files of the first scan back byte for byte.
func TestTakeAndRestore(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	write(t, root, "a.txt", "alpha\n")
	write(t, root, "dir/b.txt", "beta\n")
	write(t, root, ".git/config", "[core]\n")
	write(t, root, "home/blobs/x", "ours")
	s := Store{Blobs: filepath.Join(data, "blobs"), Manifests: filepath.Join(data, "m"), Exclude: []string{filepath.Join(root, "home")}, MaxFile: MaxFile}
	first, err := s.Take("/s.jsonl", root, time.Now().UnixNano())
	if err != nil || !first.Base || len(first.New.Files) != 2 {
		t.Fatalf("first scan: %+v, %v", first.New.Files, err)
	}
	time.Sleep(time.Duration(2 * cp.Racy))
	write(t, root, "a.txt", "ALPHA\n") // same size: found by its times
	os.RemoveAll(filepath.Join(root, "dir"))
	write(t, root, "new.txt", "new\n")
	write(t, root, ".git/config", "[changed]\n")
	second, err := s.Take("/s.jsonl", root, time.Now().UnixNano())
	if err != nil {
		t.Fatal(err)
	}
	e := second.Entry()
	if d := cmp.Diff([]string{"a.txt", "dir/b.txt", "new.txt"}, paths(e.Changes)); d != "" || second.Base {
		t.Fatalf("changes (-want +got):\n%s", d)
	}
	acts, err := cp.Plan([]cp.Entry{first.Entry(), e}, 0, second.New.Files)
	if err != nil {
		t.Fatal(err)
	}
	blobs, acts := s.Check(acts)
	if fails := Restore(root, acts, blobs); len(fails) != 0 {
		t.Fatal(fails)
	}
	for p, want := range map[string]string{"a.txt": "alpha\n", "dir/b.txt": "beta\n", ".git/config": "[changed]\n"} {
		if b, _ := os.ReadFile(filepath.Join(root, p)); string(b) != want {
			t.Errorf("%s: %q, want %q", p, b, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
		t.Error("new.txt not removed")
	}
}

// TestRestoreSwapsFileAndDirectory: a turn replaced a file by a directory
// and a directory by a file; both come back.
func TestRestoreSwapsFileAndDirectory(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	write(t, root, "x", "was a file\n")
	write(t, root, "y/z", "was in a directory\n")
	s := Store{Blobs: filepath.Join(data, "blobs"), Manifests: filepath.Join(data, "m"), MaxFile: MaxFile}
	first, err := s.Take("/s.jsonl", root, time.Now().UnixNano())
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "x"))
	write(t, root, "x/inner", "now a directory\n")
	os.RemoveAll(filepath.Join(root, "y"))
	write(t, root, "y", "now a file\n")
	second, err := s.Take("/s.jsonl", root, time.Now().UnixNano()+int64(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	acts, err := cp.Plan([]cp.Entry{first.Entry(), second.Entry()}, 0, second.New.Files)
	if err != nil {
		t.Fatal(err)
	}
	blobs, acts := s.Check(acts)
	if fails := Restore(root, acts, blobs); len(fails) != 0 {
		t.Fatal(fails)
	}
	for p, want := range map[string]string{"x": "was a file\n", "y/z": "was in a directory\n"} {
		if b, _ := os.ReadFile(filepath.Join(root, p)); string(b) != want {
			t.Errorf("%s: %q, want %q", p, b, want)
		}
	}
}
