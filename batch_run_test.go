package agentutils_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentutils/agentutils/internal/lease"
)

// runCode runs a command with stdin and returns its stdout, stderr and
// exit status.
func runCode(t *testing.T, dir string, env []string, stdin io.Reader, name string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errb.String(), 0
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	}
	t.Fatal(err)
	return "", "", 0
}

// taskLines are the fixture's lines by id.
func taskLines(t *testing.T, tasks string) map[string]string {
	b, err := os.ReadFile(tasks)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if id := regexp.MustCompile(`^\{"id":"([^"]+)"`).FindStringSubmatch(l); id != nil {
			m[id[1]] = l
		}
	}
	return m
}

// TestBatchInput: the tasks are read once, from a pipe, a FIFO or a file;
// every line that is not a task gets an error result naming it (a byte
// that is not UTF-8 does not drop the task); a directory and /dev/zero are
// bad input (exit 2) and run nothing.
func TestBatchInput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs agent pipelines")
	}
	dir, tasks, bin, env := batchFixture(t)
	ab := filepath.Join(bin, "agent-batch")
	lines := taskLines(t, tasks)
	input := lines["pass"] + "\n\nnot json\n" + strings.Replace(lines["fail"], `"id":"fail"`, `"id":"latin"`, 1)[:60] + "caf\xe9\"}\n" + lines["pass"] + "\n"

	check := func(t *testing.T, out string) {
		got := readResults(t, filepath.Join(out, "results.jsonl"))
		want := map[string]string{
			"pass":   "check passed",
			"line-3": "line 3: not a task: invalid character 'o' in literal null (expecting 'u')",
			"line-4": "line 4: not a task: byte 64 is not UTF-8",
			"line-5": `line 5: id "pass" is line 1's too`,
		}
		if len(got) != len(want) {
			t.Errorf("%d results, want %d: %v", len(got), len(want), got)
		}
		for id, reason := range want {
			if got[id]["reason"] != reason {
				t.Errorf("%s: reason %q, want %q", id, got[id]["reason"], reason)
			}
		}
	}
	t.Run("pipe", func(t *testing.T) {
		out := filepath.Join(dir, "out-pipe")
		_, stderr, code := runCode(t, dir, env, strings.NewReader(input), ab, "--no-parallel", "-o", out, "-")
		if code != 0 || !strings.Contains(stderr, "4 of 4 tasks have a result") {
			t.Errorf("exit %d: %s", code, stderr)
		}
		check(t, out)
	})
	t.Run("fifo", func(t *testing.T) {
		fifo := filepath.Join(dir, "tasks.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip(err)
		}
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				f.WriteString(input)
				f.Close()
			}
		}()
		out := filepath.Join(dir, "out-fifo")
		if _, stderr, code := runCode(t, dir, env, nil, ab, "-o", out, fifo); code != 0 {
			t.Errorf("exit %d: %s", code, stderr)
		}
		check(t, out)
	})
	for _, tc := range []struct{ name, arg, msg string }{
		{"directory", dir, "is a directory, not a tasks file"},
		{"dev-zero", "/dev/zero", "/dev/zero: line 1: longer than 16777216 bytes"},
		{"missing", filepath.Join(dir, "nope.jsonl"), "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+tc.name)
			_, stderr, code := runCode(t, dir, env, nil, ab, "-o", out, tc.arg)
			if code != 2 || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.msg)
			}
			if _, err := os.Stat(filepath.Join(out, "results.jsonl")); err == nil {
				t.Error("results written")
			}
		})
	}
	for _, bad := range [][]string{{"-t", "0"}, {"-t", "00"}, {"-t", ""}, {"-t", "abc"}, {"--slice", "3:1"}, {"--filter", "("}, {"--max-cost", "-1"}} {
		if _, stderr, code := runCode(t, dir, env, nil, ab, append(bad, tasks)...); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", bad, code, stderr)
		}
	}
}

