package grepfs

import (
	"bufio"
	"bytes"
	"context"
	"github.com/agentutils/agentutils/lib/grep/ignore"
	"github.com/agentutils/agentutils/lib/grep/printer"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func walkPaths(files []ignore.File, root string) []string {
	var out []string
	for _, f := range files {
		out = append(out, strings.TrimPrefix(f.Path, root+"/"))
	}
	return out
}

// Broken symlinks are skipped, or a warning under -L; symlink loops under
// -L are reported once and the walk ends.
func TestWalkSymlinks(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root+"/a.txt", "hello\n")
	os.Symlink("nowhere", root+"/broken")
	os.Symlink(".", root+"/loop")
	os.MkdirAll(root+"/d", 0o755)
	os.Symlink("..", root+"/d/up")
	os.Symlink("a.txt", root+"/link.txt")
	files, errs := Walk(root, ignore.WalkOptions{})
	if got := walkPaths(files, root); len(got) != 1 || got[0] != "a.txt" || len(errs) != 0 {
		t.Errorf("without -L: %v %v", got, errs)
	}
	files, errs = Walk(root, ignore.WalkOptions{Follow: true})
	if got := walkPaths(files, root); strings.Join(got, ",") != "a.txt,link.txt" {
		t.Errorf("with -L: %v", got)
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"broken: No such file or directory (os error 2)", "File system loop found: " + root + "/loop points to an ancestor " + root,
		"File system loop found: " + root + "/d/up points to an ancestor " + root} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in:\n%s", want, all)
		}
	}
}

// FIFOs and devices met while walking are not opened (reading them could
// block or never end), also through symlinks under -L.
func TestWalkSkipsFIFOsAndDevices(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root+"/a.txt", "x\n")
	if err := syscall.Mkfifo(root+"/fifo", 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	os.Symlink("/dev/zero", root+"/zero")
	os.Symlink(root+"/fifo", root+"/fifo-link")
	files, errs := Walk(root, ignore.WalkOptions{Follow: true})
	if got := walkPaths(files, root); strings.Join(got, ",") != "a.txt" || len(errs) != 0 {
		t.Errorf("got %v %v", got, errs)
	}
}

// An unreadable directory is a warning naming it; the walk goes on.
func TestWalkPermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: permissions are not enforced")
	}
	root := t.TempDir()
	writeFile(t, root+"/a.txt", "x\n")
	writeFile(t, root+"/locked/b.txt", "x\n")
	os.Chmod(root+"/locked", 0o000)
	defer os.Chmod(root+"/locked", 0o755)
	files, errs := Walk(root, ignore.WalkOptions{})
	if got := walkPaths(files, root); strings.Join(got, ",") != "a.txt" {
		t.Errorf("files: %v", got)
	}
	if len(errs) != 1 || errs[0].Error() != root+"/locked: Permission denied (os error 13)" {
		t.Errorf("errors: %v", errs)
	}
}

// A missing root is an error in rg's words; bad globs are refused.
func TestWalkBadInput(t *testing.T) {
	// (rg 13's words depend on its threads: its one-thread walk names
	// the operation and the path again)
	missing := filepath.Join(t.TempDir(), "missing")
	for _, one := range []bool{false, true} {
		want := missing + ": No such file or directory (os error 2)"
		if one {
			want = missing + ": IO error for operation on " + missing + ": No such file or directory (os error 2)"
		}
		_, errs := Walk(missing, ignore.WalkOptions{OneThread: one})
		if len(errs) != 1 || errs[0].Error() != want {
			t.Errorf("missing root (one thread %v): %v, want %s", one, errs, want)
		}
	}
	for glob, want := range map[string]string{
		"[abc": "error parsing glob '[abc': unclosed character class; missing ']'",
		"{a,b": "error parsing glob '{a,b': unclosed alternate group; missing '}'",
		"a}":   "error parsing glob 'a}': unopened alternate group",
	} {
		if _, err := ignore.CompileGlobs([]string{glob}, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", glob, err)
		}
	}
}

// Non-UTF-8 names and content: found, printed byte for byte, and in JSON
// as rg's {"bytes": base64}.
func TestNonUTF8(t *testing.T) {
	root := t.TempDir()
	name := root + "/caf\xe9.txt"
	if err := os.WriteFile(name, []byte("caf\xe9 hello\n"), 0o644); err != nil {
		t.Skip("the filesystem refuses non-UTF-8 names:", err)
	}
	files, _ := Walk(root, ignore.WalkOptions{})
	if len(files) != 1 || files[0].Path != name {
		t.Fatalf("walk: %+v", files)
	}
	m := mustCompile(t, "caf.")
	var res []search.FileResult
	Search(context.Background(), m, slices.Values(files), search.SearchOptions{}, 1, func(r search.FileResult) bool { res = append(res, r); return true })
	if len(res) != 1 || res[0].MatchedLines != 0 {
		t.Errorf("'caf.' must not match an invalid byte (as in rg): %+v", res)
	}
	m = mustCompile(t, "hello")
	r := search.SearchBuffer(m, files[0].Path, []byte("caf\xe9 hello\n"), search.SearchOptions{})
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	printer.NewPrinter(printer.PrintOptions{Mode: "json"}, m, w, false).File(r, 0)
	w.Flush()
	recs := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(recs) != 3 || !strings.Contains(string(recs[1]), `"lines":{"bytes":"Y2Fm6SBoZWxsbwo="}`) || !strings.Contains(string(recs[0]), `"path":{"bytes":`) {
		t.Errorf("json: %s", recs)
	}
}

// A 100 MB file that is one line: found at its end, no quadratic work.
func TestHugeSingleLine(t *testing.T) {
	if testing.Short() {
		t.Skip("100 MB file: not under -short")
	}
	path := filepath.Join(t.TempDir(), "huge.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("abcdefghij", 1<<16)) // 640 KiB
	for i := 0; i < 160; i++ {
		f.Write(chunk)
	}
	f.WriteString("NEEDLE\n")
	f.Close()
	files, _ := Walk(path, ignore.WalkOptions{})
	// (a regexp that must run over the whole line, e.g. (?i)needle, takes
	// Go's regexp seconds on 100 MB: left to the matcher's speed work)
	for _, pat := range []string{"NEEDLE", `NEEDLE$`} {
		var got search.FileResult
		m := mustCompile(t, pat)
		Search(context.Background(), m, slices.Values(files), search.SearchOptions{}, 1, func(r search.FileResult) bool { got = r; return true })
		if got.MatchedLines != 1 || len(got.Lines) != 1 || len(got.Lines[0].Subs) != 1 || got.Lines[0].Subs[0].Start != 160*len(chunk) {
			t.Errorf("%s: %d lines, %+v", pat, got.MatchedLines, got.Err)
		}
	}
}

func mustCompile(t *testing.T, p string) *regex.Matcher {
	m, err := regex.Compile(regex.MatchOptions{Patterns: []string{p}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
