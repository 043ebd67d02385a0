package agentutils_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/internal/testbin"
)

// batchFixture makes a git repository and a tasks file whose tasks pass,
// fail their check, exhaust a budget and crash, against the scripted fake
// model in testdata/batch (cassettes).
func batchFixture(t *testing.T) (dir, tasks, binDir string, env []string) {
	t.Helper()
	binDir, err := testbin.Build()
	binDir, _ = filepath.Abs(binDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	dir = t.TempDir()
	env = append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+dir, "AGENTUTILS_HOME="+filepath.Join(dir, "home"), "NO_COLOR=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	repo := filepath.Join(dir, "repo")
	run(t, dir, env, "git", "init", "-q", repo)
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("# the answer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, repo, env, "git", "add", "-A")
	run(t, repo, env, "git", "commit", "-qm", "init")
	cas, _ := filepath.Abs("testdata/batch")
	line := func(id, cassette, extra string) string {
		return fmt.Sprintf(`{"id":%q,"repo":"repo","prompt":"Write the answer to answer.txt.","check":"test \"$(cat answer.txt)\" = 42","model":"anthropic/claude-sonnet-4-5"%s,"chatArgs":["--replay",%q,"--retries","0"]}`,
			id, extra, filepath.Join(cas, cassette+".jsonl"))
	}
	lines := []string{
		line("pass", "pass", ""),
		line("fail", "fail", ""),
		line("turns", "loop", `,"budgets":{"turns":2}`),
		line("tokens", "loop", `,"budgets":{"tokens":5000}`),
		"",
		line("crash", "crash", ""),
		line("wall", "slow", `,"budgets":{"wallSeconds":1}`),
	}
	tasks = filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(tasks, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, tasks, binDir, env
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s %q: %v\n%s%s", name, args, err, out, stderr)
	}
	return string(out)
}

func readResults(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		got[r["id"].(string)] = r
	}
	return got
}

// TestBatch runs the tasks through agent-batch (GNU parallel when
// installed, and its own workers), checks every outcome, session and
// the stats over them, re-runs to see nothing run twice, and runs the
// container's entry script (deploy/entrypoint) with JOB_COMPLETION_INDEX.
func TestBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs agent pipelines")
	}
	engines(t, testBatch)
}

// engines runs f as a subtest under GNU parallel (skipped when it is not
// installed) and on agent-batch's own workers, with the flags that pick
// each.
func engines(t *testing.T, f func(t *testing.T, flags []string)) {
	for _, engine := range []string{"parallel", "workers"} {
		t.Run(engine, func(t *testing.T) {
			flags := []string{"--no-parallel"}
			if engine == "parallel" {
				if _, err := exec.LookPath("parallel"); err != nil {
					t.Skip("GNU parallel not installed")
				}
				flags = nil
			}
			f(t, flags)
		})
	}
}

