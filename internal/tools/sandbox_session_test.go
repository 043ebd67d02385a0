package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	isandbox "github.com/agentutils/agentutils/internal/sandbox"
	"github.com/agentutils/agentutils/lib/sandbox"
)

// The bash calls of one sandbox share a session helper (internal/sandbox)
// that forks each: calls running at once must still not see each other
// (each is PID 1 of its own namespace with its own /proc), an aborted call
// is killed with what it started, and a helper that died is replaced.
func TestSandboxSessionCalls(t *testing.T) {
	if err := isandbox.Check(); err != nil {
		t.Skipf("notice: the sandbox cannot run here: %v", err)
	}
	root, state := t.TempDir(), t.TempDir()
	env := &Env{Cwd: root, StateDir: state, Now: time.Now, Getenv: os.Getenv, Sandbox: &Sandbox{Mode: sandbox.WorkspaceWrite}}
	defer env.Close()
	call := func(ctx context.Context, script string) (string, bool) {
		args, _ := json.Marshal(map[string]any{"command": script, "timeout": 60})
		r := Run(ctx, All("replace"), env, "bash", args, nil)
		var sb strings.Builder
		for _, c := range r.Content {
			sb.WriteString(c.Text)
		}
		return sb.String(), r.IsError
	}

	// Ten calls at once: each sees itself as PID 1 and no other call's
	// process (their scripts hold their own token) in its /proc.
	var wg sync.WaitGroup
	outs := make([]string, 10)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], _ = call(context.Background(), fmt.Sprintf(
				"token=call-%d-token; echo pid $$; sleep 0.3; cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -o 'call-[0-9]*-token' | sort -u", i))
		}()
	}
	wg.Wait()
	for i, out := range outs {
		if !strings.Contains(out, "pid 1\n") {
			t.Errorf("call %d is not PID 1 of its namespace: %q", i, out)
		}
		for j := range outs {
			if j != i && strings.Contains(out, fmt.Sprintf("call-%d-token", j)) {
				t.Errorf("call %d sees call %d's process: %q", i, j, out)
			}
		}
		if !strings.Contains(out, fmt.Sprintf("call-%d-token", i)) {
			t.Errorf("call %d does not see itself in its /proc: %q", i, out)
		}
	}

	// A call holds no descriptor of the helper's (its socket to agent-tool
	// carries every call's request and output pipe).
	if out, _ := call(context.Background(), "ls -l /proc/$$/fd/"); strings.Contains(out, "socket:") {
		t.Errorf("a call holds a socket: %s", out)
	}

	// An aborted call: bash and the sleep it left behind are killed.
	nap := fmt.Sprintf("301.%d", time.Now().UnixNano()%1000000)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string, 1)
	go func() {
		out, _ := call(ctx, "sleep 300 & setsid sleep "+nap+" & echo started; wait")
		done <- out
	}()
	sleepPid := waitForProc(t, "sleep "+nap, 0)
	cancel()
	if out := <-done; !strings.Contains(out, "Command aborted") {
		t.Errorf("aborted call: %q", out)
	}
	if alive(sleepPid) {
		t.Errorf("the aborted call's setsid sleep (pid %d) runs on", sleepPid)
	}

	// The helper killed: the next call starts another.
	helper := waitForProc(t, "agentutils-sandbox-session", os.Getpid())
	syscall.Kill(helper, syscall.SIGKILL)
	for alive(helper) {
		time.Sleep(10 * time.Millisecond)
	}
	if out, isErr := call(context.Background(), "echo again"); isErr || !strings.Contains(out, "again") {
		t.Errorf("after the helper died: %q (error %v)", out, isErr)
	}
}

// waitForProc is the pid of a process whose command line starts with
// prefix (and whose parent is ppid, unless 0), waiting for it to appear.
func waitForProc(t *testing.T, prefix string, ppid int) int {
	t.Helper()
	for range 1000 {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err == nil && strings.HasPrefix(strings.ReplaceAll(string(b), "\x00", " "), prefix) && (ppid == 0 || parent(pid) == ppid) {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no process %q appeared", prefix)
	return 0
}

// parent is pid's parent (0 when unknown).
func parent(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := strings.LastIndexByte(string(b), ')')
	if err != nil || i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}
