package commit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func gitRepo(t *testing.T) (string, func(args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("init", "-q")
	return dir, run
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestParseDiffRealGit(t *testing.T) {
	dir, git := gitRepo(t)
	long := strings.Repeat("line\n", 40)
	write(t, dir, "src/old/x.go", "package x\n"+long)
	write(t, dir, "gone.txt", "bye\n")
	write(t, dir, "mod.txt", "a\n"+long+"b\n")
	git("add", "-A")
	git("commit", "-qm", "base")
	write(t, dir, "src/new/.keep", "")
	git("mv", "src/old/x.go", "src/new/x.go")
	git("rm", "-q", "gone.txt")
	write(t, dir, "mod.txt", "A\n"+long+"B\n")
	write(t, dir, "with space.txt", "s\n")
	write(t, dir, "img.bin", "\x00\x01\x02")
	write(t, dir, "go.sum", "x v1 h1:abc\n")
	git("add", "-A")
	write(t, dir, "mod.txt", "unstaged\n") // must not show in the staged diff
	files := ParseDiff(git("diff", "--cached", "-M"))
	type row struct {
		Path, Old, Status string
		Binary            bool
		Hunks, Add, Del   int
	}
	var got []row
	for _, f := range files {
		got = append(got, row{f.Path, f.OldPath, f.Status, f.Binary, len(f.Hunks), f.Additions, f.Deletions})
	}
	want := []row{
		{"go.sum", "", "added", false, 1, 1, 0},
		{"gone.txt", "", "deleted", false, 1, 0, 1},
		{"img.bin", "", "added", true, 0, 0, 0},
		{"mod.txt", "", "modified", false, 2, 2, 2},
		{"src/new/.keep", "", "added", false, 0, 0, 0},
		{"src/new/x.go", "src/old/x.go", "renamed", false, 0, 0, 0},
		{"with space.txt", "", "added", false, 1, 1, 0},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if h := files[3].Hunks[1]; h.Index != 1 || h.NewStart == 0 || !strings.HasPrefix(h.Content, "@@") {
		t.Errorf("hunk = %+v", h)
	}
	ns := ParseNumstat(git("diff", "--cached", "--numstat", "-M"))
	var paths []string
	for _, e := range ns {
		paths = append(paths, e.Path)
	}
	if d := cmp.Diff([]string{"go.sum", "gone.txt", "img.bin", "mod.txt", "src/new/.keep", "src/new/x.go", "with space.txt"}, paths); d != "" {
		t.Errorf("numstat paths (-want +got):\n%s", d)
	}
}

func TestRenamedPath(t *testing.T) {
	for in, want := range map[string]string{
		"src/{a => b}/x.go": "src/b/x.go",
		"{a => b}/x.go":     "b/x.go",
		"src/{ => b}/x.go":  "src/b/x.go",
		"old.go => new.go":  "new.go",
		"plain.go":          "plain.go",
	} {
		if got := RenamedPath(in); got != want {
			t.Errorf("RenamedPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExcluded(t *testing.T) {
	for p, want := range map[string]bool{"go.sum": true, "web/package-lock.json": true, "notgo.sum": false,
		"Cargo.lock": true, "a/gradle.lockfile": true, "x.lock.yml": true, "main.go": false} {
		if Excluded(p) != want {
			t.Errorf("Excluded(%q) = %v", p, !want)
		}
	}
}

func TestScopes(t *testing.T) {
	c, wide, pat := Scopes([]NumstatEntry{{Path: "lib/commit/lint.go", Additions: 80}, {Path: "cmd/agent-commit/lint.go", Additions: 20}, {Path: "go.sum", Additions: 500}})
	if wide || pat != "" || len(c) == 0 || c[0].Scope != "commit" {
		t.Errorf("got %+v wide=%v pattern=%q", c, wide, pat)
	}
	_, wide, pat = Scopes([]NumstatEntry{{Path: "a/x.go", Additions: 1}, {Path: "b/y.go", Additions: 1}, {Path: "c/package.json", Additions: 1}})
	if !wide || pat != "deps" {
		t.Errorf("wide=%v pattern=%q", wide, pat)
	}
	if c, _, _ := Scopes([]NumstatEntry{{Path: "go.sum", Additions: 3}}); c != nil {
		t.Errorf("lock files only: %+v", c)
	}
}

// ParseDiff is ParseDiffReader over a whole diff, keeping all of its text.
func ParseDiff(diff string) []FileDiff {
	files, _ := ParseDiffReader(strings.NewReader(diff), -1, -1)
	return files
}

func FuzzParseDiff(f *testing.F) {
	f.Add("diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-a\n+b\n+c\n")
	f.Add("diff --git a/y b/z\nsimilarity index 100%\nrename from y\nrename to z\n")
	f.Add("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n@@ -9 +9 @@\n-c\n+d\n\\ No newline at end of file\ndiff --git a/b b/b\nGIT binary patch\nliteral 3\nKcm\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		files := ParseDiff(s)
		checkSpans(t, s, files, false)
		small, err := ParseDiffReader(strings.NewReader(s), 7, 20)
		if err != nil {
			t.Fatal(err)
		}
		checkSpans(t, s, small, true)
		if len(small) != len(files) {
			t.Fatalf("limits changed the files: %d != %d", len(small), len(files))
		}
		for i := range files {
			a, b := files[i], small[i]
			if a.Path != b.Path || a.Additions != b.Additions || a.Deletions != b.Deletions || len(a.Hunks) != len(b.Hunks) || a.Off != b.Off || a.Size != b.Size {
				t.Fatalf("limits changed file %d: %+v vs %+v", i, a, b)
			}
		}
		ParseNumstat(s)
	})
}

// checkSpans: the files' spans tile the diff from the first "diff --git",
// and each hunk's span is its text (when kept whole).
func checkSpans(t *testing.T, s string, files []FileDiff, limited bool) {
	t.Helper()
	if len(files) == 0 {
		return
	}
	at := files[0].Off
	for _, fd := range files {
		if fd.Off != at || fd.HeaderSize > fd.Size {
			t.Fatalf("file %s: off %d size %d header %d, want off %d", fd.Path, fd.Off, fd.Size, fd.HeaderSize, at)
		}
		at += fd.Size
		for i, h := range fd.Hunks {
			if h.Index != i {
				t.Fatal("hunk index")
			}
			if !limited && s[h.Off:h.Off+h.Size] != h.Content+"\n" && s[h.Off:h.Off+h.Size] != h.Content {
				t.Fatalf("hunk span %q != content %q", s[h.Off:h.Off+h.Size], h.Content)
			}
		}
		if !limited && len(fd.Hunks) > 0 && s[fd.Off:fd.Off+fd.HeaderSize] != fd.Header {
			t.Fatalf("header span %q != %q", s[fd.Off:fd.Off+fd.HeaderSize], fd.Header)
		}
	}
	if at != int64(len(s)) {
		t.Fatalf("spans end at %d, diff has %d bytes", at, len(s))
	}
}
