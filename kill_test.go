package agentutils_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// carrying lists the processes whose environment holds kv (the fixture's
// HOME, which every process a test starts inherits), as "pid cmdline".
func carrying(kv string) []string {
	return processes(func(env, _ []byte) bool {
		return bytes.Contains(env, []byte("\x00"+kv+"\x00")) || bytes.HasPrefix(env, []byte(kv+"\x00"))
	})
}

// processes lists the live processes (not zombies, not this one) for
// which match, given the environment (nil where it cannot be read:
// agent-chat hides it) and the command line, is true, as "pid cmdline".
func processes(match func(environ, cmdline []byte) bool) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if !match(env, cl) {
			continue
		}
		if st, _ := os.ReadFile("/proc/" + e.Name() + "/stat"); bytes.Contains(st, []byte(") Z ")) {
			continue // a zombie: dead, waiting for its parent
		}
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
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	sleeping(t, dir, cmd.Process.Pid, 1)
	return cmd, dir
}

// sleeping waits until n of the model's `sleep 30` run under the fixture
// dir (at most 60 s, a bound on a broken build), failing if pid ends.
func sleeping(t *testing.T, dir string, pid, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		k := 0
		for _, p := range carrying("HOME=" + dir) {
			if strings.Contains(p, " sleep 30") {
				k++
			}
		}
		if k >= n {
			return
		}
		if syscall.Kill(pid, 0) != nil || time.Now().After(deadline) {
			t.Fatalf("%d of %d `sleep 30` running; %d ended early or is stuck", k, n, pid)
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

// TestBatchKilled: SIGKILL of agent-batch, or of its whole process group,
// while two tasks run the model's `sleep 30` leaves no process and no
// clone, under GNU parallel and on the own workers; ^C (SIGINT to the
// group) stops the tasks, each writing its result, reason interrupted.
func TestBatchKilled(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("runs agent pipelines; Linux's /proc")
	}
	engines(t, func(t *testing.T, flags []string) {
		for _, how := range []string{"SIGKILL agent-batch", "SIGKILL its group", "^C"} {
			t.Run(how, func(t *testing.T) { testBatchKilled(t, flags, how) })
		}
	})
}

func testBatchKilled(t *testing.T, flags []string, how string) {
	dir, out, bin, env, task := longTask(t)
	tasks := filepath.Join(dir, "long.jsonl")
	two := task + "\n" + strings.Replace(task, `"id":"wall"`, `"id":"wall2"`, 1) + "\n"
	if err := os.WriteFile(tasks, []byte(two), 0o644); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	os.Mkdir(work, 0o755)
	args := append(append([]string{"-j", "2", "-o", out}, flags...), tasks, "--", "--work-dir", work, "--grace", "2s")
	cmd := exec.Command(filepath.Join(bin, "agent-batch"), args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	pid := cmd.Process.Pid
	sleeping(t, dir, pid, 2)
	switch how {
	case "SIGKILL agent-batch":
		syscall.Kill(pid, syscall.SIGKILL)
	case "SIGKILL its group":
		syscall.Kill(-pid, syscall.SIGKILL)
	case "^C":
		syscall.Kill(-pid, syscall.SIGINT)
	}
	cmd.Wait()
	gone(t, "HOME="+dir, filepath.Join(work, "agent-task-*"))
	if how == "^C" {
		for _, id := range []string{"wall", "wall2"} {
			if r, err := os.ReadFile(filepath.Join(out, "results", id+".json")); err != nil || !strings.Contains(string(r), `"reason":"interrupted"`) {
				t.Errorf("%s: %s %v", id, r, err)
			}
		}
	}
}

// TestBatchRunnersGone: ^C of a batch whose runners cannot answer (stopped,
// as on a host that is gone, then killed): agent-batch writes each started
// task's result itself, outcome error, reason interrupted, with the
// session the run left; nothing is left behind; a re-run with
// --retry-failed runs exactly those tasks again, not one with a result.
func TestBatchRunnersGone(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("runs agent pipelines; Linux's /proc")
	}
	engines(t, testBatchRunnersGone)
}

func testBatchRunnersGone(t *testing.T, flags []string) {
	dir, out, bin, env, task := longTask(t)
	tasks := filepath.Join(dir, "long.jsonl")
	done := strings.Replace(task, `"id":"wall"`, `"id":"done"`, 1)
	lines := task + "\n" + strings.Replace(task, `"id":"wall"`, `"id":"wall2"`, 1) + "\n" + done + "\n"
	if err := os.WriteFile(tasks, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(out, "results"), 0o755)
	result := `{"id":"done","outcome":"passed","reason":"check passed","turns":1,"tokens":0,"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"cost":0,"wallSeconds":1,"diff":"","exit":{}}` + "\n"
	if err := os.WriteFile(filepath.Join(out, "results", "done.json"), []byte(result), 0o644); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	os.Mkdir(work, 0o755)
	args := append(append([]string{"-j", "2", "-o", out}, flags...), tasks, "--", "--work-dir", work)
	cmd := exec.Command(filepath.Join(bin, "agent-batch"), args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	sleeping(t, dir, cmd.Process.Pid, 2)
	var runners []int
	for _, p := range carrying("HOME=" + dir) {
		if f := strings.Fields(p); len(f) > 3 && filepath.Base(f[1]) == "agent-session" && f[2] == "run-task" && f[3] != "--guard" {
			pid, _ := strconv.Atoi(f[0])
			runners = append(runners, pid)
		}
	}
	if len(runners) != 2 {
		t.Fatalf("want 2 runners, got %v", runners)
	}
	for _, pid := range runners {
		syscall.Kill(pid, syscall.SIGSTOP)
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	for _, pid := range runners {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 130 {
		t.Errorf("agent-batch: %v, want exit 130", err)
	}
	gone(t, "HOME="+dir, filepath.Join(work, "agent-task-*"))
	for _, id := range []string{"wall", "wall2"} {
		r, err := os.ReadFile(filepath.Join(out, "results", id+".json"))
		var res struct{ Outcome, Reason, Session string }
		if err != nil || json.Unmarshal(r, &res) != nil || res.Outcome != "error" || res.Reason != "interrupted" {
			t.Errorf("%s: %s %v", id, r, err)
			continue
		}
		if s, err := os.ReadFile(res.Session); err != nil || !strings.Contains(string(s), "sleep 30") {
			t.Errorf("%s: the result's session %q: %v", id, res.Session, err)
		}
	}
	// The re-run: each runner stops itself after 1 s (interrupted again).
	resume := exec.Command(filepath.Join(bin, "agent-batch"), append(append([]string{"-j", "2", "-o", out, "-t", "1", "--retry-failed"}, flags...), tasks, "--", "--work-dir", work)...)
	resume.Dir, resume.Env = dir, env
	if b, err := resume.CombinedOutput(); err != nil {
		t.Fatalf("re-run: %v\n%s", err, b)
	}
	got := map[string]int{}
	for _, id := range []string{"wall", "wall2", "done"} {
		files, _ := filepath.Glob(filepath.Join(out, "sessions", id, "*.jsonl"))
		got[id] = len(files)
	}
	if diff := cmp.Diff(map[string]int{"wall": 2, "wall2": 2, "done": 0}, got); diff != "" {
		t.Errorf("sessions per task after the re-run (-want +got):\n%s", diff)
	}
}

// TestRunTaskReaderGone: with --die-with-parent, the end of the reader of
// the runner's stdout (the ssh connection of a job on another host) stops
// the run as SIGTERM does: its result says interrupted, exit 130, nothing
// left behind.
func TestRunTaskReaderGone(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("runs an agent pipeline; Linux's /proc")
	}
	dir, out, bin, env, task := longTask(t)
	work := filepath.Join(dir, "work")
	os.Mkdir(work, 0o755)
	cmd := exec.Command(filepath.Join(bin, "agent-session"), "run-task", "--die-with-parent", "--out", out, "--work-dir", work, task)
	cmd.Dir, cmd.Env = dir, env
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() { syscall.Kill(cmd.Process.Pid, syscall.SIGKILL) })
	sleeping(t, dir, cmd.Process.Pid, 1)
	pr.Close()
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 130 {
		t.Errorf("run-task: %v, want exit 130", err)
	}
	gone(t, "HOME="+dir, filepath.Join(work, "agent-task-*"))
	if r, err := os.ReadFile(filepath.Join(out, "results", "wall.json")); err != nil || !strings.Contains(string(r), `"reason":"interrupted"`) {
		t.Errorf("result: %s %v", r, err)
	}
}
