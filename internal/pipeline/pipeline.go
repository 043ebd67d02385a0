// Package pipeline runs the interactive agent's stages, each a process of
// its own that a flag replaces:
//
//	SESSION open S | COMPACT | CHAT … | tee >(SESSION append S)
//
// It starts them for a prompt, reads agent-chat's events (passing every
// line on to agent-session append, which persists them), aborts and waits
// for them, and runs the session commands of the front-end (open, continue,
// compact, branch summaries).
package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"mvdan.cc/sh/v3/shell"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/proctree"
	"github.com/agentutils/agentutils/lib/event"
)

// Stages are the processes of a run. The front-end reads agent-chat's
// events and passes every byte of them on to agent-session append, which
// persists them; it never writes the session itself. A run ends when
// append has persisted all of it.
type Stages struct {
	Session  []string // agent-session
	Compact  []string // agent-compact; nil skips the stage
	Chat     []string // agent-chat
	Tools    []string // agent-chat --tools-cmd values
	ChatArgs []string // more agent-chat flags
	Dir      string
	Env      []string
	TTY      *os.File // given as stdin to commands that name this terminal (continue, fork, resume)
	// DieWithParent: each stage gets SIGKILL when this process dies,
	// however it dies (a sub-agent's pipeline, proctree.Attr).
	DieWithParent bool
	// Remote, when set, runs agent-chat on another host over ssh (a
	// sub-agent sent there; remote.go): Opts.Stream is required.
	Remote *Remote
}

// Words splits a command line as the shell does (quotes, no expansion of
// anything but $VAR, read with getenv).
func Words(s string, getenv func(string) string) ([]string, error) {
	w, err := shell.Fields(s, getenv)
	if err != nil {
		return nil, fmt.Errorf("%q: %v", s, err)
	}
	if len(w) == 0 {
		return nil, fmt.Errorf("an empty command")
	}
	return w, nil
}

func (s *Stages) cmd(ctx context.Context, argv []string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, argv[0], append(append([]string(nil), argv[1:]...), args...)...)
	c.Dir, c.Env = s.Dir, s.Env
	c.Cancel = func() error { return c.Process.Signal(syscall.SIGTERM) }
	return c
}

// SessionOut runs an agent-session subcommand and returns its stdout; a
// failure returns its stderr as the error.
func (s *Stages) SessionOut(ctx context.Context, args ...string) ([]byte, error) {
	c := s.cmd(ctx, s.Session, args...)
	if s.TTY != nil {
		c.Stdin = s.TTY
	}
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return out.Bytes(), errors.New(app.FailText(err, errb.Bytes()))
	}
	return out.Bytes(), nil
}

// Opts are one run's choices.
type Opts struct {
	Prompt   string   // --message; "" with Continue
	Files    []string // @path arguments (agent-chat reads and attaches them)
	Continue bool     // --continue (after a compaction)
	Force    bool     // agent-compact --force
	Model    string
	Thinking string
	Sandbox  string   // agent-chat --sandbox; "" leaves agent-chat's default
	Extra    []string // more agent-chat flags of the front-end (--tools-cmd for approvals)
	// Ahead: started before its prompt is known (see Run.Send); agent-chat
	// reads the prompt on stdin after the context (its "-" argument),
	// which the front-end passes on from the stages before it, then ends
	// with context_end.
	Ahead bool
	// Stream, when set, is the session stream agent-chat reads, as
	// agent-session open printed it: no open or compaction stage runs (a
	// session just made, with nothing to compact: agent-session new --open).
	Stream []byte
}

