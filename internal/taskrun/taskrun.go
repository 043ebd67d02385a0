// Package taskrun is agent-session run-task's engine: one task run headless
// in a fresh clone of its repository through the pipeline (agent-session
// open, agent-compact, agent-chat, agent-session append), its budgets
// watched on the event stream, its check command run, and its result
// line written; a guard process kills what the run left behind.
package taskrun

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
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

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/proctree"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/batch"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

// Runner is one run of a task; Run does it, the fields are its inputs.
type Runner struct {
	Env  *app.Env
	Task batch.Task
	// Out is the output directory (results/, sessions/, logs/, leases/).
	Out string
	// Sandbox are agent-tool's --sandbox arguments (sbflags.PassArgs).
	Sandbox []string
	// Keep keeps the clone; WorkDir is where clones are made ("": the
	// temporary directory).
	Keep    bool
	WorkDir string
	// CheckTimeout bounds the check command; Grace is how long the
	// processes get between SIGTERM and SIGKILL.
	CheckTimeout, Grace time.Duration
	// Stdout gets the result line.
	Stdout io.Writer
	// NewSession creates an empty session file titled title for cwd in dir.
	NewSession func(dir, cwd, title string) (file string, err error)

	log *os.File
	wt  string // the clone

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

func (r *Runner) cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = r.wt
	cmd.Stderr = r.log
	cmd.Env = append(r.Env.Environment(), r.marker)
	if self, err := os.Executable(); err == nil {
		cmd.Env = append(cmd.Env, "PATH="+filepath.Dir(self)+string(os.PathListSeparator)+r.Env.Getenv("PATH"))
	}
	cmd.SysProcAttr = proctree.Attr() // its own group, killed if the runner dies
	return cmd
}

func (r *Runner) git(args ...string) (string, error) {
	cmd := r.cmd("git", args...)
	if r.wt == "" {
		cmd.Dir = r.Env.Dir
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

func (r *Runner) Run(ctx context.Context) error {
	r.start = r.Env.Now()
	r.state.TurnsBudget, r.state.Check = r.Task.Budgets.Turns, r.Task.Check
	r.host, _ = os.Hostname()
	// Orphans below the run (a tool's `sleep 30 &`) are reparented to the
	// runner, not init, and killed with the rest at the end.
	proctree.Subreaper()
	r.marker = fmt.Sprintf("AGENTUTILS_TASK=%s.%d.%d", r.Task.ID, os.Getpid(), r.start.UnixNano())
	for _, d := range []string{"sessions", "results", "logs"} {
		if err := os.MkdirAll(filepath.Join(r.Out, d), 0o755); err != nil {
			return err
		}
	}
	var err error
	r.log, err = os.OpenFile(filepath.Join(r.Out, "logs", r.Task.ID+".log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer r.log.Close()
	tmp, base, err := r.clone()
	if tmp != "" && !r.Keep {
		defer os.RemoveAll(tmp)
	}
	defer r.reap() // before the clone is removed
	if err == nil {
		r.sessionFile, err = r.NewSession(filepath.Join(r.Out, "sessions", r.Task.ID), r.wt, r.Task.ID)
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
	if r.Task.Check != "" && !r.state.Interrupted {
		r.check(ctx)
	}
	if _, err := r.git("add", "-A"); err == nil {
		r.diff, _ = r.git("diff", "--cached", base)
	}
	return r.finish()
}

// emit writes the result file (and with final, the stdout line) from what
// is known now.
func (r *Runner) emit(final bool) error {
	res := batch.NewResult(r.Task, r.state, float64(r.Env.Now().Sub(r.start).Milliseconds())/1000)
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
	if err := sessionstore.WriteFileAtomic(filepath.Join(r.Out, "results", r.Task.ID+".json"), append(b, '\n')); err != nil {
		return err
	}
	if final {
		_, err = fmt.Fprintf(r.Stdout, "%s\n", b)
		if errors.Is(err, syscall.EPIPE) && r.state.Interrupted {
			err = nil // stdout's reader went (run-task --die-with-parent): the file holds the result
		}
	}
	return err
}

func (r *Runner) finish() error {
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
func (r *Runner) clone() (tmp, base string, err error) {
	root := r.WorkDir
	if root != "" {
		root = r.abs(root)
	}
	if tmp, err = os.MkdirTemp(root, "agent-task-"+r.Task.ID+"-"); err != nil {
		return "", "", err
	}
	if err := r.startGuard(tmp); err != nil {
		return tmp, "", err
	}
	src, args := r.Task.Repo, []string{"clone", "--quiet"}
	if st, err := os.Stat(r.abs(src)); err == nil && st.IsDir() {
		src = r.abs(src)
		args = append(args, "--shared")
	}
	wt := filepath.Join(tmp, "repo")
	if _, err := r.git(append(args, "--", src, wt)...); err != nil {
		return tmp, "", err
	}
	r.wt = wt
	if r.Task.Ref != "" {
		if _, err := r.git("checkout", "--quiet", "--detach", r.Task.Ref); err != nil {
			return tmp, "", err
		}
	}
	base, err = r.git("rev-parse", "HEAD")
	return tmp, strings.TrimSpace(base), err
}

// check runs the task's check in the clone, killed after --check-timeout.
func (r *Runner) check(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, r.CheckTimeout)
	defer cancel()
	cmd := r.cmd("bash", "-c", r.Task.Check)
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
func (r *Runner) pipeline(ctx context.Context, tmp string) {
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
	chat := r.cmd(chatBin, chatArgs(r.Task, tools)...)
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
func (r *Runner) watch(ctx context.Context, tee io.Reader, chat *exec.Cmd, started []*exec.Cmd) {
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
	if s := r.Task.Budgets.WallSeconds; s > 0 {
		tm := time.NewTimer(time.Duration(s * float64(time.Second)))
		defer tm.Stop()
		wall = tm.C
	}
	var killTimer <-chan time.Time
	stop := func() {
		if killTimer == nil {
			syscall.Kill(-chat.Process.Pid, syscall.SIGTERM)
			killTimer = time.After(r.Grace)
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
				if b := r.Task.Budgets.Exceeded(r.state.Tally, 0); b != "" {
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
func (r *Runner) toolsScript(tmp string) (string, error) {
	tool, ok := bin("agent-tool")
	if !ok {
		return "", nil
	}
	args := []string{"exec", shq(tool), "serve", "--root", shq(r.wt)}
	if p := r.Task.Tools; p != nil {
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
	for _, a := range r.Sandbox {
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
func (r *Runner) startGuard(tmp string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dir := tmp
	if r.Keep {
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
func (r *Runner) reap() {
	proctree.KillTree(0, r.marker, syscall.SIGKILL)
	if r.guard != nil {
		io.WriteString(r.guardIn, "done")
		r.guardIn.Close()
		r.guard.Wait()
	}
	proctree.Reap()
}

// Guard is run-task --guard: it waits for its stdin to end, and unless
// the runner wrote "done" first (it ended and cleaned up itself), kills
// every process that carries marker and removes dir.
func Guard(env *app.Env, marker, dir string) error {
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

// abs is p relative to the runner's directory.
func (r *Runner) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(r.Env.Dir, p)
}
