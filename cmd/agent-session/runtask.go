package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/lease"
	"github.com/agentutils/agentutils/internal/proctree"
	sbflags "github.com/agentutils/agentutils/internal/sandbox/flags"
	"github.com/agentutils/agentutils/internal/taskrun"
	"github.com/agentutils/agentutils/lib/batch"
	"github.com/agentutils/agentutils/lib/exit"
)

func runTaskCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "run-task",
		Usage:     "run one task (formats/task) headless and print its result line (formats/task-result)",
		ArgsUsage: "[TASK-JSON | -]",
		Description: `Runs one task end to end without a terminal: a fresh clone of the task's repository at its
ref, the pipeline
   agent-session open S | agent-compact | agent-chat … PROMPT | agent-session append S --tee
until the agent stops or a budget runs out, the task's check command (bash -c, in the clone),
then one result line on stdout, also written to OUT/results/<id>.json. The session is
OUT/sessions/<id>/<timestamp>_<uuid>.jsonl, the processes' stderr OUT/logs/<id>.log.

The task is the argument (one JSON line), - for stdin, or the --index'th line of --tasks
(--index defaults to $JOB_COMPLETION_INDEX, as a Kubernetes Indexed Job sets it).

Budgets: turns become agent-chat --max-turns; tokens, cost and wall time are watched on the
event stream, and when one runs out agent-chat is sent SIGTERM (it aborts and its last events
are persisted), then the processes are killed after --grace. SIGINT/SIGTERM to run-task does
the same and writes the result (outcome error, reason interrupted) at once, then again when
the pipeline has ended; so does --timeout when it runs out (the runner's own deadline: on a
host reached over ssh, a job runner's kill may be a SIGKILL that leaves no result).

The run holds a lease on the task (OUT/leases/<id>.lock, an flock the kernel lets go of when the
runner ends, however it ends): a second run of the same task, on any host sharing OUT, exits 1
without touching the first's files.

Exit status: 0 when a result was written (whatever the outcome), 130 when interrupted (the
result is written), 2 for a bad task line or flags (no result), 1 when no result could be written
(the task is running elsewhere, say).

Examples:
   agent-session run-task --out out '{"id":"t1","repo":".","prompt":"fix the test","check":"go test ./..."}'
   agent-session run-task --out out --tasks tasks.jsonl --index 3 --timeout 30m
   mkdir -p out && grep -v '^[[:space:]]*$' tasks.jsonl | \
     parallel --jobs 4 --joblog out/joblog --resume agent-session run-task --out out {}`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Value: "agent-batch", Usage: "`DIR` for sessions/, results/ and logs/"},
			&cli.StringFlag{Name: "tasks", Usage: "read the task from line --index of tasks `FILE`"},
			&cli.StringFlag{Name: "index", Usage: "`N`th task (from 0, blank lines skipped) of --tasks (default $JOB_COMPLETION_INDEX)"},
			&cli.StringFlag{Name: "work-dir", Usage: "clone into a new directory under `DIR` (default: the temporary directory)"},
			&cli.BoolFlag{Name: "keep", Usage: "keep the clone after the run"},
			&cli.DurationFlag{Name: "check-timeout", Value: 10 * time.Minute, Usage: "kill the check after `DURATION`"},
			&cli.DurationFlag{Name: "grace", Value: 5 * time.Second, Usage: "after SIGTERM, wait `DURATION` for the pipeline before killing it"},
			&cli.DurationFlag{Name: "timeout", Usage: "stop the run after `DURATION` as SIGTERM does (reason interrupted, exit 130)"},
			&cli.BoolFlag{Name: "die-with-parent", Usage: "stop as SIGTERM does (result interrupted, exit 130) when the process that started it dies, or the reader of its stdout (a pipe or socket: an ssh connection) goes"},
			&cli.StringFlag{Name: "guard", Hidden: true, Usage: "run as the guard of the task whose processes carry `MARKER`"},
			&cli.StringFlag{Name: "guard-dir", Hidden: true, Usage: "the guard removes `DIR` when the runner dies"},
		}, sbflags.Flags()...),
		Action: func(c *cli.Context) error { return runTask(c, env) },
	}
}

