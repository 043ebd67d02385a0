// Package batchrun is agent-batch's engine: it reads a tasks file once,
// picks what to run (filter, slice, resume: never a task with a result,
// never one whose earlier run still holds its lease), runs the tasks with
// agent-session run-task under GNU parallel (on this host and others over
// ssh) or its own workers, retries those that met a transient provider
// error with backoff, stops starting tasks at a batch-wide cost cap,
// exports each task's trajectory, and gathers the results and a summary.
// The pure parts (task lines, selection, backoff, the report) are lib/batch.
package batchrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/internal/lease"
	"github.com/agentutils/agentutils/lib/batch"
	"github.com/agentutils/agentutils/lib/exit"
)

// Options are agent-batch's flags, resolved by the command.
type Options struct {
	Tasks       string         // the tasks file as named (for messages)
	Input       io.Reader      // its content, read once
	Out         string         // absolute
	Jobs        int            // tasks at a time (0: parallel's default, or the number of cores)
	Timeout     int            // seconds per task (0: none)
	RetryFailed bool           // also run the tasks whose result says interrupted
	SSHLogin    string         // GNU parallel --sshlogin
	Extra       []string       // run-task flags
	Filter      *regexp.Regexp // task ids to keep (nil: all)
	Slice       *batch.Slice   // of the filtered tasks (nil: all)
	MaxCost     float64        // dollars over every run in OUT (0: no cap)
	Retries     int            // runs more for a task that met a transient provider error
	RetryWait   time.Duration  // the first retry's wait, doubled each time
	Parallel    string         // GNU parallel's path ("" for the own workers)
	Engine      string         // a container engine's path, with Image: a container per task
	Image       string
	Dir         string // the working directory (mounted in containers)
	Bin         string // the directory of agent-session
	Cores       int
	Environ     []string  // the environment of the processes it starts
	Log         io.Writer // progress and warnings
}

// maxRetryWait caps the backoff.
const maxRetryWait = 5 * time.Minute

// Summary is what a batch did.
type Summary struct {
	Report   batch.Report // over the selected tasks' results
	Selected int          // tasks (and bad lines) selected
	Results  int          // of those, how many have a result
	Ran      int          // runs started now
	Retried  int          // of those, retries after a transient provider error
	Spent    float64      // dollars, every run in OUT's sessions (retried, killed and earlier ones included)
	BadLines int
	Running  []string // not started: an earlier run still holds the lease
	NotRun   []string // not started: the cost cap was reached
}

// Run runs a batch. Its error is bad input (exit 2) or a failure to run
// at all; tasks that fail are results.
func Run(ctx context.Context, o Options) (Summary, error) {
	var s Summary
	lines, err := batch.ReadTasks(o.Input, batch.MaxTaskLine)
	if err != nil {
		return s, exit.Errorf(exit.Usage, "%s: %v", o.Tasks, err)
	}
	for _, d := range []string{"results", "sessions", "logs"} {
		if err := os.MkdirAll(filepath.Join(o.Out, d), 0o755); err != nil {
			return s, err
		}
	}
	sel := batch.Select(lines, o.Filter, o.Slice)
	s.Selected = len(sel)
	todo, err := plan(o, sel, &s)
	if err != nil {
		return s, err
	}
	s.Spent = spent(o.Out)
	b := &run{o: o, s: &s, attempts: map[string]int{}}
	b.rounds(ctx, todo)
	if err := gather(o.Out); err != nil {
		return s, err
	}
	rs := results(o.Out, sel)
	s.Results = len(rs)
	s.Report = batch.Aggregate(rs)
	s.Spent = spent(o.Out)
	return s, nil
}

// plan writes the results of bad lines and returns the tasks to run: not
// those with a result (but for --retry-failed's), nor those running.
func plan(o Options, sel []batch.Line, s *Summary) ([]batch.Line, error) {
	var todo []batch.Line
	for _, l := range sel {
		path := filepath.Join(o.Out, "results", l.ID+".json")
		if l.Err != nil {
			s.BadLines++
			b, _ := json.Marshal(batch.ErrorResult(l))
			if err := atomicfile.Write(path, append(b, '\n'), 0o644); err != nil {
				return nil, err
			}
			fmt.Fprintf(o.Log, "agent-batch: %s: %v\n", o.Tasks, l.Err)
			continue
		}
		if r, err := readResult(path); err == nil && !(o.RetryFailed && retryable(r)) {
			continue
		}
		if h := lease.Check(lease.Path(o.Out, l.ID)); h != nil {
			s.Running = append(s.Running, l.ID)
			fmt.Fprintf(o.Log, "agent-batch: %s: not started: %v\n", l.ID, h)
			continue
		}
		todo = append(todo, l)
	}
	return todo, nil
}

