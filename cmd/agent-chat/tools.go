package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/loop"
)

// coproc is one tool co-process (--tools-cmd): its pipes and the calls it
// is running, answered by id.
type coproc struct {
	name    string
	cmd     *exec.Cmd
	in      io.WriteCloser
	mu      sync.Mutex
	waiting map[string]chan any // id → *event.Update / *event.Result
	tools   chan *event.Tools
	dead    chan struct{}
	stderr  io.Writer
	deadErr error
}

// startTools starts every --tools-cmd, says hello, and merges their tool
// lists (a name offered twice is an error naming both commands).
func startTools(ctx context.Context, cmds []string, cwd, sessionID string, stderr io.Writer) ([]*coproc, *loop.Toolset, error) {
	var procs []*coproc
	var sources []loop.Source
	for _, c := range cmds {
		p, err := startCoproc(ctx, c, cwd, sessionID, stderr)
		if err != nil {
			stopTools(procs)
			return nil, nil, err
		}
		procs = append(procs, p)
		select {
		case t := <-p.tools:
			sources = append(sources, loop.Source{Name: c, Tools: t.Tools})
		case <-p.dead:
			stopTools(procs)
			return nil, nil, fmt.Errorf("tool command %q exited before listing its tools: %v", c, p.deadErr)
		case <-time.After(30 * time.Second):
			stopTools(procs)
			return nil, nil, fmt.Errorf("tool command %q did not answer hello within 30 s", c)
		}
	}
	ts, err := loop.Merge(sources)
	if err != nil {
		stopTools(procs)
		return nil, nil, err
	}
	return procs, ts, nil
}

func startCoproc(ctx context.Context, command, cwd, sessionID string, stderr io.Writer) (*coproc, error) {
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = cwd
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("tool command %q: %v", command, err)
	}
	p := &coproc{name: command, cmd: cmd, in: in, waiting: map[string]chan any{}, tools: make(chan *event.Tools, 1), dead: make(chan struct{}), stderr: stderr}
	go p.read(out)
	// agent-chat fires no tool hooks itself: the co-process runs its own
	// (agent-tool serve --settings …; agent-mcp bridge only when told so).
	hooks := true
	b, _ := event.EncodeTool(&event.Hello{Cwd: cwd, SessionID: sessionID, Hooks: &hooks})
	// A child that already died makes this write fail; its exit is what
	// gets reported (startTools waits on p.dead).
	in.Write(b)
	return p, nil
}

// read dispatches the co-process's lines until it exits.
func (p *coproc) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 256<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			msg, derr := event.DecodeTool(line)
			switch m := msg.(type) {
			case *event.Tools:
				select {
				case p.tools <- m:
				default:
				}
			case *event.Update:
				p.deliver(m.ID, m, false)
			case *event.Result:
				p.deliver(m.ID, m, true)
			case *event.Log:
				fmt.Fprintf(p.stderr, "agent-chat: %s: %s: %s\n", p.name, m.Level, m.Msg)
			case *event.ToolAsk:
				// No person to ask without --control: answer cancelled.
				b, _ := event.EncodeTool(&event.Answer{RequestID: m.RequestID, Cancelled: true})
				p.in.Write(b)
			default:
				if derr != nil {
					fmt.Fprintf(p.stderr, "agent-chat: %s: a line that is not a protocol message: %v\n", p.name, derr)
				}
			}
		}
		if err != nil {
			break
		}
	}
	p.deadErr = p.cmd.Wait()
	close(p.dead)
}

func (p *coproc) deliver(id string, v any, final bool) {
	p.mu.Lock()
	ch := p.waiting[id]
	if final {
		delete(p.waiting, id)
	}
	p.mu.Unlock()
	if ch != nil {
		ch <- v
	}
}

// call sends one call and returns the channel its update and result come on.
func (p *coproc) call(c *event.Call) chan any {
	ch := make(chan any, 64)
	p.mu.Lock()
	p.waiting[c.ID] = ch
	p.mu.Unlock()
	b, _ := event.EncodeTool(c)
	if _, err := p.in.Write(b); err != nil {
		p.deliver(c.ID, &event.Result{ID: c.ID, Content: []event.Content{event.Text("tool process exited: " + err.Error())}, IsError: true}, true)
	}
	return ch
}

func (p *coproc) cancel(id string) {
	b, _ := event.EncodeTool(&event.Cancel{ID: id})
	p.in.Write(b)
}

func stopTools(ps []*coproc) {
	for _, p := range ps {
		p.in.Close()
	}
	for _, p := range ps {
		select {
		case <-p.dead:
		case <-time.After(5 * time.Second):
			p.cmd.Process.Kill()
			<-p.dead
		}
	}
}

func toolsForModel(ts *loop.Toolset) []llm.Tool {
	var out []llm.Tool
	for _, t := range ts.Tools() {
		out = append(out, llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return out
}

// toolRunner is the tool co-processes of a run.
type toolRunner struct {
	procs     []*coproc
	toolset   *loop.Toolset
	restarted map[int]bool // co-processes restarted in this run (once each)
	stderr    io.Writer
}

// revive restarts, once per run, a tool co-process that has died; its
// calls in the meantime got "tool process exited" results.
func (t *toolRunner) revive(ctx context.Context, env *app.Env, sessionID string) {
	for i, p := range t.procs {
		select {
		case <-p.dead:
		default:
			continue
		}
		if t.restarted == nil {
			t.restarted = map[int]bool{}
		}
		if t.restarted[i] {
			continue
		}
		t.restarted[i] = true
		np, err := startCoproc(ctx, p.name, env.Dir, sessionID, env.Stderr)
		if err != nil {
			continue
		}
		select {
		case <-np.tools:
			t.procs[i] = np
			fmt.Fprintf(env.Stderr, "agent-chat: tool command %q exited (%v); restarted\n", p.name, p.deadErr)
		case <-np.dead:
		case <-time.After(30 * time.Second):
			np.cmd.Process.Kill()
		}
	}
}

// set is the merged toolset (nil without co-processes).
func (t *toolRunner) set() *loop.Toolset {
	if t == nil {
		return nil
	}
	return t.toolset
}
