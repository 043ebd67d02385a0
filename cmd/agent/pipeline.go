package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/shell"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/event"
)

// stages are the processes of a run, each replaceable by a flag:
//
//	SESSION open S | COMPACT | CHAT … | tee >(SESSION append S)
//
// The front-end reads agent-chat's events and passes every byte of them
// on to agent-session append, which persists them; it never writes the
// session itself. Reading them from agent-chat, not from append --tee,
// keeps append (a process to wake, an fsync) off the way to the screen;
// a run ends when append has persisted all of it.
type stages struct {
	session  []string // agent-session
	compact  []string // agent-compact; nil skips the stage
	chat     []string // agent-chat
	tools    []string // agent-chat --tools-cmd values
	chatArgs []string // more agent-chat flags
	dir      string
	env      []string
	tty      *os.File // given as stdin to commands that name this terminal (continue, fork, resume)
}

// words splits a command line as the shell does (quotes, no expansion of
// anything but $VAR).
func words(s string) ([]string, error) {
	w, err := shell.Fields(s, os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("%q: %v", s, err)
	}
	if len(w) == 0 {
		return nil, fmt.Errorf("an empty command")
	}
	return w, nil
}

func (s *stages) cmd(ctx context.Context, argv []string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, argv[0], append(append([]string(nil), argv[1:]...), args...)...)
	c.Dir, c.Env = s.dir, s.env
	c.Cancel = func() error { return c.Process.Signal(syscall.SIGTERM) }
	return c
}

// sessionOut runs an agent-session subcommand and returns its stdout; a
// failure returns its stderr as the error.
func (s *stages) sessionOut(ctx context.Context, args ...string) ([]byte, error) {
	c := s.cmd(ctx, s.session, args...)
	if s.tty != nil {
		c.Stdin = s.tty
	}
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return out.Bytes(), errors.New(app.FailText(err, errb.Bytes()))
	}
	return out.Bytes(), nil
}

// runOpts is one run's choices.
type runOpts struct {
	prompt   string   // --message; "" with cont
	files    []string // @path arguments (agent-chat reads and attaches them)
	cont     bool     // --continue (after a compaction)
	force    bool     // agent-compact --force
	model    string
	thinking string
	extra    []string // more agent-chat flags of this front-end (--tools-cmd for approvals)
	// ahead: started before its prompt is known; agent-chat reads it
	// from stdin after the context (its "-" argument), which the front-end
	// passes on from the stages before it, then ends with context_end.
	ahead bool
}

// run is one pipeline in flight.
type run struct {
	procs  []*exec.Cmd
	chat   *exec.Cmd
	events *relay // agent-chat's events, passed on to append as read
	stderr *lineWriter
	done   chan struct{}
	mu     sync.Mutex
	abort  bool
	prompt io.WriteCloser // agent-chat's stdin, for a run started ahead
	fed    chan error     // the context has been passed on to it
}

// lineWriter hands each complete line written to it to fn; without fn
// (a run started ahead of its prompt) it keeps the lines until to.
type lineWriter struct {
	mu   sync.Mutex
	buf  []byte
	held []string
	fn   func(string)
}

func (w *lineWriter) line(s string) {
	if w.fn == nil {
		w.held = append(w.held, s)
		return
	}
	w.fn(s)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.line(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}

// to returns the kept lines and hands the lines to come to fn.
func (w *lineWriter) to(fn func(string)) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fn = fn
	held := w.held
	w.held = nil
	return held
}

func (w *lineWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.line(string(w.buf))
		w.buf = nil
	}
}

// chatArgv is agent-chat's command line for a run.
func (s *stages) chatArgv(o runOpts) []string {
	var a []string
	if o.model != "" {
		a = append(a, "--model", o.model)
	}
	if o.thinking != "" {
		a = append(a, "--thinking", o.thinking)
	}
	for _, t := range s.tools {
		a = append(a, "--tools-cmd", t)
	}
	a = append(a, o.extra...)
	a = append(a, s.chatArgs...)
	if o.cont {
		return append(a, "--continue")
	}
	if o.ahead {
		return append(a, "--", "-")
	}
	a = append(a, "--message", o.prompt)
	if len(o.files) > 0 {
		a = append(a, "--")
		for _, f := range o.files {
			a = append(a, "@"+f)
		}
	}
	return a
}

