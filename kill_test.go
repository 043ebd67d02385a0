package agentutils_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// carrying lists the processes whose environment holds kv (the fixture's
// HOME, which every process a test starts inherits), as "pid cmdline".
func carrying(kv string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, []byte("\x00"+kv+"\x00")) && !bytes.HasPrefix(env, []byte(kv+"\x00")) {
			continue
		}
		if st, _ := os.ReadFile("/proc/" + e.Name() + "/stat"); bytes.Contains(st, []byte(") Z ")) {
			continue // a zombie: dead, waiting for its parent
		}
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		out = append(out, e.Name()+" "+strings.ReplaceAll(string(cl), "\x00", " "))
	}
	return out
}

// gone waits (at most 15 s: a bound on a broken build, not a timing
// assertion) until no process carries kv and nothing matches glob, and
// reports what is left.
func gone(t *testing.T, kv, glob string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ps := carrying(kv)
		left, _ := filepath.Glob(glob)
		if len(ps) == 0 && len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("left after the kill: processes %q, files %q", ps, left)
		}
		sleepABit()
	}
}

// startLong starts run-task on the task that runs `sleep 30`, in a
// process group of its own (as a batch's is), clones under dir/work, and
// returns when the model's `sleep 30` is running.
func startLong(t *testing.T) (cmd *exec.Cmd, dir string) {
	dir, out, bin, env, task := longTask(t)
	cmd = exec.Command(filepath.Join(bin, "agent-session"), "run-task", "--out", out, "--work-dir", filepath.Join(dir, "work"), task)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := os.Mkdir(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	for {
		running := false
		for _, p := range carrying("HOME=" + dir) {
			running = running || strings.Contains(p, " sleep 30")
		}
		if running {
			return cmd, dir
		}
		if cmd.ProcessState != nil {
			t.Fatal("run-task ended early")
		}
		sleepABit()
	}
}

// TestRunTaskKilled: a SIGKILL of run-task, or of its whole process group,
// leaves no process of the task (the model's `sleep 30` included, which
// no signal to a group reaches: agent-tool runs bash in a group of its
// own) and no clone. Its guard, in a group of its own, sees the runner's
// end and kills what carries the task's marker.
func TestRunTaskKilled(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("runs agent pipelines; Linux's /proc")
	}
	for _, tc := range []struct {
		name string
		kill func(pid int) error
	}{
		{"runner", func(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }},
		{"its process group", func(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, dir := startLong(t)
			if err := tc.kill(cmd.Process.Pid); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			gone(t, "HOME="+dir, filepath.Join(dir, "work", "agent-task-*"))
		})
	}
}