// ChatArgv is agent-chat's command line for a run: every flag the
// front-end forwards to agent-chat is added here.
func (s *Stages) ChatArgv(o Opts) []string {
	var a []string
	if o.Model != "" {
		a = append(a, "--model", o.Model)
	}
	if o.Thinking != "" {
		a = append(a, "--thinking", o.Thinking)
	}
	if o.Sandbox != "" {
		a = append(a, "--sandbox", o.Sandbox)
	}
	for _, t := range s.Tools {
		a = append(a, "--tools-cmd", t)
	}
	a = append(a, o.Extra...)
	a = append(a, s.ChatArgs...)
	if o.Continue {
		return append(a, "--continue")
	}
	if o.Ahead {
		return append(a, "--", "-")
	}
	a = append(a, "--message", o.Prompt)
	if len(o.Files) > 0 {
		a = append(a, "--")
		for _, f := range o.Files {
			a = append(a, "@"+f)
		}
	}
	return a
}

// Run is one pipeline in flight.
type Run struct {
	procs  []*exec.Cmd
	chat   *exec.Cmd
	events io.Reader // agent-chat's events, passed on to append as read
	stderr *lineWriter
	mu     sync.Mutex
	abort  bool
	prompt io.WriteCloser // agent-chat's stdin, for a run started ahead
	fed    chan error     // the context has been passed on to it
	// control is run-subagent's stdin, for a remote run; first its first
	// line, sent once written.
	control io.WriteCloser
	first   []byte
	sent    bool
}

