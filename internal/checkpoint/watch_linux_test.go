package checkpoint

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	cp "github.com/agentutils/agentutils/lib/checkpoint"
)

// TestWatchedScanIsTheFullOne: with a real watcher (real inotify), each
// checkpoint looks only where it saw changes, and finds what a full scan
// of the same tree finds, change for change, file for file: writes by a
// child process, a deep new directory, a directory removed, one moved,
// one replaced by a file, a chmod, a link; nothing from .git or the
// excluded data.
func TestWatchedScanIsTheFullOne(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	write(t, root, "a.txt", "alpha\n")
	write(t, root, "dir/b.txt", "beta\n")
	write(t, root, "dir/sub/c.txt", "gamma\n")
	write(t, root, "old/d.txt", "delta\n")
	write(t, root, ".git/config", "[core]\n")
	write(t, root, "home/x", "ours")
	excl := []string{filepath.Join(root, "home")}
	watched := Store{Blobs: filepath.Join(data, "blobs"), Manifests: filepath.Join(data, "w"), Exclude: excl, MaxFile: MaxFile}
	full := Store{Blobs: filepath.Join(data, "blobs"), Manifests: filepath.Join(data, "f"), Exclude: excl, MaxFile: MaxFile}
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan int, 1), make(chan error, 1)
	go func() { done <- watched.Watch(ctx, root, func(n int) { ready <- n }, func(string) {}) }()
	select {
	case n := <-ready:
		if n != 4 { // the root, dir, dir/sub, old: not .git, not home
			t.Fatalf("%d directories watched, want 4", n)
		}
	case err := <-done:
		t.Skipf("no inotify here: %v", err)
	}
	defer func() { cancel(); <-done }()
	sh := func(script string) func() {
		return func() {
			cmd := exec.Command("sh", "-c", script)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v: %s", script, err, out)
			}
		}
	}
	steps := []struct {
		name string
		do   func()
	}{
		{"nothing", func() {}},
		{"a child writes and creates", sh("echo ALPHA > a.txt; echo new > new.txt; (echo bg > dir/bg.txt &) ; wait")},
		{"a deep new directory", sh("mkdir -p n/m/o && echo deep > n/m/o/e.txt && echo x > n/f.txt")},
		{"a directory removed", sh("rm -rf dir/sub")},
		{"a directory moved, then written in", sh("mv old moved && echo more >> moved/d.txt")},
		{"a directory replaced by a file", sh("rm -rf n && echo file > n")},
		{"a chmod and a link", sh("chmod 755 a.txt && ln -s a.txt link")},
		{"git and our data", sh("echo changed > .git/config; echo theirs > home/x")},
		{"a file renamed over another", sh("echo over > tmp && mv tmp new.txt")},
	}
	for i, st := range steps {
		if i > 0 {
			time.Sleep(time.Duration(2 * 20e6)) // past the racy tick, as between prompts
		}
		st.do()
		now := time.Now().UnixNano()
		w, err := watched.Take("/s.jsonl", root, now)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		f, err := full.Take("/s.jsonl", root, now)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if i > 0 && w.New.Tops == nil {
			t.Fatalf("%s: the watcher did not vouch (a full scan)", st.name)
		}
		if d := cmp.Diff(f.Entry(), w.Entry()); d != "" {
			t.Fatalf("%s: the watched checkpoint differs from the full one (-full +watched):\n%s", st.name, d)
		}
		if d := cmp.Diff(whole(t, full, root), whole(t, watched, root)); d != "" {
			t.Fatalf("%s: the manifests differ (-full +watched):\n%s", st.name, d)
		}
	}
}

// TestWatcherOverflow: after the queue overflowed, a token from before
// gets "scan everything"; one from after is answered again.
func TestWatcherOverflow(t *testing.T) {
	w := &watcher{wds: map[int32]string{1: ""}, dirty: map[string]uint64{}, pending: map[string]watchQuestion{}, epoch: "e", warn: func(string) {}}
	w.event(watchEvent{wd: 1, mask: unix.IN_MODIFY, name: "a"})
	before := w.token()
	w.event(watchEvent{wd: 1, mask: unix.IN_MODIFY, name: "b"})
	if r := w.answer(before); r.Fresh || !cmp.Equal(r.Paths, []string{"b"}) {
		t.Fatalf("before the overflow: %+v", r)
	}
	w.event(watchEvent{wd: -1, mask: unix.IN_Q_OVERFLOW})
	if r := w.answer(before); !r.Fresh {
		t.Fatalf("a token from before the overflow was answered: %+v", r)
	}
	after := w.token()
	w.event(watchEvent{wd: 1, mask: unix.IN_CREATE, name: "c"})
	if r := w.answer(after); r.Fresh || !cmp.Equal(r.Paths, []string{"c"}) {
		t.Fatalf("after the overflow: %+v", r)
	}
	if r := w.answer("other:1"); !r.Fresh {
		t.Fatalf("another watcher's token was answered: %+v", r)
	}
}

// whole is the files of the store's manifest and its journal.
func whole(t *testing.T, s Store, root string) []cp.File {
	t.Helper()
	x, ok := s.open("/s.jsonl", root)
	if !ok {
		t.Fatal("no manifest")
	}
	files, ok := x.Files()
	if !ok {
		t.Fatal("the manifest does not decode")
	}
	return files
}
