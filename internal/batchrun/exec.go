package batchrun

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/proctree"
	"github.com/agentutils/agentutils/lib/batch"
)

// exec runs one round's tasks, under GNU parallel or the own workers,
// handing each result line to onResult as its task ends.
func (b *run) exec(ctx context.Context, todo []batch.Line) error {
	if b.o.Parallel != "" {
		return b.parallel(ctx, todo)
	}
	return b.pool(ctx, todo)
}

// command is what runs run-task: agent-session, or (--image) a container
// of the image whose entry point is agent-session.
func (b *run) command() []string {
	if b.o.Engine != "" {
		return append([]string{b.o.Engine}, b.containerArgs()...)
	}
	return []string{"agent-session"}
}

// runTaskArgs are run-task's arguments but the task.
func (b *run) runTaskArgs() []string {
	args := []string{"run-task", "--out", b.o.Out, "--die-with-parent"}
	if b.o.Timeout > 0 {
		// The runner keeps its own deadline: a job killed by parallel on a
		// host reached over ssh may get SIGKILL at once there and write no
		// result; parallel's own timeout is the backstop.
		args = append(args, "--timeout", strconv.Itoa(b.o.Timeout)+"s")
	}
	return append(args, b.o.Extra...)
}

// childEnv is this process's environment with the binaries' directory
// first on PATH, so that parallel (and the hosts it exports PATH to) finds
// agent-session.
func (b *run) childEnv() []string { return app.PathFirst(b.o.Environ, b.o.Bin) }

// parallel runs the tasks as GNU parallel's jobs, their lines on its
// stdin, reading the result lines it relays. ^C reaches parallel too (it
// is in this process group): it stops its jobs with --termseq, those over
// ssh as well (its remote wrapper sees sshd go). A cost cap sends it
// SIGHUP (no new jobs); this process ending sends it SIGINT.
func (b *run) parallel(ctx context.Context, todo []batch.Line) error {
	args := []string{"--joblog", "+" + filepath.Join(b.o.Out, "joblog"), "--termseq", "TERM,15000,KILL,25", "--will-cite"}
	if b.o.Jobs > 0 {
		args = append(args, "--jobs", strconv.Itoa(b.o.Jobs))
	}
	if b.o.Timeout > 0 {
		args = append(args, "--timeout", strconv.Itoa(b.o.Timeout+60))
	}
	if b.o.SSHLogin != "" {
		// Remote hosts get this PATH and AGENTUTILS_HOME and run in this directory's path.
		args = append(args, "--sshlogin", b.o.SSHLogin, "--wd", ".", "--env", "PATH", "--env", "AGENTUTILS_HOME")
	}
	// exec: the job's shell becomes the runner. On a host reached over
	// ssh, parallel's wrapper sends --termseq to the job's process group
	// when sshd goes, and the end of a child cuts its wait between TERM
	// and KILL short: with a shell in the group, the shell dies of the
	// TERM at once and the runner got the KILL before it wrote its result.
	args = append(append(append(append(args, "exec"), b.command()...), b.runTaskArgs()...), "{}")
	var in bytes.Buffer
	for _, l := range todo {
		in.Write(bytes.TrimSpace(l.Raw))
		in.WriteByte('\n')
	}
	cmd := exec.Command(b.o.Parallel, args...)
	cmd.Stdin, cmd.Stderr, cmd.Env = &in, b.o.Log, b.childEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGINT}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("GNU parallel: %v", err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGINT)
		case <-done:
		}
	}()
	stop := func() { cmd.Process.Signal(syscall.SIGHUP) }
	b.read(out, stop)
	err = cmd.Wait()
	close(done)
	if err != nil && ctx.Err() == nil {
		// parallel exits with the number of failed jobs: their results say why
		fmt.Fprintf(b.o.Log, "agent-batch: GNU parallel: %v\n", err)
	}
	return nil
}

// read hands every line of r to onResult.
func (b *run) read(r io.Reader, stop func()) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 2*batch.MaxDiff+(1<<20))
	for sc.Scan() {
		b.onResult(sc.Bytes(), stop)
	}
	io.Copy(io.Discard, r)
}

// pool runs the tasks on its own workers: Jobs (default: the cores) at a
// time, each run-task in a process group of its own that dies with this
// process (the parent-death signal); ctx's end sends them SIGTERM (they
// write their result, reason interrupted) and waits for them.
func (b *run) pool(ctx context.Context, todo []batch.Line) error {
	n := b.o.Jobs
	if n <= 0 {
		n = b.o.Cores
	}
	queue := make(chan batch.Line)
	var stopped bool
	var mu sync.Mutex // onResult, stopped
	stop := func() { stopped = true }
	var wg sync.WaitGroup
	for range min(n, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for l := range queue {
				out := b.runOne(ctx, l)
				mu.Lock()
				for _, line := range bytes.Split(out, []byte{'\n'}) {
					b.onResult(line, stop)
				}
				mu.Unlock()
			}
		}()
	}
	for _, l := range todo {
		mu.Lock()
		s := stopped
		mu.Unlock()
		if s || ctx.Err() != nil {
			break
		}
		select {
		case queue <- l:
		case <-ctx.Done():
		}
	}
	close(queue)
	wg.Wait()
	return nil
}

// runOne runs one task's run-task and returns its stdout.
func (b *run) runOne(ctx context.Context, l batch.Line) []byte {
	if ctx.Err() != nil {
		return nil
	}
	command := b.command()
	if b.o.Engine == "" {
		command[0] = filepath.Join(b.o.Bin, "agent-session")
	}
	args := append(append(command[1:], b.runTaskArgs()...), string(bytes.TrimSpace(l.Raw)))
	cmd := exec.Command(command[0], args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Env = &out, b.o.Log, b.childEnv()
	cmd.SysProcAttr = proctree.Attr()
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(b.o.Log, "agent-batch: %s: %v\n", l.ID, err)
		return nil
	}
	done := make(chan struct{})
	go func() {
		var backstop <-chan time.Time
		if b.o.Timeout > 0 {
			t := time.NewTimer(time.Duration(b.o.Timeout+60) * time.Second)
			defer t.Stop()
			backstop = t.C
		}
		select {
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGTERM)
		case <-backstop:
			cmd.Process.Signal(syscall.SIGKILL) // its guard removes what it left
		case <-done:
		}
	}()
	cmd.Wait()
	close(done)
	return out.Bytes()
}
