package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A symlink swapped in between the check and the open must never lead a
// read or a write outside the root: the file is opened beneath the root's
// descriptor, so there is no window (the audit saw 8 escapes in 2,000
// reads when the check and the open were separate path lookups).
func TestRootSymlinkSwap(t *testing.T) {
	dir := t.TempDir()
	root, outside := filepath.Join(dir, "root"), filepath.Join(dir, "outside")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "s.txt"), []byte("secret\n"), 0o644)
	env := &Env{Cwd: root, Root: root, StateDir: filepath.Join(dir, "state"), Now: time.Now, Getenv: func(string) string { return "" }}
	ts := All("replace")
	target := filepath.Join(root, "f.txt")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tmp := filepath.Join(root, ".swap")
			if i%2 == 0 {
				os.Symlink("../outside/s.txt", tmp)
			} else {
				os.WriteFile(tmp, []byte("inside\n"), 0o644)
			}
			os.Rename(tmp, target)
		}
	}()
	escapes, inside := 0, 0
	for range 2000 {
		r := Run(context.Background(), ts, env, "read", json.RawMessage(`{"path":"f.txt"}`), nil)
		switch txt := r.Content[0].Text; {
		case strings.Contains(txt, "secret"):
			escapes++
		case strings.Contains(txt, "inside"):
			inside++
		}
	}
	close(stop)
	wg.Wait()
	if escapes > 0 {
		t.Errorf("%d of 2000 reads returned the file outside the root", escapes)
	}
	if inside == 0 {
		t.Errorf("no read saw the file inside the root")
	}
	// a write through the swapped link is refused as well
	os.Remove(target)
	os.Symlink("../outside/s.txt", target)
	r := Run(context.Background(), ts, env, "write", json.RawMessage(`{"path":"f.txt","content":"pwned"}`), nil)
	if b, _ := os.ReadFile(filepath.Join(outside, "s.txt")); string(b) != "secret\n" {
		t.Errorf("write followed the symlink out of the root: %q (%v)", b, r.Content)
	}
}

func TestResolveAndPaths(t *testing.T) {
	env := &Env{Cwd: "/w", Getenv: func(k string) string { return map[string]string{"HOME": "/h"}[k] }}
	for in, want := range map[string]string{" /etc/passwd": "/etc/passwd", "\t~/x": "/h/x", "~": "/h", "a/../b\n": "/w/b", "~user/x": "/w/~user/x"} {
		if got := env.Resolve(in); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tc := range []struct {
		name, args string
		want       []string
	}{
		{"read", `{"path":"a"}`, []string{"a"}},
		{"ls", `{}`, []string{"."}},
		{"grep", `{"pattern":"x"}`, []string{"."}},
		{"bash", `{"command":"ls","cwd":"/tmp"}`, []string{"/tmp"}},
		{"find", `{"pattern":" ~/src/*.go"}`, []string{"~/src"}},
		{"find", `{"pattern":"**/*.go"}`, []string{"."}},
		{"edit", `{"input":"[ ../x#ABCD]\nreplace 1:\n+y"}`, []string{"../x"}},
		{"apply_patch", `{"input":"*** Begin Patch\n*** Update File: a\n*** Move to:  /b\n@@\n-x\n+y\n*** End Patch"}`, []string{"a", " /b"}},
	} {
		got := Paths(tc.name, json.RawMessage(tc.args))
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Paths(%s, %s) = %q, want %q", tc.name, tc.args, got, tc.want)
		}
	}
}