func testBatch(t *testing.T, flags []string) {
	dir, tasks, bin, env := batchFixture(t)
	script := filepath.Join(bin, "agent-batch")
	out := filepath.Join(dir, "out")
	args := append(append([]string{"-j", "2", "-o", out, "--retry-wait", "1ms"}, flags...), tasks)
	summary := run(t, dir, env, script, args...)
	got := readResults(t, filepath.Join(out, "results.jsonl"))
	want := map[string][2]string{
		"pass": {"passed", "check passed"}, "fail": {"failed", "check exit 1"},
		"turns": {"budget", "turns"}, "tokens": {"budget", "tokens"},
		"crash": {"error", "agent-chat exit 1: "}, "wall": {"budget", "wall"}, // and agent-chat's complaint
	}
	if len(got) != len(want) {
		t.Errorf("%d results, want %d", len(got), len(want))
	}
	for id, w := range want {
		r := got[id]
		if r == nil {
			t.Errorf("%s: no result", id)
			continue
		}
		reason, _ := r["reason"].(string)
		if r["outcome"] != w[0] || (reason != w[1] && !(strings.HasSuffix(w[1], ": ") && strings.HasPrefix(reason, w[1]))) {
			t.Errorf("%s: outcome %v (%v), want %s (%s)", id, r["outcome"], r["reason"], w[0], w[1])
		}
		s, _ := r["session"].(string)
		if st, err := os.Stat(s); err != nil || st.Size() == 0 {
			t.Errorf("%s: session %q: %v", id, s, err)
		}
	}
	if d := got["pass"]["diff"].(string); !strings.Contains(d, "+42") {
		t.Errorf("pass: diff %q", d)
	}
	if c := got["fail"]["exit"].(map[string]any)["check"]; c != 1.0 {
		t.Errorf("fail: check exit %v", c)
	}

	// The summary: a row per model, the crash retried twice (HTTP 500 is
	// transient), the report written, each task's trajectory linked.
	for _, w := range []string{"anthropic/claude-sonnet-4-5  6  ", "runs started 8 (retries after a transient provider error: 2)", "report: " + filepath.Join(out, "report.html")} {
		if !strings.Contains(summary, w) {
			t.Errorf("summary lacks %q:\n%s", w, summary)
		}
	}
	if page, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(page), `<a href="trajectories/pass.html">pass</a>`) {
		t.Errorf("report.html does not link pass's trajectory: %v", err)
	}
	if page, err := os.ReadFile(filepath.Join(out, "trajectories", "pass.html")); err != nil || !strings.Contains(string(page), "Write the answer") {
		t.Errorf("trajectories/pass.html: %v", err)
	}

	// A re-run runs nothing: every task has its sessions still (crash's three).
	run(t, dir, env, script, args...)
	for id := range want {
		n := 1
		if id == "crash" {
			n = 3
		}
		if m, _ := filepath.Glob(filepath.Join(out, "sessions", id, "*.jsonl")); len(m) != n {
			t.Errorf("%s: %d sessions after a re-run, want %d", id, len(m), n)
		}
	}

	var rep struct {
		Total struct {
			Runs, Passed, Failed, Budget, Error int
		}
		ByModel []struct{ Key string }
		ByTask  []struct{ Key string }
	}
	if err := json.Unmarshal([]byte(run(t, dir, env, filepath.Join(bin, "agent-session"), "stats", "--json", filepath.Join(out, "results.jsonl"))), &rep); err != nil {
		t.Fatal(err)
	}
	if tt := rep.Total; tt.Runs != 6 || tt.Passed != 1 || tt.Failed != 1 || tt.Budget != 3 || tt.Error != 1 || len(rep.ByTask) != 6 || len(rep.ByModel) != 1 {
		t.Errorf("stats: %+v", rep)
	}

	// The HTML report: a bar per task, a line per run that had a response
	// (its session read through the result's path), one model.
	report := filepath.Join(dir, "report.html")
	run(t, dir, env, filepath.Join(bin, "agent-session"), "stats", "--html", "-o", report, filepath.Join(out, "results.jsonl"))
	page, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), `<rect class="bar `); n != 6 {
		t.Errorf("report: %d cost bars, want 6", n)
	}
	if n := strings.Count(string(page), `<polyline `); n < 5 || strings.Contains(string(page), "Not drawn") {
		t.Errorf("report: %d runs drawn over turns, want 5 or more and every session read", n)
	}
	if n := strings.Count(string(page), `<g class="model">`); n != 1 {
		t.Errorf("report: %d models, want 1", n)
	}

	// The container's entry: index 1 is the second task (fail).
	entry, _ := filepath.Abs("deploy/entrypoint")
	kout := filepath.Join(dir, "k8s")
	line := run(t, dir, append(env, "JOB_COMPLETION_INDEX=1", "TASKS="+tasks, "OUT="+kout), "sh", entry)
	if !strings.Contains(line, `"id":"fail","outcome":"failed"`) {
		t.Errorf("entrypoint: %s", line)
	}
	if _, err := os.Stat(filepath.Join(kout, "results", "fail.json")); err != nil {
		t.Error(err)
	}
}

// longTask is the fixture's task whose model runs `sleep 30`, without
// its wall budget: a run of it goes on until it is stopped.
func longTask(t *testing.T) (dir, out, bin string, env []string, task string) {
	dir, tasks, bin, env := batchFixture(t)
	b, _ := os.ReadFile(tasks)
	task = strings.Split(strings.TrimSpace(string(b)), "\n")[6]
	return dir, filepath.Join(dir, "out"), bin, env, strings.Replace(task, `,"budgets":{"wallSeconds":1}`, "", 1)
}

