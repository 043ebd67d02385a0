package batchrun

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/internal/lease"
	"github.com/agentutils/agentutils/lib/batch"
)

// task is a tasks-file line whose prompt tells testdata/agent-session
// what the run does.
func task(id, prompt string) string {
	return `{"id":"` + id + `","repo":".","prompt":"` + prompt + `"}`
}

// sessionLine is an assistant message that cost dollars.
func sessionLine(cost float64) string {
	return `{"type":"message","id":"m","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"assistant","provider":"p","model":"m","content":[],` +
		`"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"total":` + strconv.FormatFloat(cost, 'g', -1, 64) + `}}}}` + "\n"
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// result is a result line of a task that ran before.
func result(id, outcome, reason string) string {
	b, _ := json.Marshal(batch.Result{ID: id, Outcome: outcome, Reason: reason})
	return string(b) + "\n"
}

// TestRun runs batches with testdata/agent-session (a real process per
// run, real files in OUT) and checks what was selected, run, retried,
// skipped and spent.
func TestRun(t *testing.T) {
	type want struct {
		Selected, Results, Ran, Retried, BadLines int
		Spent                                     float64
		Running, NotRun                           []string
		Runs                                      map[string]int // runs of each task, by testdata/agent-session's count
		Outcomes                                  map[string]string
	}
	tests := []struct {
		name  string
		tasks []string
		setup func(t *testing.T, out string) // OUT before the batch
		opts  Options
		want  want
	}{{
		name:  "every task runs; a bad line is a result",
		tasks: []string{task("a", "pass"), task("b", "failed"), `{"id":"c","repo":"."}`},
		want: want{Selected: 3, Results: 3, Ran: 2, BadLines: 1, Spent: 0.5, Runs: map[string]int{"a": 1, "b": 1},
			Outcomes: map[string]string{"a": batch.Passed, "b": batch.Failed, "c": batch.Error}},
	}, {
		name:  "resume: a task with a result is not run again",
		tasks: []string{task("a", "pass"), task("b", "pass")},
		setup: func(t *testing.T, out string) {
			write(t, filepath.Join(out, "results", "a.json"), result("a", batch.Failed, ""))
		},
		want: want{Selected: 2, Results: 2, Ran: 1, Spent: 0.25, Runs: map[string]int{"b": 1},
			Outcomes: map[string]string{"a": batch.Failed, "b": batch.Passed}},
	}, {
		name:  "--retry-failed runs an interrupted task again, not a failed one",
		tasks: []string{task("a", "pass"), task("b", "pass")},
		setup: func(t *testing.T, out string) {
			write(t, filepath.Join(out, "results", "a.json"), result("a", batch.Error, "interrupted"))
			write(t, filepath.Join(out, "results", "b.json"), result("b", batch.Failed, ""))
		},
		opts: Options{RetryFailed: true},
		want: want{Selected: 2, Results: 2, Ran: 1, Spent: 0.25, Runs: map[string]int{"a": 1},
			Outcomes: map[string]string{"a": batch.Passed, "b": batch.Failed}},
	}, {
		name:  "filter, then slice",
		tasks: []string{task("t1", "pass"), task("t2", "pass"), task("t3", "pass"), task("t4", "pass"), task("u5", "pass")},
		opts:  Options{Filter: regexp.MustCompile(`^t`), Slice: &batch.Slice{Start: 1, End: 3}},
		want: want{Selected: 2, Results: 2, Ran: 2, Spent: 0.5, Runs: map[string]int{"t2": 1, "t3": 1},
			Outcomes: map[string]string{"t2": batch.Passed, "t3": batch.Passed}},
	}, {
		name:  "a transient error is retried --retries times",
		tasks: []string{task("x", "transient 2"), task("y", "pass")},
		opts:  Options{Retries: 2},
		want: want{Selected: 2, Results: 2, Ran: 4, Retried: 2, Spent: 1, Runs: map[string]int{"x": 3, "y": 1},
			Outcomes: map[string]string{"x": batch.Passed, "y": batch.Passed}},
	}, {
		name:  "retries spent: the transient error is the result",
		tasks: []string{task("x", "transient 2")},
		opts:  Options{Retries: 1},
		want: want{Selected: 1, Results: 1, Ran: 2, Retried: 1, Spent: 0.5, Runs: map[string]int{"x": 2},
			Outcomes: map[string]string{"x": batch.Error}},
	}, {
		name:  "a task whose lease is held is not started",
		tasks: []string{task("a", "pass"), task("b", "pass")},
		setup: func(t *testing.T, out string) {
			f, err := lease.Take(lease.Path(out, "a"), "test")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
		},
		want: want{Selected: 2, Results: 1, Ran: 1, Spent: 0.25, Running: []string{"a"}, Runs: map[string]int{"b": 1},
			Outcomes: map[string]string{"b": batch.Passed}},
	}, {
		name:  "the cost cap reached by earlier runs: nothing starts",
		tasks: []string{task("a", "pass"), task("b", "pass")},
		setup: func(t *testing.T, out string) {
			write(t, filepath.Join(out, "sessions", "old", "s.jsonl"), sessionLine(0.75))
		},
		opts: Options{MaxCost: 0.5},
		want: want{Selected: 2, Spent: 0.75, NotRun: []string{"a", "b"}, Runs: map[string]int{}, Outcomes: map[string]string{}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			bin := fakeBin(t)
			if tt.setup != nil {
				tt.setup(t, out)
			}
			o := tt.opts
			o.Tasks, o.Input, o.Out, o.Bin, o.Dir = "tasks.jsonl", strings.NewReader(strings.Join(tt.tasks, "\n")+"\n"), out, bin, t.TempDir()
			o.Jobs, o.RetryWait, o.Environ, o.Log = 1, time.Millisecond, []string{"PATH=/usr/bin:/bin"}, io.Discard
			s, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			got := want{Selected: s.Selected, Results: s.Results, Ran: s.Ran, Retried: s.Retried, BadLines: s.BadLines,
				Spent: math.Round(s.Spent*1000) / 1000, Running: s.Running, NotRun: s.NotRun, Runs: runs(t, out), Outcomes: outcomes(t, out)}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestRunCostCap: a run that reaches the cap stops the batch: the last
// task never starts and is listed as not run.
func TestRunCostCap(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	s, err := Run(context.Background(), Options{Tasks: "tasks.jsonl", Out: out, Bin: fakeBin(t), Dir: t.TempDir(), Jobs: 1,
		Input:   strings.NewReader(strings.Join([]string{task("a", "cost 1"), task("b", "pass"), task("c", "pass")}, "\n")),
		MaxCost: 0.6, Environ: []string{"PATH=/usr/bin:/bin"}, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if r := runs(t, out); r["a"] != 1 || r["c"] != 0 || len(s.NotRun) == 0 || s.NotRun[len(s.NotRun)-1] != "c" {
		t.Errorf("runs %v, not run %v", r, s.NotRun)
	}
}

// TestRunBadInput: a tasks file that cannot be read is a usage error
// naming it, and nothing is written.
func TestRunBadInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	_, err := Run(context.Background(), Options{Tasks: "tasks.jsonl", Out: out, Log: io.Discard,
		Input: strings.NewReader("\xff" + strings.Repeat("x", batch.MaxTaskLine+1) + "\n")})
	if err == nil || !strings.HasPrefix(err.Error(), "tasks.jsonl: ") {
		t.Fatalf("error %v", err)
	}
	if _, serr := os.Stat(out); !os.IsNotExist(serr) {
		t.Errorf("OUT written: %v", serr)
	}
}

// fakeBin is a directory whose agent-session is testdata/agent-session.
func fakeBin(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "agent-session"))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "agent-session"), src, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// runs are testdata/agent-session's run counts, by task.
func runs(t *testing.T, out string) map[string]int {
	files, _ := filepath.Glob(filepath.Join(out, "runs-*"))
	m := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[strings.TrimPrefix(filepath.Base(f), "runs-")], _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	return m
}

// outcomes are the outcomes in OUT/results.jsonl, which must be sorted by id.
func outcomes(t *testing.T, out string) map[string]string {
	b, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if os.IsNotExist(err) {
		return map[string]string{}
	}
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		r, err := batch.ParseResult([]byte(l))
		if err != nil {
			t.Fatalf("results.jsonl: %v", err)
		}
		m[r.ID] = r.Outcome
		ids = append(ids, r.ID)
	}
	if !sort.StringsAreSorted(ids) {
		t.Errorf("results.jsonl not sorted: %v", ids)
	}
	return m
}

func TestCommandLines(t *testing.T) {
	tests := []struct {
		name     string
		o        Options
		command  []string
		taskArgs []string
	}{
		{"own workers", Options{Out: "/o", Extra: []string{"--model", "m"}},
			[]string{"agent-session"}, []string{"run-task", "--out", "/o", "--die-with-parent", "--model", "m"}},
		{"timeout", Options{Out: "/o", Timeout: 90},
			[]string{"agent-session"}, []string{"run-task", "--out", "/o", "--die-with-parent", "--timeout", "90s"}},
		{"container", Options{Out: "/o", Engine: "/usr/bin/podman", Image: "img", Dir: "/w"},
			[]string{"/usr/bin/podman", "run", "--rm", "-i", "--init", "--network", "host", "-v", "/o:/o", "-v", "/w:/w", "-w", "/w", "--entrypoint", "agent-session", "img"},
			[]string{"run-task", "--out", "/o", "--die-with-parent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &run{o: tt.o}
			if d := cmp.Diff(tt.command, b.command()); d != "" {
				t.Errorf("command (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.taskArgs, b.runTaskArgs()); d != "" {
				t.Errorf("runTaskArgs (-want +got):\n%s", d)
			}
		})
	}
}

func TestChildEnv(t *testing.T) {
	for _, tt := range []struct {
		environ []string
		path    string
	}{
		{[]string{"HOME=/h", "PATH=/usr/bin"}, "/bin/dir:/usr/bin"},
		{[]string{"HOME=/h"}, "/bin/dir"},
		{[]string{"PATH="}, "/bin/dir"},
	} {
		env := (&run{o: Options{Bin: "/bin/dir", Environ: tt.environ}}).childEnv()
		if got := env[len(env)-1]; got != "PATH="+tt.path {
			t.Errorf("childEnv of %q: last %q, want PATH=%s", tt.environ, got, tt.path)
		}
		if d := cmp.Diff(tt.environ, env[:len(env)-1]); d != "" {
			t.Errorf("childEnv changed the environment (-want +got):\n%s", d)
		}
	}
}

func TestRetryable(t *testing.T) {
	for _, tt := range []struct {
		r    batch.Result
		want bool
	}{
		{batch.Result{Outcome: batch.Error, Reason: "interrupted"}, true},
		{batch.Result{Outcome: batch.Error, Reason: "pipeline failed"}, false},
		{batch.Result{Outcome: batch.Failed}, false},
		{batch.Result{Outcome: batch.Budget, Reason: "interrupted"}, false},
	} {
		if got := retryable(tt.r); got != tt.want {
			t.Errorf("retryable(%+v) = %v", tt.r, got)
		}
	}
}

func TestSpent(t *testing.T) {
	out := t.TempDir()
	write(t, filepath.Join(out, "sessions", "a", "1.jsonl"), `{"type":"session","version":3,"id":"s"}`+"\n"+sessionLine(0.5)+sessionLine(0.25))
	write(t, filepath.Join(out, "sessions", "b", "1.jsonl"), sessionLine(1))
	write(t, filepath.Join(out, "sessions", "b", "notes.txt"), sessionLine(100))
	if got := spent(out); math.Abs(got-1.75) > 1e-9 {
		t.Errorf("spent = %v, want 1.75", got)
	}
}

func TestLastLine(t *testing.T) {
	for _, tt := range []struct{ out, want string }{
		{"a\nCannot connect to the Docker daemon\n", "Cannot connect to the Docker daemon"},
		{"", "exit status 1"},
		{"x\n  \n", "x"},
	} {
		if got := lastLine(tt.out, errExit); got != tt.want {
			t.Errorf("lastLine(%q) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

var errExit = errors.New("exit status 1")
