package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
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
the pipeline has ended.

Exit status: 0 when a result was written (whatever the outcome), 130 when interrupted (the
result is written), 2 for a bad task line or flags (no result), 1 when no result could be written.

Examples:
   agent-session run-task --out out '{"id":"t1","repo":".","prompt":"fix the test","check":"go test ./..."}'
   agent-session run-task --out out --tasks tasks.jsonl --index 3
   mkdir -p out && grep -v '^[[:space:]]*$' tasks.jsonl |
     parallel --jobs 4 --joblog out/joblog --resume agent-session run-task --out out {}`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Value: "agent-batch", Usage: "`DIR` for sessions/, results/ and logs/"},
			&cli.StringFlag{Name: "tasks", Usage: "read the task from line --index of tasks `FILE`"},
			&cli.StringFlag{Name: "index", Usage: "`N`th task (from 0, blank lines skipped) of --tasks (default $JOB_COMPLETION_INDEX)"},
			&cli.StringFlag{Name: "work-dir", Usage: "clone into a new directory under `DIR` (default: the temporary directory)"},
			&cli.BoolFlag{Name: "keep", Usage: "keep the clone after the run"},
			&cli.DurationFlag{Name: "check-timeout", Value: 10 * time.Minute, Usage: "kill the check after `DURATION`"},
			&cli.DurationFlag{Name: "grace", Value: 5 * time.Second, Usage: "after SIGTERM, wait `DURATION` for the pipeline before killing it"},
		},
		Action: func(c *cli.Context) error {
			task, err := readTask(c, env)
			if err != nil {
				return &exit.Error{Code: exit.Usage, Err: err}
			}
			r := &taskRun{env: env, c: c, task: task, out: absPath(env, c.String("out"))}
			return r.run(c.Context)
		},
	}
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
	if self, err := os.Executable(); err == nil {
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(self)+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
	start := r.env.Now()
	t := r.task
	for _, d := range []string{"sessions", "results", "logs"} {
		if err := os.MkdirAll(filepath.Join(r.out, d), 0o755); err != nil {
			return err
		}
	}
	var err error
	r.log, err = os.OpenFile(filepath.Join(r.out, "logs", t.ID+".log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer r.log.Close()
	var run batch.Run
	run.TurnsBudget, run.Check = t.Budgets.Turns, t.Check
	host, _ := os.Hostname()
	var exits batch.Exits
	var sessionFile, diff string
	// emit writes the result file (and with final, the stdout line) from
	// what is known now.
	emit := func(final bool) error {
		res := batch.NewResult(t, run, float64(r.env.Now().Sub(start).Milliseconds())/1000)
		res.Started, res.Host, res.Session, res.Exit = session.FormatTime(start), host, sessionFile, exits
		res.SetDiff(diff)
		if final {
			log, _ := os.ReadFile(r.log.Name())
			res.WithCause(log)
		}
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(r.out, "results", t.ID+".json"), append(b, '\n')); err != nil {
			return err
		}
		if final {
			_, err = fmt.Fprintf(r.c.App.Writer, "%s\n", b)
		}
		return err
	}
	finish := func() error {
		if err := emit(true); err != nil {
			return err
		}
		if run.Interrupted {
			return exit.Silent(exit.Interrupted)
		}
		return nil
	}

	// A fresh clone at the ref.
	root := r.c.String("work-dir")
	if root != "" {
		root = absPath(r.env, root)
	}
	tmp, err := os.MkdirTemp(root, "agent-task-"+t.ID+"-")
	if err != nil {
		run.SetupError = err.Error()
		return finish()
	}
	if !r.c.Bool("keep") {
		defer os.RemoveAll(tmp)
	}
	src, args := t.Repo, []string{"clone", "--quiet"}
	if st, err := os.Stat(absPath(r.env, src)); err == nil && st.IsDir() {
		src = absPath(r.env, src)
		args = append(args, "--shared")
	}
	wt := filepath.Join(tmp, "repo")
	if _, err := r.git(append(args, "--", src, wt)...); err != nil {
		run.SetupError = err.Error()
		return finish()
	}
	r.wt = wt
	if t.Ref != "" {
		if _, err := r.git("checkout", "--quiet", "--detach", t.Ref); err != nil {
			run.SetupError = err.Error()
			return finish()
		}
	}
	base, err := r.git("rev-parse", "HEAD")
	if err != nil {
		run.SetupError = err.Error()
		return finish()
	}
	base = strings.TrimSpace(base)

	sessionFile, _, err = createSession(r.env, filepath.Join(r.out, "sessions", t.ID), wt, map[string]string{"title": t.ID}, nil, false)
	if err != nil {
		run.SetupError = err.Error()
		return finish()
	}
	if ctx.Err() == nil {
		r.pipeline(ctx, start, &run, &exits, sessionFile, tmp, emit)
	} else {
		run.Interrupted = true
	}
	if ctx.Err() != nil {
		run.Interrupted = true
	}
	if t.Check != "" && !run.Interrupted {
		cctx, cancel := context.WithTimeout(ctx, r.c.Duration("check-timeout"))
		cmd := r.cmd("bash", "-c", t.Check)
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
		cancel()
		run.CheckExit = code(cmd.ProcessState, err)
		exits.Check = intp(run.CheckExit)
		if ctx.Err() != nil {
			run.Interrupted = true
		}
	}
	if _, err := r.git("add", "-A"); err == nil {
		diff, _ = r.git("diff", "--cached", base)
	}
	return finish()
}

// pipeline runs open | compact | chat | append --tee, tallies the events
// append echoes, and stops agent-chat when a budget runs out or ctx ends.
func (r *taskRun) pipeline(ctx context.Context, start time.Time, run *batch.Run, exits *batch.Exits, sess, tmp string, emit func(bool) error) {
	t := r.task
	self, _ := bin("agent-session")
	chatBin, ok := bin("agent-chat")
	if !ok || self == "" {
		run.SetupError = "agent-chat or agent-session not found beside this binary or on PATH"
		return
	}
	tools, err := r.toolsScript(tmp)
	if err != nil {
		run.SetupError = err.Error()
		return
	}
	chatArgs := []string{"--throttle", "0"}
	if t.Model != "" {
		chatArgs = append(chatArgs, "--model", t.Model)
	}
	if t.Thinking != "" {
		chatArgs = append(chatArgs, "--thinking", t.Thinking)
	}
	if t.Budgets.Turns > 0 {
		chatArgs = append(chatArgs, "--max-turns", strconv.Itoa(t.Budgets.Turns))
	}
	if tools != "" {
		chatArgs = append(chatArgs, "--tools-cmd", shq(tools))
	}
	chatArgs = append(append(chatArgs, t.ChatArgs...), "--", t.Prompt)

	stages := []*exec.Cmd{r.cmd(self, "open", sess)}
	if compact, ok := bin("agent-compact"); ok {
		stages = append(stages, r.cmd(compact))
	}
	chat := r.cmd(chatBin, chatArgs...)
	app := r.cmd(self, "append", sess, "--tee")
	stages = append(stages, chat, app)
	var closers []*os.File
	for i := 0; i+1 < len(stages); i++ {
		pr, pw, err := os.Pipe()
		if err != nil {
			run.SetupError = err.Error()
			return
		}
		stages[i].Stdout, stages[i+1].Stdin = pw, pr
		closers = append(closers, pr, pw)
	}
	tee, err := app.StdoutPipe()
	if err != nil {
		run.SetupError = err.Error()
		return
	}
	var started []*exec.Cmd
	killAll := func(sig syscall.Signal) {
		for _, s := range started {
			syscall.Kill(-s.Process.Pid, sig)
		}
	}
	for _, s := range stages {
		if err := s.Start(); err != nil {
			killAll(syscall.SIGKILL)
			run.SetupError = err.Error()
			break
		}
		started = append(started, s)
	}
	for _, f := range closers {
		f.Close()
	}
	if run.SetupError != "" {
		for _, s := range started {
			s.Wait()
		}
		return
	}

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
	if s := t.Budgets.WallSeconds; s > 0 {
		tm := time.NewTimer(time.Duration(s * float64(time.Second)))
		defer tm.Stop()
		wall = tm.C
	}
	var killTimer <-chan time.Time
	stopping := false
	stop := func() {
		if stopping {
			return
		}
		stopping = true
		syscall.Kill(-chat.Process.Pid, syscall.SIGTERM)
		killTimer = time.After(r.c.Duration("grace"))
	}
	done := ctx.Done()
loop:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				break loop
			}
			if run.Tally.Add(l) && run.BudgetHit == "" {
				if b := t.Budgets.Exceeded(run.Tally, 0); b != "" {
					run.BudgetHit = b
					stop()
				}
			}
		case <-wall:
			if run.BudgetHit == "" {
				run.BudgetHit = "wall"
			}
			stop()
		case <-done:
			done = nil
			run.Interrupted = true
			stop()
			emit(false) // a second signal may end this process: the result is written now
		case <-killTimer:
			killAll(syscall.SIGKILL)
		}
	}
	for _, s := range started {
		err := s.Wait()
		if s == chat {
			exits.Chat = intp(code(s.ProcessState, err))
			run.ChatExit = *exits.Chat
		}
		if s == app {
			exits.Append = intp(code(s.ProcessState, err))
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
	f := filepath.Join(tmp, "tools.sh")
	if err := os.WriteFile(f, []byte("#!/bin/sh\n"+strings.Join(args, " ")+"\n"), 0o755); err != nil {
		return "", err
	}
	return f, nil
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
