//go:build unix

package grepfs

import (
	"context"
	"github.com/agentutils/agentutils/lib/grep/ignore"
	"github.com/agentutils/agentutils/lib/grep/search"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Reading a FIFO waits for its writer without holding the processor:
// with one processor, the writer (which waits for another goroutine to
// run first) still gets to write, and the read returns its bytes.
func TestReadFIFODoesNotBlockTheRuntime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	type result struct {
		data []byte
		err  error
	}
	got := make(chan result, 1)
	go func() {
		data, err := readFile(nil, path, 0)
		got <- result{data, err}
	}()
	runtime.Gosched() // the reader runs first, and waits in open or read
	progressed := make(chan struct{})
	go func() { close(progressed) }() // another goroutine that must run meanwhile
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			got <- result{nil, err}
			return
		}
		<-progressed
		waitInRead() // under a raw read nothing else runs: the test hangs until go test's -timeout
		w.WriteString("one\n")
		runtime.Gosched()
		w.WriteString("two\n")
		w.Close()
	}()
	r := <-got
	if r.err != nil {
		t.Fatal(r.err)
	}
	if string(r.data) != "one\ntwo\n" {
		t.Fatalf("read %q", r.data)
	}
}

// A FIFO named on the command line is searched through Search as a file
// is, its writer running on the one processor meanwhile.
func TestSearchNamedFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return // the search reports the FIFO's error
		}
		waitInRead()
		w.WriteString("a needle\nhay\n")
		runtime.Gosched()
		w.WriteString("another needle\n")
		w.Close()
	}()
	m := mustCompile(t, "needle")
	files := func(yield func(ignore.File) bool) { yield(ignore.File{Path: path, Abs: path, Size: -1, Named: true}) }
	var got []search.FileResult
	Search(context.Background(), m, files, search.SearchOptions{ChunkAbove: search.DefaultChunkAbove}, 1, func(r search.FileResult) bool {
		got = append(got, r)
		return true
	})
	if len(got) != 1 || got[0].Err != nil || got[0].MatchedLines != 2 {
		t.Fatalf("%+v", got)
	}
}

// waitInRead returns once a thread of this process sits in read(2) (seen
// in /proc; elsewhere it returns at once): the goroutine that calls it
// runs only while the reader waits, when the reader leaves the processor
// to the scheduler.
func waitInRead() {
	tasks, err := filepath.Glob("/proc/self/task/*/syscall")
	if err != nil || len(tasks) == 0 {
		return
	}
	runtime.LockOSThread() // this thread's own read of /proc is not the one
	defer runtime.UnlockOSThread()
	self := "/proc/self/task/" + strconv.Itoa(syscall.Gettid()) + "/syscall"
	prefix := strconv.Itoa(syscall.SYS_READ) + " "
	for {
		tasks, _ = filepath.Glob("/proc/self/task/*/syscall")
		for _, t := range tasks {
			if t == self {
				continue
			}
			if b, err := os.ReadFile(t); err == nil && strings.HasPrefix(string(b), prefix) {
				return
			}
		}
		runtime.Gosched()
	}
}
