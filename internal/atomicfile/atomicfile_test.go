package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteNewFileCreatesParentsWithPerm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "f.txt")
	if err := Write(path, []byte("hello\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("content %q, %v", got, err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
	onlyFile(t, filepath.Dir(path), "f.txt")
}

func TestWriteKeepsModeOfReplacedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "script.sh")
	if err := os.WriteFile(path, []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o755) // past the umask
	if err := Write(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "new" {
		t.Errorf("content %q, want new", got)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755 kept", st.Mode().Perm())
	}
	onlyFile(t, dir, "script.sh")
}

func TestWriteFailureLeavesFileAlone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "d")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Renaming a file over a non-empty directory fails.
	if err := Write(path, []byte("data"), 0o644); err == nil {
		t.Fatal("replacing a non-empty directory: no error")
	}
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		t.Errorf("the directory was disturbed: %v, %v", st, err)
	}
	onlyFile(t, dir, "d")
}

// onlyFile asserts that dir holds exactly name: no temporary file is left.
func onlyFile(t *testing.T, dir, name string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Name() != name {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v, want only %s", dir, names, name)
	}
}
