package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/lease"
	"github.com/agentutils/agentutils/internal/proctree"
	sbflags "github.com/agentutils/agentutils/internal/sandbox/flags"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/batch"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
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
			&cli.BoolFlag{Name: "die-with-parent", Usage: "stop as SIGTERM does (result interrupted, exit 130) when the process that started it dies"},
			&cli.StringFlag{Name: "guard", Hidden: true, Usage: "run as the guard of the task whose processes carry `MARKER`"},
			&cli.StringFlag{Name: "guard-dir", Hidden: true, Usage: "the guard removes `DIR` when the runner dies"},
		}, sbflags.Flags()...),
		Action: func(c *cli.Context) error { return runTask(c, env) },
	}
}

// runTask is run-task's action (or, with the hidden --guard, the guard's).
func runTask(c *cli.Context, env *app.Env) error {
	if m := c.String("guard"); m != "" {
		return guard(env, m, c.String("guard-dir"))
	}
	ctx := c.Context
	if c.Bool("die-with-parent") {
		// SIGHUP when the parent dies, taken as an interrupt: not a
		// second SIGTERM, which would end the process before its
		// result is written (a remote shell and its runner get
		// parallel's TERM together).
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, syscall.SIGHUP)
		defer stop()
		if err := proctree.DieWithParent(syscall.SIGHUP); err != nil {
			return err
		}
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
	r := &taskRun{env: env, c: c, task: task, out: absPath(env, c.String("out")), sandbox: sb}
	// One run of a task at a time, on any host that shares OUT: a
	// second one would write over the first's result.
	host, _ := os.Hostname()
	l, err := lease.Take(lease.Path(r.out, task.ID), host)
	if err != nil {
		return exit.Errorf(exit.Failure, "task %s: %v", task.ID, err)
	}
	defer l.Close()
	return r.run(ctx)
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

type taskRun struct {
	env  *app.Env
	c    *cli.Context
	task batch.Task
	out  string
	log  *os.File
	wt   string // the clone
	// sandbox are agent-tool's --sandbox arguments (sbflags.PassArgs)
	sandbox []string

	// marker is in the environment of every process the run starts, so
	// that those which left its tree are found; guardIn's end, when the
	// runner dies without writing "done" to it, makes the guard kill them.
	marker  string
	guard   *exec.Cmd
	guardIn *os.File

	// what is known so far, for the result
	start       time.Time
	host        string
	state       batch.Run
	exits       batch.Exits
	sessionFile string
	diff        string
}

// bin finds an agentutils binary: beside this one, else on PATH.
func bin(name string) (string, bool) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, true
		}
	}
	p, err := exec.LookPath(name)
	return p, err == nil
}

func (r *taskRun) cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = r.wt
	cmd.Stderr = r.log
	cmd.Env = append(r.env.Environment(), r.marker)
	if self, err := os.Executable(); err == nil {
		cmd.Env = append(cmd.Env, "PATH="+filepath.Dir(self)+string(os.PathListSeparator)+r.env.Getenv("PATH"))
	}
	cmd.SysProcAttr = proctree.Attr() // its own group, killed if the runner dies
	return cmd
}

func (r *taskRun) git(args ...string) (string, error) {
	cmd := r.cmd("git", args...)
	if r.wt == "" {
		cmd.Dir = r.env.Dir
	}
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v", args[0], err)
	}
	return string(out), nil
}