// Start starts the pipeline for session file; stderr lines of every stage
// go to errLine (from another goroutine; nil: kept until Send gives one).
// Read the events with r.ReadEvents until it returns, then r.Wait. A run
// started ahead (o.Ahead) gets its prompt by r.Send, or is ended unused
// by r.Discard.
func (s *Stages) Start(file string, o Opts, errLine func(string)) (*Run, error) {
	ctx := context.Background()
	r := &Run{stderr: &lineWriter{fn: errLine}}
	if o.Stream == nil {
		r.procs = append(r.procs, s.cmd(ctx, s.Session, "open", file))
	}
	if s.Compact != nil && o.Stream == nil {
		var ca []string
		if o.Force {
			ca = append(ca, "--force")
		}
		r.procs = append(r.procs, s.cmd(ctx, s.Compact, ca...))
	}
	if s.Remote != nil {
		c, err := s.remoteChat(r, o)
		if err != nil {
			return nil, err
		}
		r.chat = c
	} else {
		r.chat = s.cmd(ctx, s.Chat, s.ChatArgv(o)...)
	}
	r.procs = append(r.procs, r.chat)
	appendCmd := s.cmd(ctx, s.Session, "append", file)
	r.procs = append(r.procs, appendCmd)
	var feed func() // passes the context on to agent-chat (ahead)
	for i, p := range r.procs {
		p.Stderr = r.stderr
		// Every stage in its own process group: a ^C the terminal might
		// still deliver reaches none of them; the front-end decides.
		p.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if s.DieWithParent {
			p.SysProcAttr = proctree.Attr()
		}
		if p == appendCmd {
			continue
		}
		if p == r.chat && s.Remote != nil {
			continue // its stdin is the control pipe
		}
		if i == 0 {
			if o.Stream != nil {
				p.Stdin = bytes.NewReader(o.Stream)
			}
			continue
		}
		in, err := r.procs[i-1].StdoutPipe()
		if err != nil {
			return nil, err
		}
		if p != r.chat || !o.Ahead {
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
	toApp, err := appendCmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	r.events = newRelay(out, toApp)
	for i, p := range r.procs {
		if err := p.Start(); err != nil {
			for _, q := range r.procs[:i] {
				q.Process.Kill()
				q.Wait()
			}
			return nil, fmt.Errorf("%s: %v", filepath.Base(p.Path), err)
		}
	}
	if feed != nil {
		go feed()
	}
	if r.control != nil {
		go r.sendFirst()
	}
	return r, nil
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

// Send gives a run started ahead its prompt (agent-chat trims it) and
// the function its stderr lines go to from now on (the lines written
// before are handed to it first). An error means agent-chat is no longer
// waiting for a prompt (it ended early): Discard the run.
func (r *Run) Send(prompt string, errLine func(string)) error {
	if r.prompt == nil {
		return errors.New("not a run started ahead")
	}
	if err := <-r.fed; err != nil {
		r.fed <- err
		return err
	}
	r.fed <- errors.New("the prompt was sent already")
	if _, err := io.WriteString(r.prompt, prompt); err != nil {
		return err
	}
	if err := r.prompt.Close(); err != nil {
		return err
	}
	r.stderr.to(errLine)
	return nil
}

// Discard ends a run started ahead and never given its prompt: every
// stage killed, each with its process group (agent-chat's holds its tool
// co-processes), so nothing is appended. The run's reader still sees its
// events end; Wait reaps the stages.
func (r *Run) Discard() {
	for i := len(r.procs) - 1; i >= 0; i-- {
		if p := r.procs[i].Process; p != nil {
			syscall.Kill(-p.Pid, syscall.SIGKILL)
		}
	}
	if r.prompt != nil {
		r.prompt.Close()
	}
}

// Abort asks agent-chat to stop (SIGINT: it ends the run, writes what it
// has with stopReason "aborted" and exits 130; a remote one gets the
// abort line, and run-subagent sends it the SIGINT there); the rest of
// the pipeline persists and passes on what it wrote.
func (r *Run) Abort() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.abort || r.chat.Process == nil {
		return
	}
	r.abort = true
	if r.control != nil {
		if !r.sent { // not connected yet: ssh's end kills it there, if it started
			r.control.Close()
			r.chat.Process.Signal(syscall.SIGTERM)
			return
		}
		io.WriteString(r.control, RemoteAbort+"\n")
		return
	}
	r.chat.Process.Signal(syscall.SIGINT)
}

// Wait waits for every stage and returns agent-chat's exit status.
func (r *Run) Wait() int {
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

// ReadEvents hands each event of the run to fn until agent-chat's stdout
// ends (see the package function).
func (r *Run) ReadEvents(fn func(ev event.Event, more bool)) { ReadEvents(r.events, fn) }

// ReadEvents decodes the events of rd and hands each to fn; lines that
// are not events are skipped. more says that the next event is already
// read (a complete line waits in the buffer): a reader that shows events
// can hold them until more is false, one message for what arrived
// together.
func ReadEvents(rd io.Reader, fn func(ev event.Event, more bool)) {
	br := bufio.NewReaderSize(rd, 256<<10)
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

// lineWaits: a complete line is already in br.
func lineWaits(br *bufio.Reader) bool {
	b, _ := br.Peek(br.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
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

// to sends the lines to fn from now on, the kept ones first.
func (w *lineWriter) to(fn func(string)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fn = fn
	held := w.held
	w.held = nil
	for _, s := range held {
		w.line(s)
	}
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

// Flush hands on a last line without its newline.
func (w *lineWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.line(string(w.buf))
		w.buf = nil
	}
}

// relay is agent-chat's stdout as the front-end reads it. What is read is
// also passed on to agent-session append's stdin, whole lines in order, by
// a goroutine of its own: append (its fsync) never holds the screen, and
// it gets every byte. When append stops taking its input (it failed),
// agent-chat's stdout is closed: agent-chat then fails writing, as it did
// when it wrote to append itself.
type relay struct {
	src   io.ReadCloser
	wake  chan struct{}
	mu    sync.Mutex
	queue []byte // whole lines not passed on yet
	part  []byte // a line read in part
	eof   bool   // src ended: queue holds the last of it
}

func newRelay(src io.ReadCloser, dst io.WriteCloser) *relay {
	r := &relay{src: src, wake: make(chan struct{}, 1)}
	go r.pass(dst)
	return r
}

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
	for range r.wake {
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

// Kill ends every stage at once with SIGKILL, each with its process group
// and every process below it (proctree.KillTree): what an Abort that was
// not heeded leaves. Wait still reaps the stages.
func (r *Run) Kill() {
	for _, p := range r.procs {
		if p.Process != nil {
			proctree.KillTree(p.Process.Pid, "", syscall.SIGKILL)
		}
	}
}