// runTask is run-task's action (or, with the hidden --guard, the guard's).
func runTask(c *cli.Context, env *app.Env) error {
	if m := c.String("guard"); m != "" {
		return taskrun.Guard(env, m, c.String("guard-dir"))
	}
	ctx := c.Context
	if c.Bool("die-with-parent") {
		var stop context.CancelFunc
		var err error
		if ctx, stop, err = dieWithParent(ctx); err != nil {
			return err
		}
		defer stop()
	}
	task, err := readTask(c, env)
	if err != nil {
		return &exit.Error{Code: exit.Usage, Err: err}
	}
	if d := c.Duration("timeout"); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	} else if d < 0 {
		return exit.Errorf(exit.Usage, "--timeout %v: want a positive duration (e.g. 30m)", d)
	}
	sb, err := sbflags.PassArgs(c, env.Dir)
	if err != nil {
		return &exit.Error{Code: exit.Usage, Err: err}
	}
	r := &taskrun.Runner{Env: env, Task: task, Out: absPath(env, c.String("out")), Sandbox: sb, Keep: c.Bool("keep"),
		WorkDir: c.String("work-dir"), CheckTimeout: c.Duration("check-timeout"), Grace: c.Duration("grace"), Stdout: c.App.Writer,
		NewSession: func(dir, cwd, title string) (string, error) {
			f, _, err := createSession(env, dir, cwd, map[string]string{"title": title}, nil, false)
			return f, err
		}}
	// One run of a task at a time, on any host that shares OUT: a
	// second one would write over the first's result.
	host, _ := os.Hostname()
	l, err := lease.Take(lease.Path(r.Out, task.ID), host)
	if err != nil {
		return exit.Errorf(exit.Failure, "task %s: %v", task.ID, err)
	}
	defer l.Close()
	return r.Run(ctx)
}

// dieWithParent is --die-with-parent: the context ends when the parent
// dies, or when the reader of stdout goes.
func dieWithParent(ctx context.Context) (context.Context, context.CancelFunc, error) {
	// SIGHUP when the parent dies, taken as an interrupt: not a second
	// SIGTERM, which would end the process before its result is written
	// (a remote shell and its runner get parallel's TERM together).
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP)
	if err := proctree.DieWithParent(syscall.SIGHUP); err != nil {
		stop()
		return ctx, stop, err
	}
	// Over ssh the parent may outlive the connection (parallel's remote
	// wrapper misses sshd's end when it came before the wrapper looked):
	// the reader of stdout going says it too. The result line then goes
	// nowhere: a write to it is an error, not SIGPIPE, so that the runner
	// still cleans up (caught, not ignored: the processes it starts keep
	// SIGPIPE's default).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-proctree.ReaderGone(1):
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(); stop() }, nil
}

func readTask(c *cli.Context, env *app.Env) (batch.Task, error) {
	if f := c.String("tasks"); f != "" {
		if c.Args().Len() > 0 {
			return batch.Task{}, fmt.Errorf("--tasks and a TASK argument exclude each other")
		}
		idx := c.String("index")
		if idx == "" {
			idx = env.Getenv("JOB_COMPLETION_INDEX")
		}
		n, err := strconv.Atoi(idx)
		if err != nil {
			return batch.Task{}, fmt.Errorf("--tasks needs --index N or $JOB_COMPLETION_INDEX (got %q)", idx)
		}
		fh, err := os.Open(absPath(env, f))
		if err != nil {
			return batch.Task{}, err
		}
		defer fh.Close()
		t, _, err := batch.TaskAt(fh, n)
		if err != nil {
			return batch.Task{}, fmt.Errorf("%s: %v", f, err)
		}
		return t, nil
	}
	if c.Args().Len() != 1 {
		return batch.Task{}, fmt.Errorf("want one TASK-JSON argument, - for stdin, or --tasks FILE")
	}
	line := []byte(c.Args().First())
	if c.Args().First() == "-" {
		b, err := io.ReadAll(env.Stdin)
		if err != nil {
			return batch.Task{}, err
		}
		line = b
	}
	t, err := batch.ParseTask(line)
	if err != nil {
		return batch.Task{}, fmt.Errorf("task: %v", err)
	}
	return t, nil
}
