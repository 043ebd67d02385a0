package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport runs a stdio server. Unlike the SDK's CommandTransport it
// skips lines on the server's stdout that are not JSON (a banner, a stray
// print) instead of dropping the connection, reporting each to junk; and
// a connect timeout can kill the process (kill) without racing its start.
// Close follows the spec: close stdin, wait terminate, SIGTERM, wait
// terminate, SIGKILL.
type StdioTransport struct {
	Cmd       *exec.Cmd
	Terminate time.Duration
	Junk      func(line string)
	Cancelled func() // called for each notifications/cancelled written

	mu     sync.Mutex
	proc   *os.Process
	killed bool
	done   chan struct{} // closed when the process has been waited for
}

func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	t.Cmd.Stdin, t.Cmd.Stdout = inR, outW
	t.mu.Lock()
	err = t.Cmd.Start()
	inR.Close() // the child's ends
	outW.Close()
	if err != nil {
		t.mu.Unlock()
		inW.Close()
		outR.Close()
		return nil, err
	}
	t.proc, t.done = t.Cmd.Process, make(chan struct{})
	if t.killed {
		_ = t.proc.Kill()
	}
	t.mu.Unlock()
	go func() {
		_ = t.Cmd.Wait()
		close(t.done)
	}()
	pr, pw := io.Pipe()
	go t.filter(outR, pw)
	return (&mcp.IOTransport{Reader: pr, Writer: &stdin{f: inW, t: t}}).Connect(ctx)
}

// filter copies the JSON lines of the server's stdout and reports the rest.
func (t *StdioTransport) filter(out *os.File, pw *io.PipeWriter) {
	defer out.Close()
	br := bufio.NewReaderSize(out, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if s := bytes.TrimSpace(line); len(s) > 0 {
			// json.Valid, not the first byte: console.log({a: 1}) prints
			// "{ a: 1 }", which would end the connection as a parse error
			if (s[0] == '{' || s[0] == '[') && json.Valid(s) {
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			} else if t.Junk != nil {
				t.Junk(string(s))
			}
		}
		if err != nil {
			pw.CloseWithError(err)
			return
		}
	}
}

// Kill ends the server now (a connect timeout), or as soon as it starts.
func (t *StdioTransport) Kill() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.killed = true
	if t.proc != nil {
		_ = t.proc.Kill()
	}
}

// stop closes stdin and waits for the server to exit, with SIGTERM and
// then SIGKILL if it takes longer than terminate each time.
func (t *StdioTransport) stop(in *os.File) error {
	err := in.Close()
	t.mu.Lock()
	proc, done := t.proc, t.done
	t.mu.Unlock()
	wait := func() bool {
		select {
		case <-done:
			return true
		case <-time.After(t.Terminate):
			return false
		}
	}
	if wait() {
		return err
	}
	if proc.Signal(syscall.SIGTERM) == nil && wait() {
		return err
	}
	_ = proc.Kill()
	if !wait() {
		return errors.New("the server process does not exit")
	}
	return err
}

// stdin is the server's stdin; closing it stops the server.
type stdin struct {
	f    *os.File
	t    *StdioTransport
	once sync.Once
	err  error
}

func (s *stdin) Write(p []byte) (int, error) {
	n, err := s.f.Write(p)
	if s.t.Cancelled != nil && bytes.Contains(p, cancelledMethod) {
		s.t.Cancelled() // one Write is one message (the SDK's ioConn)
	}
	return n, err
}

func (s *stdin) Close() error {
	s.once.Do(func() { s.err = s.t.stop(s.f) })
	return s.err
}
