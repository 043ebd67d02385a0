// Package toolproto is the tool co-process protocol's I/O (formats/tools;
// the messages and their framing are lib/event's EncodeTool and
// DecodeTool): one Client, which starts a tool process and talks to it
// (agent-chat --tools-cmd, agent-mcp serve), and one Server, the call
// registry of a tool process (agent-tool serve, agent-mcp bridge).
package toolproto

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/agentutils/agentutils/internal/proctree"
	"github.com/agentutils/agentutils/lib/event"
)

// Options says how to start a tool process and what to do with the
// messages that answer no call.
type Options struct {
	Command string // run with sh -c
	Dir     string
	Env     []string // the process's environment (nil: this process's)
	Stderr  io.Writer
	Hello   *event.Hello
	// OnLog gets the process's log messages; OnBadLine each line that is
	// not a protocol message; OnAsk each request for the user (nil: it is
	// answered cancelled at once).
	OnLog     func(*event.Log)
	OnBadLine func(error)
	OnAsk     func(*event.ToolAsk)
	// OnNotice gets the process's notices (nil: dropped); those sent
	// before its tools message are handed on before Tools delivers it.
	OnNotice func(*event.Notice)
}

// Client is one running tool process.
type Client struct {
	o       Options
	cmd     *exec.Cmd
	in      io.WriteCloser
	wmu     sync.Mutex
	mu      sync.Mutex
	waiting map[string]chan any // call id → its *event.Update and *event.Result
	tools   chan *event.Tools
	dead    chan struct{}
	err     error
}

// Start starts the process and says hello. A process that dies at once
// is seen on Dead, not here: only a command that cannot start is an error.
func Start(o Options) (*Client, error) {
	cmd := exec.Command("sh", "-c", o.Command)
	cmd.Dir, cmd.Env = o.Dir, o.Env
	cmd.Stderr = o.Stderr
	// It ends with this process (agent-chat, agent-mcp serve), however
	// that ends: SIGTERM, so that it ends its jobs.
	cmd.SysProcAttr = proctree.Child(syscall.SIGTERM)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &Client{o: o, cmd: cmd, in: in, waiting: map[string]chan any{}, tools: make(chan *event.Tools, 1), dead: make(chan struct{})}
	go c.read(out)
	if o.Hello != nil {
		// A child that already died makes this write fail; its exit is
		// what gets reported (Dead).
		_ = c.Send(o.Hello)
	}
	return c, nil
}

// Command is the command line the process runs.
func (c *Client) Command() string { return c.o.Command }

// Tools delivers the process's first tools message.
func (c *Client) Tools() <-chan *event.Tools { return c.tools }

// Dead is closed when the process has exited; Err is then its exit.
func (c *Client) Dead() <-chan struct{} { return c.dead }
func (c *Client) Err() error            { return c.err }

// Send writes one message.
func (c *Client) Send(v any) error {
	b, err := event.EncodeTool(v)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.in.Write(b)
	return err
}

// Call sends a call; its updates and then its result come on the channel.
// An error is the write's: the call is not running.
func (c *Client) Call(call *event.Call) (<-chan any, error) {
	ch := make(chan any, 64)
	c.mu.Lock()
	c.waiting[call.ID] = ch
	c.mu.Unlock()
	if err := c.Send(call); err != nil {
		c.mu.Lock()
		delete(c.waiting, call.ID)
		c.mu.Unlock()
		return nil, err
	}
	return ch, nil
}

// Cancel asks the process to stop call id ("" every call).
func (c *Client) Cancel(id string) error { return c.Send(&event.Cancel{ID: id}) }

// Close ends the process: EOF on its stdin, then, after grace, a kill.
func (c *Client) Close(grace time.Duration) {
	c.in.Close()
	select {
	case <-c.dead:
	case <-time.After(grace):
		c.Kill()
		<-c.dead
	}
}

// Kill kills the process.
func (c *Client) Kill() { c.cmd.Process.Kill() }

// read dispatches the process's lines until it exits.
func (c *Client) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 256<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			c.dispatch(line)
		}
		if err != nil {
			break
		}
	}
	c.err = c.cmd.Wait()
	close(c.dead)
}

func (c *Client) dispatch(line []byte) {
	msg, derr := event.DecodeTool(line)
	switch m := msg.(type) {
	case *event.Tools:
		select {
		case c.tools <- m:
		default:
		}
	case *event.Update:
		c.deliver(m.ID, m, false)
	case *event.Result:
		c.deliver(m.ID, m, true)
	case *event.Log:
		if c.o.OnLog != nil {
			c.o.OnLog(m)
		}
	case *event.Notice:
		if c.o.OnNotice != nil {
			c.o.OnNotice(m)
		}
	case *event.ToolAsk:
		if c.o.OnAsk != nil {
			c.o.OnAsk(m)
		} else {
			_ = c.Send(&event.Answer{RequestID: m.RequestID, Cancelled: true})
		}
	default:
		if derr != nil && c.o.OnBadLine != nil {
			c.o.OnBadLine(derr)
		}
	}
}

func (c *Client) deliver(id string, v any, final bool) {
	c.mu.Lock()
	ch := c.waiting[id]
	if final {
		delete(c.waiting, id)
	}
	c.mu.Unlock()
	if ch != nil {
		ch <- v
	}
}

// ExitText is how a call learns its process died: "tool process exited: …".
func ExitText(err error) string { return fmt.Sprintf("tool process exited: %v", err) }