func code(st *os.ProcessState, err error) int {
	if st == nil {
		if err != nil {
			return 1
		}
		return 0
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

func intp(n int) *int { return &n }

func (r *taskRun) run(ctx context.Context) error {
	r.start = r.env.Now()
	r.state.TurnsBudget, r.state.Check = r.task.Budgets.Turns, r.task.Check
	r.host, _ = os.Hostname()
	// Orphans below the run (a tool's `sleep 30 &`) are reparented to the
	// runner, not init, and killed with the rest at the end.
	proctree.Subreaper()
	r.marker = fmt.Sprintf("AGENTUTILS_TASK=%s.%d.%d", r.task.ID, os.Getpid(), r.start.UnixNano())
	for _, d := range []string{"sessions", "results", "logs"} {
		if err := os.MkdirAll(filepath.Join(r.out, d), 0o755); err != nil {
			return err
		}
	}
	var err error
	r.log, err = os.OpenFile(filepath.Join(r.out, "logs", r.task.ID+".log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer r.log.Close()
	tmp, base, err := r.clone()
	if tmp != "" && !r.c.Bool("keep") {
		defer os.RemoveAll(tmp)
	}
	defer r.reap() // before the clone is removed
	if err == nil {
		r.sessionFile, _, err = createSession(r.env, filepath.Join(r.out, "sessions", r.task.ID), r.wt, map[string]string{"title": r.task.ID}, nil, false)
	}
	if err != nil {
		r.state.SetupError = err.Error()
		return r.finish()
	}
	if ctx.Err() == nil {
		r.pipeline(ctx, tmp)
		// what the agent's tools left running does not run into the check
		proctree.KillTree(0, r.marker, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		r.state.Interrupted = true
	}
	if r.task.Check != "" && !r.state.Interrupted {
		r.check(ctx)
	}
	if _, err := r.git("add", "-A"); err == nil {
		r.diff, _ = r.git("diff", "--cached", base)
	}
	return r.finish()
}

// emit writes the result file (and with final, the stdout line) from what
// is known now.
func (r *taskRun) emit(final bool) error {
	res := batch.NewResult(r.task, r.state, float64(r.env.Now().Sub(r.start).Milliseconds())/1000)
	res.Started, res.Host, res.Session, res.Exit = session.FormatTime(r.start), r.host, r.sessionFile, r.exits
	res.SetDiff(r.diff)
	if final {
		log, _ := os.ReadFile(r.log.Name())
		res.WithCause(log)
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	if err := sessionstore.WriteFileAtomic(filepath.Join(r.out, "results", r.task.ID+".json"), append(b, '\n')); err != nil {
		return err
	}
	if final {
		_, err = fmt.Fprintf(r.c.App.Writer, "%s\n", b)
	}
	return err
}

func (r *taskRun) finish() error {
	if err := r.emit(true); err != nil {
		return err
	}
	if r.state.Interrupted {
		return exit.Silent(exit.Interrupted)
	}
	return nil
}

// clone makes a fresh clone of the task's repository at its ref in a new
// temporary directory (tmp, "" when none was made) and returns the commit.
func (r *taskRun) clone() (tmp, base string, err error) {
	root := r.c.String("work-dir")
	if root != "" {
		root = absPath(r.env, root)
	}
	if tmp, err = os.MkdirTemp(root, "agent-task-"+r.task.ID+"-"); err != nil {
		return "", "", err
	}
	if err := r.startGuard(tmp); err != nil {
		return tmp, "", err
	}
	src, args := r.task.Repo, []string{"clone", "--quiet"}
	if st, err := os.Stat(absPath(r.env, src)); err == nil && st.IsDir() {
		src = absPath(r.env, src)
		args = append(args, "--shared")
	}
	wt := filepath.Join(tmp, "repo")
	if _, err := r.git(append(args, "--", src, wt)...); err != nil {
		return tmp, "", err
	}
	r.wt = wt
	if r.task.Ref != "" {
		if _, err := r.git("checkout", "--quiet", "--detach", r.task.Ref); err != nil {
			return tmp, "", err
		}
	}
	base, err = r.git("rev-parse", "HEAD")
	return tmp, strings.TrimSpace(base), err
}

// check runs the task's check in the clone, killed after --check-timeout.
func (r *taskRun) check(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, r.c.Duration("check-timeout"))
	defer cancel()
	cmd := r.cmd("bash", "-c", r.task.Check)
	cmd.Stdout = r.log
	err := cmd.Start()
	if err == nil {
		done := make(chan struct{})
		go func() {
			select {
			case <-cctx.Done():
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			case <-done:
			}
		}()
		err = cmd.Wait()
		close(done)
	}
	r.state.CheckExit = code(cmd.ProcessState, err)
	r.exits.Check = intp(r.state.CheckExit)
	if ctx.Err() != nil {
		r.state.Interrupted = true
	}
}

// pipeline runs open | compact | chat | append --tee, tallies the events
// append echoes, and stops agent-chat when a budget runs out or ctx ends.
func (r *taskRun) pipeline(ctx context.Context, tmp string) {
	self, _ := bin("agent-session")
	chatBin, ok := bin("agent-chat")
	if !ok || self == "" {
		r.state.SetupError = "agent-chat or agent-session not found beside this binary or on PATH"
		return
	}
	tools, err := r.toolsScript(tmp)
	if err != nil {
		r.state.SetupError = err.Error()
		return
	}
	stages := []*exec.Cmd{r.cmd(self, "open", r.sessionFile)}
	if compact, ok := bin("agent-compact"); ok {
		stages = append(stages, r.cmd(compact))
	}
	chat := r.cmd(chatBin, chatArgs(r.task, tools)...)
	app := r.cmd(self, "append", r.sessionFile, "--tee")
	stages = append(stages, chat, app)
	tee, started, err := startStages(stages)
	if err != nil {
		r.state.SetupError = err.Error()
		return
	}
	r.watch(ctx, tee, chat, started)
	for _, s := range started {
		err := s.Wait()
		if s == chat {
			r.exits.Chat = intp(code(s.ProcessState, err))
			r.state.ChatExit = *r.exits.Chat
		}
		if s == app {
			r.exits.Append = intp(code(s.ProcessState, err))
		}
	}
}

// chatArgs are agent-chat's arguments for a task.
func chatArgs(t batch.Task, tools string) []string {
	args := []string{"--throttle", "0"}
	if t.Model != "" {
		args = append(args, "--model", t.Model)
	}
	if t.Thinking != "" {
		args = append(args, "--thinking", t.Thinking)
	}
	if t.Budgets.Turns > 0 {
		args = append(args, "--max-turns", strconv.Itoa(t.Budgets.Turns))
	}
	if tools != "" {
		args = append(args, "--tools-cmd", shq(tools))
	}
	return append(append(args, t.ChatArgs...), "--", t.Prompt)
}

// startStages pipes the stages one into the next and starts them; the
// last one's stdout is returned. When one cannot start, those started are
// killed and waited for.
func startStages(stages []*exec.Cmd) (io.Reader, []*exec.Cmd, error) {
	var closers []*os.File
	defer func() {
		for _, f := range closers {
			f.Close()
		}
	}()
	for i := 0; i+1 < len(stages); i++ {
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, nil, err
		}
		stages[i].Stdout, stages[i+1].Stdin = pw, pr
		closers = append(closers, pr, pw)
	}
	tee, err := stages[len(stages)-1].StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	var started []*exec.Cmd
	for _, s := range stages {
		if err := s.Start(); err != nil {
			killAll(started, syscall.SIGKILL)
			for _, s := range started {
				s.Wait()
			}
			return nil, nil, err
		}
		started = append(started, s)
	}
	return tee, started, nil
}

func killAll(cmds []*exec.Cmd, sig syscall.Signal) {
	for _, s := range cmds {
		syscall.Kill(-s.Process.Pid, sig)
	}
}

// watch tallies the events until the pipeline's output ends: a budget run
// out or ctx done sends agent-chat SIGTERM, and --grace later every stage
// is killed.
func (r *taskRun) watch(ctx context.Context, tee io.Reader, chat *exec.Cmd, started []*exec.Cmd) {
	lines := make(chan []byte)
	go func() {
		sc := bufio.NewScanner(tee)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
		io.Copy(io.Discard, tee)
		close(lines)
	}()
	var wall <-chan time.Time
	if s := r.task.Budgets.WallSeconds; s > 0 {
		tm := time.NewTimer(time.Duration(s * float64(time.Second)))
		defer tm.Stop()
		wall = tm.C
	}
	var killTimer <-chan time.Time
	stop := func() {
		if killTimer == nil {
			syscall.Kill(-chat.Process.Pid, syscall.SIGTERM)
			killTimer = time.After(r.c.Duration("grace"))
		}
	}
	done := ctx.Done()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return
			}
			if r.state.Tally.Add(l) && r.state.BudgetHit == "" {
				if b := r.task.Budgets.Exceeded(r.state.Tally, 0); b != "" {
					r.state.BudgetHit = b
					stop()
				}
			}
		case <-wall:
			if r.state.BudgetHit == "" {
				r.state.BudgetHit = "wall"
			}
			stop()
		case <-done:
			done = nil
			r.state.Interrupted = true
			stop()
			r.emit(false) // a second signal may end this process: the result is written now
		case <-killTimer:
			killAll(started, syscall.SIGKILL)
			proctree.KillTree(0, r.marker, syscall.SIGKILL)
		}
	}
}

// toolsScript writes the tool co-process command for the task's policy (a
// script, as agent-chat splits --tools-cmd values at commas).
func (r *taskRun) toolsScript(tmp string) (string, error) {
	tool, ok := bin("agent-tool")
	if !ok {
		return "", nil
	}
	args := []string{"exec", shq(tool), "serve", "--root", shq(r.wt)}
	if p := r.task.Tools; p != nil {
		if len(p.Allow) > 0 {
			args = append(args, "--allow", shq(strings.Join(p.Allow, ",")))
		}
		if len(p.Deny) > 0 {
			args = append(args, "--deny", shq(strings.Join(p.Deny, ",")))
		}
		if p.ReadOnly {
			args = append(args, "--read-only")
		}
		for _, b := range p.BashAllow {
			args = append(args, "--bash-allow", shq(b))
		}
		if p.EditMode != "" {
			args = append(args, "--edit-mode", shq(p.EditMode))
		}
	}
	for _, a := range r.sandbox {
		args = append(args, shq(a))
	}
	f := filepath.Join(tmp, "tools.sh")
	if err := os.WriteFile(f, []byte("#!/bin/sh\n"+strings.Join(args, " ")+"\n"), 0o755); err != nil {
		return "", err
	}
	return f, nil
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// startGuard starts this binary as the run's guard, in a process group of
// its own (a SIGKILL of the batch's group leaves it) and reading a pipe
// only the runner holds: when the runner dies, however, the guard kills
// every process that carries the run's marker and removes the clone
// (unless --keep).
func (r *taskRun) startGuard(tmp string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dir := tmp
	if r.c.Bool("keep") {
		dir = ""
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	g := exec.Command(self, "run-task", "--guard", r.marker, "--guard-dir", dir)
	g.Stdin, g.Stderr = pr, r.log
	g.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := g.Start(); err != nil {
		pw.Close()
		return err
	}
	r.guard, r.guardIn = g, pw
	return nil
}

// reap ends the run's processes: those still carrying its marker (below
// it or not) are killed, the guard is told the runner saw to it, and the
// orphans the runner inherited as a subreaper are waited for.
func (r *taskRun) reap() {
	proctree.KillTree(0, r.marker, syscall.SIGKILL)
	if r.guard != nil {
		io.WriteString(r.guardIn, "done")
		r.guardIn.Close()
		r.guard.Wait()
	}
	proctree.Reap()
}

// guard is run-task --guard: it waits for its stdin to end, and unless
// the runner wrote "done" first (it ended and cleaned up itself), kills
// every process that carries marker and removes dir.
func guard(env *app.Env, marker, dir string) error {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	b, _ := io.ReadAll(io.LimitReader(env.Stdin, 16))
	if string(b) == "done" {
		return nil
	}
	proctree.KillTree(0, marker, syscall.SIGKILL)
	if dir != "" {
		return os.RemoveAll(dir)
	}
	return nil
}
