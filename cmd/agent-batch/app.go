package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/batchrun"
	"github.com/agentutils/agentutils/lib/batch"
	"github.com/agentutils/agentutils/lib/exit"
)

func newApp(env *app.Env) *cli.App {
	return &cli.App{
		Name:      "agent-batch",
		Usage:     "run every task of a tasks file headless, in parallel, and gather the results",
		ArgsUsage: "TASKS.jsonl [-- RUN-TASK-FLAGS...]",
		Description: `Runs each line of TASKS.jsonl (formats/task; - for stdin, a pipe or a FIFO: it is read once)
with 'agent-session run-task --out OUT LINE': under GNU parallel when it is installed (--jobs at
a time, on other hosts too with --sshlogin, a joblog in OUT/joblog), else on its own workers.
Sessions are in OUT/sessions/<id>/, results in OUT/results/<id>.json, gathered by id into
OUT/results.jsonl, the processes' stderr in OUT/logs/<id>.log, each task's trajectory (its
session's HTML export) in OUT/trajectories/<id>.html, linked from OUT/report.html.

A line that is not a task (not JSON, not UTF-8, a missing field, an id an earlier line has) gets
a result of its own, outcome error, the reason naming the line. A re-run resumes: it never runs a
task that has a result (but with --retry-failed those whose runner was interrupted), nor one whose earlier run is still alive (it holds the task's lease, OUT/leases/<id>.lock,
on any host). A run that ends on a transient provider error (429, 5xx, a network error) is run
again, up to --retries times, after --retry-wait doubled each time. --max-cost stops starting
tasks when the runs in OUT have cost that much (every run counts, retried or killed ones too:
their sessions are read). Every process a task starts dies with it; ^C stops the tasks, those
over ssh too, and removes their clones; a task whose runner did not write its result then (killed,
or on a host gone) gets one from agent-batch, reason interrupted, once its lease is free or 20 s
have passed.

It prints a summary by outcome and model on stdout.

Exit status: 0 when every selected task has a result; 1 when some have none; 130 when
interrupted; 2 for bad usage or a tasks file that cannot be read (a directory, a line over 16 MiB).

Examples:
   agent-batch -j 4 -o out tasks.jsonl
   agent-batch -j 4 -o out tasks.jsonl           # again: only what is missing runs
   agent-batch --filter '^django-' --slice 0:10 -o out tasks.jsonl
   agent-batch --max-cost 20 --retries 3 -o out tasks.jsonl
   agent-batch -S 2/:,2/build@host2 -o /shared/out tasks.jsonl
   agent-session stats out/results.jsonl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "agent-batch", Usage: "output `DIR`"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "`N` tasks at a time (default: the number of cores)"},
			&cli.StringFlag{Name: "timeout", Aliases: []string{"t"}, Usage: "stop a task after `SECS`: its runner (run-task --timeout) ends the pipeline and writes its result, reason interrupted, on any host; it is killed if still there 60 s later"},
			&cli.BoolFlag{Name: "retry-failed", Usage: "also run the tasks whose runner was interrupted (their result says so)"},
			&cli.StringFlag{Name: "sshlogin", Aliases: []string{"S"}, Usage: "run on these hosts too (GNU parallel --sshlogin `LOGINS`; ':' is this machine); OUT must be a directory every host sees at the same path, the binaries on each host's PATH"},
			&cli.StringFlag{Name: "filter", Usage: "run only the tasks whose id matches `REGEXP`"},
			&cli.StringFlag{Name: "slice", Usage: "run only `START:END` of the (filtered) tasks, from 0, as Python slices"},
			&cli.Float64Flag{Name: "max-cost", Usage: "start no task once the runs in OUT cost `DOLLARS`"},
			&cli.IntFlag{Name: "retries", Value: 2, Usage: "run a task up to `N` more times after a transient provider error"},
			&cli.DurationFlag{Name: "retry-wait", Value: 30 * time.Second, Usage: "wait `DURATION` before the first retry, doubled for each next one (at most 5m)"},
			&cli.BoolFlag{Name: "no-parallel", Usage: "use the own workers even when GNU parallel is installed"},
			&cli.StringFlag{Name: "image", Usage: "run each task in a container of `IMAGE` (podman or docker, when one answers; the image holds agent-session, as deploy/Dockerfile's does)"},
		},
		Action: func(c *cli.Context) error { return batchAction(c, env) },
	}
}

func batchAction(c *cli.Context, env *app.Env) error {
	o, closeInput, err := optionsOf(c, env)
	if err != nil {
		return err
	}
	defer closeInput()
	s, err := batchrun.Run(c.Context, o)
	if err != nil {
		return err
	}
	if s.Results > 0 {
		if err := batchrun.Report(o); err != nil {
			app.Warnf(c, "report: %v", err)
		}
	}
	if err := summary(c, o, s); err != nil {
		return err
	}
	if s.Results < s.Selected {
		return exit.Silent(exit.Failure)
	}
	if c.Context.Err() != nil {
		return exit.Silent(exit.Interrupted) // every task has a result, some say interrupted
	}
	return nil
}

// optionsOf checks the flags and opens the tasks file.
func optionsOf(c *cli.Context, env *app.Env) (batchrun.Options, func(), error) {
	o := batchrun.Options{Jobs: c.Int("jobs"), RetryFailed: c.Bool("retry-failed"), SSHLogin: c.String("sshlogin"),
		MaxCost: c.Float64("max-cost"), Retries: c.Int("retries"), RetryWait: c.Duration("retry-wait"),
		Cores: runtime.NumCPU(), Environ: env.Environment(), Log: env.Stderr}
	nothing := func() {}
	args := c.Args().Slice()
	if len(args) == 0 {
		return o, nothing, exit.Errorf(exit.Usage, "no TASKS file (see --help)")
	}
	o.Tasks, o.Extra = args[0], args[1:]
	if len(o.Extra) > 0 && o.Extra[0] == "--" {
		o.Extra = o.Extra[1:]
	} else if len(o.Extra) > 0 && !strings.HasPrefix(o.Extra[0], "-") {
		return o, nothing, exit.Errorf(exit.Usage, "one TASKS file, please (run-task's flags go after --)")
	}
	if err := checkNumbers(c, &o); err != nil {
		return o, nothing, err
	}
	if f := c.String("filter"); f != "" {
		re, err := regexp.Compile(f)
		if err != nil {
			return o, nothing, exit.Errorf(exit.Usage, "--filter: %v", err)
		}
		o.Filter = re
	}
	if c.IsSet("slice") {
		sl, err := batch.ParseSlice(c.String("slice"))
		if err != nil {
			return o, nothing, exit.Errorf(exit.Usage, "--slice: %v", err)
		}
		o.Slice = &sl
	}
	self, err := os.Executable()
	if err != nil {
		return o, nothing, err
	}
	o.Bin = filepath.Dir(self)
	if _, err := os.Stat(filepath.Join(o.Bin, "agent-session")); err != nil {
		return o, nothing, exit.Errorf(exit.Usage, "agent-session is not beside agent-batch in %s (make build)", o.Bin)
	}
	if p, err := exec.LookPath("parallel"); err == nil && !c.Bool("no-parallel") {
		o.Parallel = p
	} else if o.SSHLogin != "" {
		return o, nothing, exit.Errorf(exit.Usage, "--sshlogin needs GNU parallel (apt-get install parallel)")
	}
	if img := c.String("image"); img != "" {
		engine, err := batchrun.ContainerEngine(c.Context, o.Environ)
		if err != nil {
			return o, nothing, exit.Errorf(exit.Usage, "--image %s: %v", img, err)
		}
		o.Engine, o.Image = engine, img
	}
	o.Dir = env.Dir
	o.Out = c.String("out")
	if !filepath.IsAbs(o.Out) {
		o.Out = filepath.Join(env.Dir, o.Out)
	}
	return openTasks(env, o)
}

// checkNumbers checks -t, --max-cost, --retries and --retry-wait.
func checkNumbers(c *cli.Context, o *batchrun.Options) error {
	if c.IsSet("timeout") {
		t := c.String("timeout")
		n, err := strconv.Atoi(t)
		if err != nil || n <= 0 || strings.HasPrefix(t, "+") {
			return exit.Errorf(exit.Usage, "--timeout %s: want a whole number of seconds above 0", t)
		}
		o.Timeout = n
	}
	switch {
	case o.Jobs < 0:
		return exit.Errorf(exit.Usage, "--jobs %d: want 1 or more", o.Jobs)
	case o.MaxCost < 0:
		return exit.Errorf(exit.Usage, "--max-cost %g: want dollars, 0 or more", o.MaxCost)
	case o.Retries < 0:
		return exit.Errorf(exit.Usage, "--retries %d: want 0 or more", o.Retries)
	case o.RetryWait < 0:
		return exit.Errorf(exit.Usage, "--retry-wait %v: want 0 or more", o.RetryWait)
	}
	return nil
}

// openTasks opens the tasks file: stdin for -, a file, a pipe or a FIFO;
// a directory is bad usage.
func openTasks(env *app.Env, o batchrun.Options) (batchrun.Options, func(), error) {
	if o.Tasks == "-" {
		o.Input = env.Stdin
		return o, func() {}, nil
	}
	path := o.Tasks
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return o, nil, exit.Wrap(exit.Usage, err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return o, nil, exit.Errorf(exit.Usage, "%s: is a directory, not a tasks file", o.Tasks)
	}
	o.Input = f
	return o, func() { f.Close() }, nil
}

// summary prints the results by model and outcome on stdout, what was not
// run on stderr, and the count of results.
func summary(c *cli.Context, o batchrun.Options, s batchrun.Summary) error {
	w := c.App.Writer
	if s.Report.Total.Runs > 0 {
		if err := batch.WriteTable(w, s.Report, false); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\nruns started %d (retries after a transient provider error: %d); spent $%.4f over every run in %s\n", s.Ran, s.Retried, s.Spent, o.Out)
	if s.BadLines > 0 {
		fmt.Fprintf(w, "lines that are not tasks: %d (outcome error)\n", s.BadLines)
	}
	if len(s.Running) > 0 {
		fmt.Fprintf(w, "not started, running elsewhere: %s\n", strings.Join(s.Running, " "))
	}
	if len(s.NotRun) > 0 {
		fmt.Fprintf(w, "not started, the cost cap ($%g) reached: %s\n", o.MaxCost, strings.Join(s.NotRun, " "))
	}
	if s.Results > 0 {
		fmt.Fprintf(w, "report: %s\n", filepath.Join(o.Out, "report.html"))
	}
	app.Warnf(c, "%d of %d tasks have a result in %s", s.Results, s.Selected, filepath.Join(o.Out, "results.jsonl"))
	return nil
}