// start starts the pipeline for session file; stderr lines of every stage
// go to errLine (nil: kept until r.stderr.to). Events are read from
// r.events until EOF, then r.wait(). A run started ahead gets its prompt
// by r.send.
func (s *stages) start(file string, o runOpts, errLine func(string)) (*run, error) {
	ctx := context.Background()
	r := &run{done: make(chan struct{}), stderr: &lineWriter{fn: errLine}}
	open := s.cmd(ctx, s.session, "open", file)
	r.procs = append(r.procs, open)
	if s.compact != nil {
		var ca []string
		if o.force {
			ca = append(ca, "--force")
		}
		r.procs = append(r.procs, s.cmd(ctx, s.compact, ca...))
	}
	r.chat = s.cmd(ctx, s.chat, s.chatArgv(o)...)
	r.procs = append(r.procs, r.chat)
	app := s.cmd(ctx, s.session, "append", file)
	r.procs = append(r.procs, app)
	var feed func() // passes the context on to agent-chat (ahead)
	for i, p := range r.procs {
		p.Stderr = r.stderr
		// Every stage in its own process group: a ^C the terminal might
		// still deliver reaches none of them; the front-end decides.
		p.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if i == 0 || p == app {
			continue
		}
		in, err := r.procs[i-1].StdoutPipe()
		if err != nil {
			return nil, err
		}
		if p != r.chat || !o.ahead {
			p.Stdin = in
			continue
		}
		if r.prompt, err = p.StdinPipe(); err != nil {
			return nil, err
		}
		r.fed = make(chan error, 1)
		feed = func() { r.fed <- passContext(r.prompt, in) }
	}
	out, err := r.chat.StdoutPipe()
	if err != nil {
		return nil, err
	}
	toApp, err := app.StdinPipe()
	if err != nil {
		return nil, err
	}
	r.events = newRelay(out, toApp)
	// agent-chat starts first: its start-up (tools, git snapshot, the
	// connection) is on the way to the first character, and the pipes
	// already join the stages, so the order of starting is free.
	order := []*exec.Cmd{r.chat}
	for _, p := range r.procs {
		if p != r.chat {
			order = append(order, p)
		}
	}
	for i, p := range order {
		if err := p.Start(); err != nil {
			for _, q := range order[:i] {
				q.Process.Kill()
				q.Wait()
			}
			return nil, fmt.Errorf("%s: %v", filepath.Base(p.Path), err)
		}
	}
	if feed != nil {
		go feed()
	}
	return r, nil
}

// relay is agent-chat's stdout as the front-end reads it. What is read is
// also passed on to agent-session append's stdin, whole lines in order, by
// a goroutine of its own: append (its fsync) never holds the screen, and
// it gets every byte. When append stops taking its input (it failed),
// agent-chat's stdout is closed: agent-chat then fails writing, as it did
// when it wrote to append itself.
//
// append's first write of a run waits until the run's first output is on
// the screen (Release), or appendHold at most: it opens and locks the
// session file, writes and fsyncs, a third of a millisecond of work and a
// disk flush that would otherwise fall on the way from the request to the
// first character (beside a model server on the same machine; with a
// server across the network it falls in the wait for the answer either
// way). What is held is passed on in full, in order; an ending run
// releases it at once.
type relay struct {
	src     io.ReadCloser
	wake    chan struct{}
	mu      sync.Mutex
	queue   []byte // whole lines not passed on yet
	part    []byte // a line read in part
	eof     bool   // src ended: queue holds the last of it
	hold    chan struct{}
	release sync.Once
}

// appendHold is how long append's first write may wait for the screen,
// from the run's first output.
const appendHold = 50 * time.Millisecond

func newRelay(src io.ReadCloser, dst io.WriteCloser) *relay {
	r := &relay{src: src, wake: make(chan struct{}, 1), hold: make(chan struct{})}
	go r.pass(dst)
	return r
}

// Release lets append's first write of the run go.
func (r *relay) Release() { r.release.Do(func() { close(r.hold) }) }

func (r *relay) Read(p []byte) (int, error) {
	n, err := r.src.Read(p)
	r.mu.Lock()
	r.part = append(r.part, p[:n]...)
	if i := bytes.LastIndexByte(r.part, '\n'); i >= 0 {
		r.queue = append(r.queue, r.part[:i+1]...)
		r.part = append(r.part[:0], r.part[i+1:]...)
	}
	if err != nil && !r.eof {
		r.eof = true
		r.queue = append(r.queue, r.part...) // a last line without its newline
		r.part = nil
		defer r.Release()
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	return n, err
}

// pass writes what Read queued to dst, and closes dst after the last of it.
func (r *relay) pass(dst io.WriteCloser) {
	defer dst.Close()
	var buf []byte
	held := false
	for range r.wake {
		if !held { // the run's first output: held from here
			held = true
			t := time.NewTimer(appendHold)
			select {
			case <-r.hold:
			case <-t.C:
			}
			t.Stop()
		}
		r.mu.Lock()
		buf, r.queue = r.queue, buf[:0]
		eof := r.eof
		r.mu.Unlock()
		if len(buf) > 0 {
			if _, err := dst.Write(buf); err != nil {
				r.src.Close()
				return
			}
		}
		if eof {
			return
		}
	}
}

// passContext copies the session stream to agent-chat and ends it with
// {"type":"context_end"}: what follows is the prompt.
func passContext(w io.Writer, r io.Reader) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	n, err := io.Copy(bw, r)
	if err != nil {
		return err
	}
	if n > 0 {
		bw.WriteString("\n") // a blank line is skipped; a last line without its newline is ended
	}
	bw.WriteString(`{"type":"context_end"}` + "\n")
	return bw.Flush()
}

