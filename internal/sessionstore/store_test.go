package sessionstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLockAppendRewrite(t *testing.T) {
	for _, name := range []string{"s.jsonl", "s.jsonl.zst"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d", name)
			l, err := Lock(context.Background(), path, true)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.AppendLines([]byte("a\n")); err != nil {
				t.Fatal(err)
			}
			if err := l.AppendLines([]byte("b\nc\n")); err != nil {
				t.Fatal(err)
			}
			got, err := l.ReadAll()
			if err != nil || string(got) != "a\nb\nc\n" {
				t.Fatalf("readAll = %q, %v", got, err)
			}
			if err := l.Rewrite([]byte("x\n")); err != nil {
				t.Fatal(err)
			}
			if err := l.AppendLines([]byte("y\n")); err != nil {
				t.Fatal(err)
			}
			if err := l.Sync(); err != nil {
				t.Fatal(err)
			}
			l.Close()
			f, _ := os.Open(path)
			b, err := ReadBytes(f, path)
			f.Close()
			if err != nil || string(b) != "x\ny\n" {
				t.Fatalf("after rewrite = %q, %v", b, err)
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp"))
			if len(left) != 0 {
				t.Fatalf("temp files left: %v", left)
			}
		})
	}
}

// A torn last line is cut before an append (readers skip it); a whole
// record without its newline is closed with one.
func TestAppendCutsTornLine(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"torn", "{\"type\":\"a\"}\n{\"torn", "{\"type\":\"a\"}\n{\"type\":\"b\"}\n"},
		{"torn, no newline at all", "{\"torn", "{\"type\":\"b\"}\n"},
		{"whole record without its newline", "{\"type\":\"a\"}\n{\"type\":\"c\"}", "{\"type\":\"a\"}\n{\"type\":\"c\"}\n{\"type\":\"b\"}\n"},
		{"whole", "{\"type\":\"a\"}\n", "{\"type\":\"a\"}\n{\"type\":\"b\"}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			os.WriteFile(path, []byte(tc.file), 0o644)
			l, err := Lock(context.Background(), path, false)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if err := l.AppendLines([]byte("{\"type\":\"b\"}\n")); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			if d := cmp.Diff(tc.want, string(b)); d != "" {
				t.Errorf("file (-want +got):\n%s", d)
			}
		})
	}
}

// faultyWriter writes the first n bytes it is given to w, then fails with
// ENOSPC, as a file system that fills up does.
type faultyWriter struct {
	w io.Writer
	n int
}

func (f *faultyWriter) Write(b []byte) (int, error) {
	if len(b) <= f.n {
		f.n -= len(b)
		return f.w.Write(b)
	}
	k, _ := f.w.Write(b[:f.n])
	f.n = 0
	return k, syscall.ENOSPC
}

// A failed append (no space left after part of it was written) is rolled
// back to the size before it, for both formats, and the next append once
// there is room is whole.
func TestAppendRollsBackAFailedWrite(t *testing.T) {
	for _, name := range []string{"s.jsonl", "s.jsonl.zst"} {
		for _, room := range []int{0, 1, 7, 30} {
			t.Run(fmt.Sprintf("%s-%d", name, room), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), name)
				l, err := Lock(context.Background(), path, true)
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				if err := l.AppendLines([]byte("{\"type\":\"a\"}\n")); err != nil {
					t.Fatal(err)
				}
				if err := l.Sync(); err != nil {
					t.Fatal(err)
				}
				before, _ := os.ReadFile(path)
				l.faults = &faultyWriter{w: l.f, n: room}
				err = l.AppendLines([]byte(strings.Repeat("{\"type\":\"big\"}\n", 20)))
				if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "rolled back") {
					t.Fatalf("error %v, want ENOSPC, rolled back", err)
				}
				if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
					t.Fatalf("after the failed append %q, want %q", after, before)
				}
				l.faults = nil
				if err := l.AppendLines([]byte("{\"type\":\"b\"}\n")); err != nil {
					t.Fatal(err)
				}
				got, err := l.ReadAll()
				if err != nil || string(got) != "{\"type\":\"a\"}\n{\"type\":\"b\"}\n" {
					t.Fatalf("then %q, %v", got, err)
				}
			})
		}
	}
}

// A writer that waits for the lock while the holder rewrites the file must
// end up locking the new file, not the replaced inode.
func TestLockFollowsRewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, []byte("1\n"), 0o644)
	l, err := Lock(context.Background(), path, false)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		l2, err := Lock(context.Background(), path, false)
		if err != nil {
			t.Error(err)
			return
		}
		l2.AppendLines([]byte("3\n"))
		l2.Close()
	}()
	time.Sleep(30 * time.Millisecond)
	if err := l.Rewrite([]byte("2\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	l.Close()
	wg.Wait()
	b, _ := os.ReadFile(path)
	if string(b) != "2\n3\n" {
		t.Fatalf("got %q", b)
	}
}

func TestLockCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	l, err := Lock(context.Background(), path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, path, false); err == nil {
		t.Fatal("second lock succeeded while the first is held")
	}
}

// After a huge last line, finding the last entry copies the line a few
// times at most, not once per 64 KiB read back (quadratic: append after a
// 100 MB line took 107 s).
func TestLastEntryAfterAHugeLineIsLinear(t *testing.T) {
	data := []byte(`{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}` + "\n" +
		`{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"` +
		strings.Repeat("x", 8<<20) + `"}],"timestamp":1}}` + "\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	id, err := lastEntryIn(bytes.NewReader(data), int64(len(data)))
	runtime.ReadMemStats(&after)
	if err != nil || id != "a1" {
		t.Fatalf("lastEntryIn = %q, %v", id, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*uint64(len(data)) {
		t.Errorf("allocated %d bytes for a %d-byte file", alloc, len(data))
	}
}

// A failed fsync rolls back what was appended since the last good one
// (it may not be on disk), and nothing before it.
func TestSyncFailureRollsBack(t *testing.T) {
	for _, name := range []string{"s.jsonl", "s.jsonl.zst"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			l, err := Lock(context.Background(), path, true)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if err := l.AppendLines([]byte("{\"type\":\"a\"}\n")); err != nil {
				t.Fatal(err)
			}
			if err := l.Sync(); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			l.AppendLines([]byte("{\"type\":\"b\"}\n"))
			l.AppendLines([]byte("{\"type\":\"c\"}\n"))
			l.syncFault = syscall.EIO
			if err := l.Sync(); !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "rolled back") {
				t.Fatalf("error %v, want EIO, rolled back", err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
				t.Fatalf("after the failed fsync %q, want %q", after, before)
			}
		})
	}
}