// retryable: a result --retry-failed runs again (its runner was stopped).
// Transient provider errors were retried already, --retries times.
func retryable(r batch.Result) bool {
	return r.Outcome == batch.Error && r.Reason == "interrupted"
}

func readResult(path string) (batch.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return batch.Result{}, err
	}
	return batch.ParseResult([]byte(strings.TrimSpace(string(b))))
}

// results are the selected tasks' results, by id.
func results(out string, sel []batch.Line) []batch.Result {
	var rs []batch.Result
	for _, l := range sel {
		if r, err := readResult(filepath.Join(out, "results", l.ID+".json")); err == nil {
			rs = append(rs, r)
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].ID < rs[j].ID })
	return rs
}

// gather writes OUT/results.jsonl: every OUT/results/*.json, by name.
func gather(out string) error {
	files, err := filepath.Glob(filepath.Join(out, "results", "*.json"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	var all []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		all = append(all, b...)
	}
	return atomicfile.Write(filepath.Join(out, "results.jsonl"), all, 0o644)
}

// run is one batch under way.
type run struct {
	o        Options
	s        *Summary
	attempts map[string]int
	retry    []batch.Line // of the round under way: met a transient error
	capped   bool
	byID     map[string]batch.Line
}

// rounds runs the tasks, then again those that met a transient provider
// error (after a backoff), until none is left, the retries are spent, the
// cost cap is reached or ctx ends.
func (b *run) rounds(ctx context.Context, todo []batch.Line) {
	b.byID = map[string]batch.Line{}
	for _, l := range todo {
		b.byID[l.ID] = l
	}
	if b.o.MaxCost > 0 && b.s.Spent >= b.o.MaxCost {
		b.cap(todo)
		return
	}
	for round := 0; len(todo) > 0 && !b.capped && ctx.Err() == nil; round++ {
		if round > 0 {
			wait := batch.Backoff(round, b.o.RetryWait, maxRetryWait)
			fmt.Fprintf(b.o.Log, "agent-batch: retrying %d task(s) after a transient provider error in %v\n", len(todo), wait)
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return
			}
			b.s.Retried += len(todo)
		}
		b.retry = nil
		started := map[string]bool{}
		for _, l := range todo {
			b.attempts[l.ID]++
			started[l.ID] = true
		}
		b.s.Ran += len(todo)
		ms := b.marks(todo)
		err := b.exec(ctx, todo)
		if ctx.Err() != nil {
			b.settle(todo, ms)
		}
		if err != nil {
			fmt.Fprintf(b.o.Log, "agent-batch: %v\n", err)
			return
		}
		if b.capped {
			b.notStarted(todo)
		}
		todo = b.retry
	}
}

// onResult takes a result line a runner printed.
func (b *run) onResult(line []byte, stop func()) {
	r, err := batch.ParseResult(line)
	if err != nil {
		return // not a result: run-task prints nothing else on stdout
	}
	b.s.Spent += r.Cost
	b.trajectory(r)
	if r.Transient && b.attempts[r.ID] <= b.o.Retries {
		if l, ok := b.byID[r.ID]; ok {
			b.retry = append(b.retry, l)
		}
	}
	if b.o.MaxCost > 0 && b.s.Spent >= b.o.MaxCost && !b.capped {
		b.capped = true
		fmt.Fprintf(b.o.Log, "agent-batch: the cost cap ($%g) is reached ($%.4f spent): no task starts from now on\n", b.o.MaxCost, b.s.Spent)
		stop()
	}
}

// cap marks every task of todo not run.
func (b *run) cap(todo []batch.Line) {
	b.capped = true
	for _, l := range todo {
		b.s.NotRun = append(b.s.NotRun, l.ID)
	}
	fmt.Fprintf(b.o.Log, "agent-batch: the cost cap ($%g) is reached ($%.4f spent): %d task(s) not started\n", b.o.MaxCost, b.s.Spent, len(todo))
}

// notStarted lists the tasks of a capped round that have no result and
// hold no lease: they were never started.
func (b *run) notStarted(todo []batch.Line) {
	for _, l := range todo {
		if _, err := os.Stat(filepath.Join(b.o.Out, "results", l.ID+".json")); err != nil {
			b.s.NotRun = append(b.s.NotRun, l.ID)
		}
	}
}