// TestRunTaskInterrupted kills a runner mid-run: it still writes its result
// (outcome error, reason interrupted) and the session holds what was done.
func TestRunTaskInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an agent pipeline")
	}
	dir, out, bin, env, wall := longTask(t)
	cmd := exec.Command(filepath.Join(bin, "agent-session"), "run-task", "--out", out, wall)
	cmd.Dir, cmd.Env = dir, env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the session holds the model's `sleep 30` tool call.
	for {
		m, _ := filepath.Glob(filepath.Join(out, "sessions", "wall", "*.jsonl"))
		if len(m) == 1 {
			if s, _ := os.ReadFile(m[0]); strings.Contains(string(s), "sleep 30") {
				break
			}
		}
		if cmd.ProcessState != nil {
			t.Fatal("run-task ended early")
		}
		sleepABit()
	}
	cmd.Process.Signal(os.Interrupt)
	res, _ := readAll(stdout)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit: %v, want 130", err)
	}
	if !strings.Contains(res, `"outcome":"error","reason":"interrupted"`) || !strings.Contains(res, `"turns":1`) {
		t.Errorf("result: %s", res)
	}
}

// TestRunTaskTimeout: --timeout is the runner's own deadline, ended as an
// interrupt is (a job runner's kill on a host reached over ssh may be a
// SIGKILL that leaves no result); a duration below zero is a usage error.
func TestRunTaskTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an agent pipeline")
	}
	dir, out, bin, env, wall := longTask(t)
	cmd := exec.Command(filepath.Join(bin, "agent-session"), "run-task", "--out", out, "--timeout", "5s", wall)
	cmd.Dir, cmd.Env = dir, env
	res, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit: %v, want 130", err)
	}
	if !strings.Contains(string(res), `"outcome":"error","reason":"interrupted"`) {
		t.Errorf("result: %s", res)
	}
	if f, _ := os.ReadFile(filepath.Join(out, "results", "wall.json")); !bytes.Equal(f, res) {
		t.Errorf("results/wall.json %q, stdout %q", f, res)
	}
	if m, _ := filepath.Glob(filepath.Join(out, "sessions", "wall", "*.jsonl")); len(m) != 1 {
		t.Errorf("sessions: %v", m)
	} else if s, _ := os.ReadFile(m[0]); !strings.Contains(string(s), "sleep 30") {
		t.Errorf("the session lacks the call the run was stopped in:\n%s", s)
	}

	bad := exec.Command(filepath.Join(bin, "agent-session"), "run-task", "--out", out, "--timeout", "-1s", wall)
	bad.Dir, bad.Env = dir, env
	msg, err := bad.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(msg), "--timeout") {
		t.Errorf("--timeout -1s: %v %s, want exit 2 naming the flag", err, msg)
	}
}

// TestRunTaskSandbox: run-task's agent-tool runs bash in the sandbox (the
// model's writes outside the clone, key read and kill of its parent fail,
// its answer in the clone is kept), and --sandbox passes through to it.
func TestRunTaskSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an agent pipeline")
	}
	dir, _, bin, env := batchFixture(t)
	os.MkdirAll(filepath.Join(dir, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(dir, ".ssh", "id_rsa"), []byte("PRIVATE-KEY-SBX\n"), 0o600)
	cas, _ := filepath.Abs("testdata/batch/escape.jsonl")
	task := fmt.Sprintf(`{"id":"escape","repo":"repo","prompt":"p","check":"test \"$(cat answer.txt)\" = 42","model":"anthropic/claude-sonnet-4-5","chatArgs":["--replay",%q,"--retries","0"]}`, cas)
	for _, c := range []struct {
		mode, outcome string
	}{{"workspace-write", `"outcome":"passed"`}, {"read-only", `"outcome":"failed"`}} {
		out := filepath.Join(dir, "out-"+c.mode)
		res := run(t, dir, env, filepath.Join(bin, "agent-session"), "run-task", "--out", out, "--sandbox", c.mode, task)
		if !strings.Contains(res, c.outcome) {
			t.Errorf("--sandbox %s: result %s, want %s", c.mode, res, c.outcome)
		}
		for _, f := range []string{"escaped", "late"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Errorf("--sandbox %s: bash wrote %s outside the clone", c.mode, f)
			}
		}
		sessions, _ := filepath.Glob(filepath.Join(out, "sessions", "escape", "*.jsonl"))
		for _, s := range sessions {
			if b, _ := os.ReadFile(s); strings.Contains(string(b), "PRIVATE-KEY-SBX") {
				t.Errorf("--sandbox %s: the key reached the session", c.mode)
			}
		}
		if len(sessions) == 0 {
			t.Errorf("--sandbox %s: no session", c.mode)
		}
	}
}
