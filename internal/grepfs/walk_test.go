package grepfs

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentutils/agentutils/lib/grep/ignore"
	"github.com/google/go-cmp/cmp"
)

// The walker's decisions are git's: on generated trees, the files Walk
// visits (hidden included) are exactly what `git ls-files --others
// --exclude-standard` lists as untracked and not ignored.
func TestWalkAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	rules := []string{"*.log", "build/", "/top.txt", "!keep.log", "docs/*.md", "**/tmp", "a/**/z.txt", "*.o", "!important.o",
		"sub/", "\\#hash", "spaced name", "x?.c", "[ab].dat", "nested/**", "!nested/keep.go", "/only-root/", "deep/*/file"}
	names := []string{"a.log", "keep.log", "top.txt", "main.go", "x1.c", "xy.c", "a.dat", "c.dat", "z.txt", "important.o", "lib.o", "file", "#hash", "README.md", ".env"}
	dirs := []string{"", "build", "docs", "sub", "a", "a/b", "a/b/c", "tmp", "src/tmp", "nested", "only-root", "src/only-root", "deep/x", "src"}
	for seed := int64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			root := t.TempDir()
			git := func(args ...string) string {
				cmd := exec.Command("git", append([]string{"-c", "core.excludesFile=/dev/null"}, args...)...)
				cmd.Dir = root
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			git("init", "-q")
			for _, d := range dirs {
				for _, n := range names {
					if rng.Intn(3) == 0 {
						p := filepath.Join(root, d, n)
						os.MkdirAll(filepath.Dir(p), 0o755)
						os.WriteFile(p, []byte("x\n"), 0o644)
					}
				}
				if rng.Intn(3) == 0 {
					var rs []string
					for _, r := range rules {
						if rng.Intn(3) == 0 {
							rs = append(rs, r)
						}
					}
					os.MkdirAll(filepath.Join(root, d), 0o755)
					os.WriteFile(filepath.Join(root, d, ".gitignore"), []byte(strings.Join(rs, "\n")+"\n"), 0o644)
				}
			}
			os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte("*.dat\n"), 0o644)
			var want []string
			for _, l := range strings.Split(strings.TrimSpace(git("ls-files", "--others", "--exclude-standard", "-z")), "\x00") {
				if l != "" {
					want = append(want, l)
				}
			}
			files, errs := Walk(root, ignore.WalkOptions{Hidden: true, NoIgnoreDot: true, SkipGitDir: true})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			got := relPaths(root, files)
			sort.Strings(want)
			sort.Strings(got)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("walk differs from git (-git +walk):\n%s", d)
			}
		})
	}
}

// FilterGlobs (the agent tools' glob) narrow the walk: a glob without '/'
// matches at any depth, one with '/' (or '\') is relative to the root.
func TestWalkFilterGlobs(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a.go", "sub/b.go", "sub/c.txt", "sub/deep/d.go"} {
		writeFile(t, filepath.Join(root, p), "x\n")
	}
	for glob, want := range map[string][]string{
		"*.go":       {"a.go", "sub/b.go", "sub/deep/d.go"},
		"sub/*.go":   {"sub/b.go"},
		`sub\*.txt`:  {"sub/c.txt"},
		"**/deep/**": {"sub/deep/d.go"},
		"*.md":       nil,
	} {
		files, errs := Walk(root, ignore.WalkOptions{FilterGlobs: []string{glob}})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		got := relPaths(root, files)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("glob %q (-want +got):\n%s", glob, diff)
		}
	}
}