// TestBatchResume: a task whose earlier run holds its lease is not started
// again; --filter and --slice pick the tasks; the cost spent counts every
// run (an interrupted one that --retry-failed ran again included), and a
// batch-wide cap stops starting tasks.
func TestBatchResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs agent pipelines")
	}
	dir, tasks, bin, env := batchFixture(t)
	ab := filepath.Join(bin, "agent-batch")
	out := filepath.Join(dir, "out")

	// pass's lease is held (as by a run on another host): not started.
	l, err := lease.Take(lease.Path(out, "pass"), "elsewhere")
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCode(t, dir, env, nil, ab, "--no-parallel", "-o", out, "--filter", "^(pass|fail|turns)$", "--slice", "0:2", tasks)
	if code != 1 || !strings.Contains(stdout, "not started, running elsewhere: pass") || !strings.Contains(stderr, "1 of 2 tasks have a result") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	l.Close()
	if got := readResults(t, filepath.Join(out, "results.jsonl")); len(got) != 1 || got["fail"] == nil {
		t.Errorf("results: %v", got)
	}

	// wall (its model runs `sleep 30`), stopped once its first turn is in
	// its session, then run again: both runs' cost is spent.
	wall := filepath.Join(dir, "wall.jsonl")
	os.WriteFile(wall, []byte(strings.Replace(taskLines(t, tasks)["wall"], `,"budgets":{"wallSeconds":1}`, "", 1)+"\n"), 0o644)
	interruptAfterTurn(t, dir, env, filepath.Join(out, "sessions", "wall"), ab, "--no-parallel", "-o", out, wall)
	first := readResults(t, filepath.Join(out, "results", "wall.json"))["wall"]["cost"].(float64)
	stdout = interruptAfterTurn(t, dir, env, filepath.Join(out, "sessions", "wall"), ab, "--no-parallel", "-o", out, "--retry-failed", wall)
	second := readResults(t, filepath.Join(out, "results", "wall.json"))["wall"]["cost"].(float64)
	failCost := readResults(t, filepath.Join(out, "results", "fail.json"))["fail"]["cost"].(float64)
	if first == 0 || second == 0 {
		t.Fatalf("costs %v %v: the cassette's first turn should cost", first, second)
	}
	if want := "spent $" + strconv.FormatFloat(first+second+failCost, 'f', 4, 64); !strings.Contains(stdout, want) {
		t.Errorf("summary lacks %q:\n%s", want, stdout)
	}

	// The cap is reached: nothing more starts.
	stdout, _, code = runCode(t, dir, env, nil, ab, "--no-parallel", "-o", out, "--max-cost", "0.001", tasks)
	if code != 1 || !strings.Contains(stdout, "not started, the cost cap ($0.001) reached: pass turns tokens") {
		t.Errorf("exit %d\n%s", code, stdout)
	}
}

// TestBatchImageRefused: --image wants a container engine that answers; a
// docker client without its daemon (as on this project's CI machine) and a
// podman that fails are refused before anything runs (exit 2, each named).
func TestBatchImageRefused(t *testing.T) {
	dir, tasks, bin, env := batchFixture(t)
	fake := filepath.Join(dir, "fakebin")
	os.Mkdir(fake, 0o755)
	os.WriteFile(filepath.Join(fake, "docker"), []byte("#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2\nexit 1\n"), 0o755)
	os.WriteFile(filepath.Join(fake, "podman"), []byte("#!/bin/sh\necho 'Error: cannot connect to Podman' >&2\nexit 125\n"), 0o755)
	var env2 []string
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + fake + string(os.PathListSeparator) + p
		}
		env2 = append(env2, kv)
	}
	out := filepath.Join(dir, "out")
	_, stderr, code := runCode(t, dir, env2, nil, filepath.Join(bin, "agent-batch"), "--image", "agentutils-batch", "-o", out, tasks)
	want := "--image agentutils-batch: no container engine answers (podman: Error: cannot connect to Podman; docker: Cannot connect to the Docker daemon"
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(out, "results")); err == nil {
		t.Error("something ran")
	}
}

// interruptAfterTurn runs agent-batch and interrupts it once one more
// `sleep 30` call is in the sessions of sessions (its first turn done, so
// its cost spent): no time limit that a loaded machine could pass before
// the turn. Its stdout; exit 130 expected.
func interruptAfterTurn(t *testing.T, dir string, env []string, sessions, name string, args ...string) string {
	t.Helper()
	calls := func() int {
		n := 0
		m, _ := filepath.Glob(filepath.Join(sessions, "*.jsonl"))
		for _, f := range m {
			b, _ := os.ReadFile(f)
			n += strings.Count(string(b), `"toolCall"`)
		}
		return n
	}
	before := calls()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for calls() == before {
		select {
		case err := <-done:
			t.Fatalf("%s ended before its first turn: %v\n%s%s", name, err, out.String(), errb.String())
		default:
			sleepABit()
		}
	}
	cmd.Process.Signal(os.Interrupt)
	if err := <-done; cmd.ProcessState.ExitCode() != 130 {
		t.Fatalf("%s: %v, want exit 130\n%s%s", name, err, out.String(), errb.String())
	}
	return out.String()
}