// send gives a run started ahead its prompt; an error means agent-chat is
// no longer waiting for one (it ended early: throw the run away).
func (r *run) send(prompt string) error {
	if err := <-r.fed; err != nil {
		return err
	}
	if _, err := io.WriteString(r.prompt, prompt); err != nil {
		return err
	}
	return r.prompt.Close()
}

// discard ends a run that was started ahead and never given its prompt:
// every stage killed (agent-session append first, so nothing is written;
// agent-chat's process group holds its tool co-processes), then reaped.
func (r *run) discard() {
	for i := len(r.procs) - 1; i >= 0; i-- {
		if p := r.procs[i].Process; p != nil {
			syscall.Kill(-p.Pid, syscall.SIGKILL)
		}
	}
	if r.prompt != nil {
		r.prompt.Close()
	}
	io.Copy(io.Discard, r.events)
	for _, p := range r.procs {
		p.Wait()
	}
}

// Abort asks agent-chat to stop (SIGINT: it ends the run, writes what it
// has with stopReason "aborted" and exits 130); the rest of the pipeline
// persists and passes on what it wrote.
func (r *run) Abort() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.abort && r.chat.Process != nil {
		r.abort = true
		r.chat.Process.Signal(syscall.SIGINT)
	}
}

// wait waits for every stage and returns agent-chat's exit status.
func (r *run) wait() int {
	status := 0
	for _, p := range r.procs {
		err := p.Wait()
		if p == r.chat {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				status = ee.ExitCode()
				if status < 0 {
					status = 130
				}
			} else if err != nil {
				status = 1
			}
		}
	}
	r.stderr.Flush()
	return status
}

// readEvents decodes the events of rd, read through br (nil: a new
// reader), and hands each to fn; lines that are not events are skipped.
// more says that the next event is already read (a complete line waits in
// the buffer): a reader that shows events can hold its paint until more
// is false, one paint for what arrived together. The front-end passes the
// same br for every run: its buffer is allocated and touched once, not on
// the way from Enter to the first character.
func readEvents(br *bufio.Reader, rd io.Reader, fn func(ev event.Event, more bool)) {
	if br == nil {
		br = bufio.NewReaderSize(rd, eventBuffer)
	} else {
		br.Reset(rd)
	}
	defer br.Reset(nil) // nothing of the run is kept
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if ev, derr := event.Decode(line); derr == nil {
				fn(ev, lineWaits(br))
			}
		}
		if err != nil {
			return
		}
	}
}

// eventBuffer is the size of readEvents' buffer.
const eventBuffer = 256 << 10

// lineWaits: a complete line is already in br.
func lineWaits(br *bufio.Reader) bool {
	b, _ := br.Peek(br.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// compact runs SESSION open S | COMPACT --force [--instructions I] and
// appends only the records agent-compact added (pending).
func (s *stages) compactNow(ctx context.Context, file, instructions string) error {
	if s.compact == nil {
		return errors.New("no compaction stage (--compact-cmd is empty)")
	}
	var errb bytes.Buffer
	open := s.cmd(ctx, s.session, "open", file)
	args := []string{"--force"}
	if instructions != "" {
		args = append(args, "--instructions", instructions)
	}
	comp := s.cmd(ctx, s.compact, args...)
	open.Stderr, comp.Stderr = &errb, &errb
	in, err := open.StdoutPipe()
	if err != nil {
		return err
	}
	comp.Stdin = in
	var out bytes.Buffer
	comp.Stdout = &out
	if err := open.Start(); err != nil {
		return err
	}
	cerr := comp.Run()
	oerr := open.Wait()
	if cerr != nil || oerr != nil {
		return fmt.Errorf("compaction failed: %s", strings.TrimSpace(errb.String()))
	}
	var pending bytes.Buffer
	for _, line := range bytes.SplitAfter(out.Bytes(), []byte("\n")) {
		var p struct {
			Pending bool `json:"pending"`
		}
		if json.Unmarshal(line, &p) == nil && p.Pending {
			pending.Write(line)
		}
	}
	if pending.Len() == 0 {
		return errors.New("nothing to compact")
	}
	app := s.cmd(ctx, s.session, "append", file)
	app.Stdin = &pending
	app.Stderr = &errb
	if err := app.Run(); err != nil {
		return fmt.Errorf("append: %s", strings.TrimSpace(errb.String()))
	}
	return nil
}
