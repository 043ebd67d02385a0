package sessionstore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
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

func TestAppendClosesTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, []byte("{\"a\":1}\n{\"torn"), 0o644)
	l, err := Lock(context.Background(), path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.AppendLines([]byte("{\"b\":2}\n"))
	b, _ := os.ReadFile(path)
	if string(b) != "{\"a\":1}\n{\"torn\n{\"b\":2}\n" {
		t.Fatalf("got %q", b)
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
