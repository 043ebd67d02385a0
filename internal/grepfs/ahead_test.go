package grepfs

import (
	"context"
	"fmt"
	"github.com/agentutils/agentutils/lib/grep/ignore"
	"github.com/agentutils/agentutils/lib/grep/search"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The results come in the files' order, all of them, when the output of
// the files searched ahead passes maxAhead many times over and the
// printer is slower than the workers; and a printer that stops early
// ends the search with workers held back.
func TestSearchAheadBounded(t *testing.T) {
	dir := t.TempDir()
	var files []ignore.File
	line := strings.Repeat("x", 60) + " needle\n"
	for i := range 200 {
		p := filepath.Join(dir, fmt.Sprintf("f%03d", i))
		writeFile(t, p, strings.Repeat(line, 300+i*7)) // 20-130 KB each, 15 MB in all
		files = append(files, ignore.File{Path: p, Abs: p, Size: -1})
	}
	m := mustCompile(t, "needle")
	base := runtime.NumGoroutine()
	for _, stop := range []int{-1, 0, 1, 57} {
		for _, threads := range []int{1, 2, 4} {
			if n := settled(base); n > base {
				t.Fatalf("before stop %d, %d threads: %d goroutines left of earlier searches (%d before them): a held worker was never let go", stop, threads, n, base)
			}
			var got []string
			Search(context.Background(), m, slices.Values(files), search.SearchOptions{}, threads, func(r search.FileResult) bool {
				if r.Err != nil || r.MatchedLines != len(r.Lines) || r.MatchedLines < 300 {
					t.Fatalf("%s: %v, %d lines", r.Path, r.Err, r.MatchedLines)
				}
				got = append(got, r.Path)
				for range 20 {
					runtime.Gosched() // (a printer behind the workers)
				}
				return len(got) != stop+1
			})
			want := len(files)
			if stop >= 0 {
				want = stop + 1
			}
			if len(got) != want {
				t.Fatalf("stop %d, %d threads: %d results, want %d", stop, threads, len(got), want)
			}
			for k, p := range got {
				if p != files[k].Path {
					t.Fatalf("stop %d, %d threads: result %d is %s, want %s", stop, threads, k, p, files[k].Path)
				}
			}
		}
	}
}

// ahead holds a worker on a later batch while the bytes waiting pass its
// bound, never the worker on the batch printing, and lets it go when the
// printer moves on, the bytes drop, or the search is cancelled.
// settled is the number of goroutines once those ending have ended (at
// most base), or after a few seconds the number still there.
func settled(base int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 500 && n > base; i++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

func TestAhead(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	a := newAhead(ctx, 100)
	defer a.stop()
	a.wait(3) // under the bound
	a.add(150)
	a.wait(0) // the batch printing
	released := make(chan int64)
	for _, seq := range []int64{1, 2, 3} {
		go func() { a.wait(seq); released <- seq }()
	}
	a.next() // batch 1 prints
	if got := <-released; got != 1 {
		t.Fatalf("released %d, want 1", got)
	}
	a.add(-100) // under the bound again: everyone goes
	got := []int64{<-released, <-released}
	slices.Sort(got)
	if !slices.Equal(got, []int64{2, 3}) {
		t.Fatalf("released %v", got)
	}
	a.add(100)
	go func() { a.wait(9); released <- 9 }()
	cancel()
	if got := <-released; got != 9 {
		t.Fatalf("released %d, want 9", got)
	}
}
