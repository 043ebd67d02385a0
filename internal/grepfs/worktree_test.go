package grepfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/agentutils/agentutils/lib/grep/ignore"
	"github.com/google/go-cmp/cmp"
)

// In a git worktree (.git is a file, "gitdir: …/.git/worktrees/NAME") the
// main repository's info/exclude applies, found through the worktree's
// commondir as rg 13 (and git) find it.
func TestWalkWorktreeExclude(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	main, wt := filepath.Join(dir, "main"), filepath.Join(dir, "wt")
	git := func(in string, args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "core.excludesFile=/dev/null", "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir = in
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if err := os.MkdirAll(main, 0o755); err != nil {
		t.Fatal(err)
	}
	git(main, "init", "-q")
	os.WriteFile(filepath.Join(main, "a.txt"), []byte("a\n"), 0o644)
	git(main, "add", "a.txt")
	git(main, "commit", "-q", "-m", "a")
	git(main, "worktree", "add", "-q", wt)
	os.WriteFile(filepath.Join(main, ".git", "info", "exclude"), []byte("*.log\n"), 0o644)
	for _, f := range []string{"x.log", "b.txt"} {
		os.WriteFile(filepath.Join(wt, f), []byte("x\n"), 0o644)
	}
	files, errs := Walk(wt, ignore.WalkOptions{Hidden: true, SkipGitDir: true, Cwd: wt})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := relPaths(wt, files)
	sort.Strings(got)
	if d := cmp.Diff([]string{"a.txt", "b.txt"}, got); d != "" {
		t.Errorf("walk of a worktree (-want +got):\n%s", d)
	}
}
