package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive says whether pid is a running process (a zombie counts as gone).
func alive(pid int) bool {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(st), ')')
	return i > 0 && !strings.HasPrefix(string(st[i+1:]), " Z")
}

// The bash call returns when bash exits or at its timeout, whichever is
// first, whoever else holds the output pipe; what is left running is
// killed, setsid children included. (Before, each of these calls waited
// for the last holder of the pipe: 1000 s.)
func TestBashTimeoutIsABound(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	env := &Env{Cwd: dir, StateDir: filepath.Join(dir, "state"), Now: time.Now, Getenv: os.Getenv}
	for _, tc := range []struct{ name, command, want string }{
		{"setsid child past the timeout", `setsid sh -c 'echo $$ > pid; exec sleep 1000' & sleep 1000`, "timed out"},
		{"background child after bash exits", `sh -c 'echo $$ > pid; exec sleep 1000' & sleep 0.2; echo hi`, "hi"},
		{"setsid child after bash exits", `setsid sh -c 'echo $$ > pid; exec sleep 1000' & sleep 0.2; echo hi`, "hi"},
		{"double fork into a new session", `(setsid sh -c 'sh -c "echo \$\$ > pid; exec sleep 1000" &' &) ; sleep 0.2; echo hi`, "hi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(filepath.Join(dir, "pid"))
			// A deadline far beyond the timeout, so a call that does not
			// return fails instead of hanging the test.
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			args, _ := json.Marshal(map[string]any{"command": tc.command, "timeout": 1})
			r := Run(ctx, All("replace"), env, "bash", args, nil)
			if ctx.Err() != nil {
				t.Fatalf("the call did not return before the 120 s deadline")
			}
			if !strings.Contains(r.Content[0].Text, tc.want) {
				t.Errorf("result %q, want %q in it", r.Content[0].Text, tc.want)
			}
			b, err := os.ReadFile(filepath.Join(dir, "pid"))
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			for i := 0; i < 100 && alive(pid); i++ {
				time.Sleep(20 * time.Millisecond) // init reaps the killed child
			}
			if alive(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("process %d is still running after the call", pid)
			}
		})
	}
}