// relPaths are the walked files' paths relative to root, with '/'.
func relPaths(root string, files []ignore.File) []string {
	var out []string
	for _, f := range files {
		rel, _ := filepath.Rel(root, f.Abs)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// Under SortModified each directory is read once, and that one listing,
// in the order the directory gave it, is what orders files of equal
// modification time (rg keeps the directory's order for ties). The
// reader here counts the reads and hands back the directory's order
// reversed: a second read of a directory (which gives the order
// unreversed) would show in the output.
func TestWalkSortModifiedReadsEachDirOnce(t *testing.T) {
	root := t.TempDir()
	same := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, p := range []string{"a.txt", "b.txt", "c.txt", "sub/d.txt", "sub/e.txt", "sub/inner/f.txt", ".gitignore"} {
		writeFile(t, filepath.Join(root, p), "x\n")
	}
	writeFile(t, filepath.Join(root, ".gitignore"), "b.txt\n")
	os.Mkdir(filepath.Join(root, ".git"), 0o755) // a repository: the .gitignore counts
	for _, p := range []string{"a.txt", "b.txt", "c.txt", "sub/d.txt", "sub/e.txt", "sub/inner/f.txt", "sub/inner", "sub"} {
		if err := os.Chtimes(filepath.Join(root, p), same, same); err != nil {
			t.Fatal(err)
		}
	}
	newer := same.Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "a.txt"), newer, newer); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	reads := map[string]int{}
	read := func(dir string) ([]os.DirEntry, error) {
		mu.Lock()
		rel, _ := filepath.Rel(root, dir)
		reads[filepath.ToSlash(rel)]++
		mu.Unlock()
		ents, err := readDirUnsorted(dir)
		slices.Reverse(ents)
		return ents, err
	}
	var files []ignore.File
	errs := walkFunc(root, ignore.WalkOptions{SortModified: true}, func(f ignore.File) bool {
		files = append(files, f)
		return true
	}, read)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	// ties (all but a.txt, directories too) in the reader's order; a.txt,
	// the newest, last; b.txt ignored by the .gitignore the listing shows
	var want []string
	var expand func(dir, prefix string)
	expand = func(dir, prefix string) {
		ents, err := readDirUnsorted(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range slices.Backward(ents) {
			switch name := e.Name(); {
			case strings.HasPrefix(name, ".") || name == "a.txt" || name == "b.txt":
			case e.IsDir():
				expand(filepath.Join(dir, name), prefix+name+"/")
			default:
				want = append(want, prefix+name)
			}
		}
	}
	expand(root, "")
	want = append(want, "a.txt")
	if diff := cmp.Diff(want, relPaths(root, files)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{".": 1, "sub": 1, "sub/inner": 1}, reads); diff != "" {
		t.Errorf("directory reads (-want +got):\n%s", diff)
	}
}

// -g/--iglob globs are compiled once (CompileGlobs) and the one value
// serves every walk of a run: here two roots, a whitelist glob, an
// exclusion and a case-insensitive glob that ranks after them.
func TestWalkSharesCompiledGlobs(t *testing.T) {
	ovs, err := ignore.CompileGlobs([]string{"*.go", "!skip.go"}, []string{"*.MD"})
	if err != nil {
		t.Fatal(err)
	}
	o := ignore.WalkOptions{Overrides: ovs}
	for _, dir := range []string{"one", "two"} {
		root := filepath.Join(t.TempDir(), dir)
		for _, p := range []string{"a.go", "skip.go", "b.txt", "README.md", "sub/c.go", "sub/d.txt"} {
			writeFile(t, filepath.Join(root, p), "x\n")
		}
		files, errs := Walk(root, o)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		if diff := cmp.Diff([]string{"README.md", "a.go", "sub/c.go"}, relPaths(root, files)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", dir, diff)
		}
	}
	if _, err := ignore.CompileGlobs([]string{"ok"}, []string{"{a"}); err == nil {
		t.Error("an --iglob that does not parse: no error")
	}
}

// TestWalkCwd: a relative root is below WalkOptions.Cwd, not the
// process's working directory (the command's injected one).
func TestWalkCwd(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.txt", "sub/b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		root string
		want []string
	}{{"", []string{"a.txt", "sub/b.txt"}}, {"sub", []string{"sub/b.txt"}}, {"a.txt", []string{"a.txt"}}} {
		var got []string
		errs := WalkFunc(c.root, ignore.WalkOptions{Cwd: dir}, func(f ignore.File) bool {
			got = append(got, f.Path)
			if !filepath.IsAbs(f.Abs) {
				t.Errorf("%s: Abs %q is not absolute", f.Path, f.Abs)
			}
			return true
		})
		if len(errs) > 0 || strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("root %q: %v %v, want %v", c.root, got, errs, c.want)
		}
	}
}

func TestBelow(t *testing.T) {
	for _, c := range []struct{ dir, path, want string }{
		{"/a/b", "/a/b/c.go", "c.go"},
		{"/a/b", "/a/b/c/d.go", "c/d.go"},
		{"/a/b", "/a/bc/d.go", "/a/bc/d.go"},
		{"/a/b", "/a/b", "/a/b"},
		{"/a/b", "/a/b/", "/a/b/"},
		{"/a/b", "/x/y", "/x/y"},
		{"/", "/x/y", "x/y"},
		{"", "/x/y", "/x/y"},
	} {
		if got := below(c.dir, c.path); got != c.want {
			t.Errorf("below(%q, %q) = %q, want %q", c.dir, c.path, got, c.want)
		}
	}
}
