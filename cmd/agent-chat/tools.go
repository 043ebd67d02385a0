package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

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
	hooks := false
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

// runTools runs the tool calls of an assistant message: validated against
// the advertised schemas, shared calls together and exclusive ones alone,
// with tool_execution events, and the results in call order.
func (t *turn) runTools(msg llm.Message) []llm.Message {
	t.revive()
	calls := msg.ToolCalls()
	conc := make([]string, len(calls))
	for i, c := range calls {
		conc[i] = event.Shared
		if tool, ok := t.toolset.Lookup(c.Name); ok {
			conc[i] = tool.Concurrency
		}
	}
	results := make([]llm.Message, len(calls))
	for _, group := range loop.Plan(conc) {
		var wg sync.WaitGroup
		for _, i := range group {
			c := calls[i]
			args := c.Arguments
			t.out.emit(event.ToolExecutionStart, func(e *event.Event) { e.ToolCallID, e.ToolName, e.Args = c.ID, c.Name, args })
			wg.Add(1)
			go func(i int, c llm.Content) {
				defer wg.Done()
				results[i] = t.execute(c)
			}(i, c)
		}
		wg.Wait()
		for _, i := range group {
			r := results[i]
			isErr := r.IsError
			var content []event.Content
			for _, b := range r.Content {
				content = append(content, event.Content{Type: b.Type, Text: b.Text, Data: b.Data, MimeType: b.MimeType})
			}
			t.out.emit(event.ToolExecutionEnd, func(e *event.Event) {
				e.ToolCallID, e.ToolName, e.IsError = r.ToolCallID, r.ToolName, &isErr
				e.Result = &event.ToolOutput{Content: content, Details: r.Details}
			})
		}
	}
	for _, r := range results {
		m := msgJSON(r)
		t.out.emit(event.MessageStart, func(e *event.Event) { e.Message = m })
		t.out.emit(event.MessageEnd, func(e *event.Event) { e.Message = m })
	}
	return results
}

// execute runs one call on its co-process and waits for the result.
func (t *turn) execute(c llm.Content) llm.Message {
	res := llm.Message{Role: "toolResult", ToolCallID: c.ID, ToolName: c.Name}
	fail := func(s string) llm.Message {
		res.Content, res.IsError, res.Timestamp = []llm.Content{llm.TextBlock(s)}, true, t.env.Now().UnixMilli()
		return res
	}
	tool, ok := t.toolset.Lookup(c.Name)
	if !ok {
		return fail("Tool " + c.Name + " not found")
	}
	args, err := t.validator.Validate(c.Name, c.Arguments)
	if err != nil {
		return fail(err.Error())
	}
	if t.ctx.Err() != nil {
		return fail("Tool execution was aborted.")
	}
	p := t.procs[tool.Source]
	// The tool gets the real values of the placeholders; what it returns is
	// hidden again before anyone sees or stores it.
	ch := p.call(&event.Call{ID: c.ID, Name: c.Name, Arguments: json.RawMessage(t.secrets.Reveal(string(args)))})
	for {
		select {
		case v := <-ch:
			switch m := v.(type) {
			case *event.Update:
				pr := t.hideOutput(m.PartialResult)
				t.out.emit(event.ToolExecutionUpdate, func(e *event.Event) {
					e.ToolCallID, e.ToolName, e.Args, e.PartialResult = c.ID, c.Name, args, &pr
				})
			case *event.Result:
				m.Content, m.Details = t.hideContent(m.Content), t.secrets.HideJSON(m.Details)
				for _, b := range m.Content {
					res.Content = append(res.Content, llm.Content{Type: b.Type, Text: b.Text, Data: b.Data, MimeType: b.MimeType})
				}
				res.Details, res.IsError, res.Timestamp = m.Details, m.IsError, t.env.Now().UnixMilli()
				return res
			}
		case <-p.dead:
			return fail(fmt.Sprintf("tool process exited: %v", p.deadErr))
		case <-t.ctx.Done():
			if !tool.NonAbortable {
				p.cancel(c.ID)
			}
			// the co-process still answers; wait a little for it
			select {
			case v := <-ch:
				if m, ok := v.(*event.Result); ok {
					for _, b := range t.hideContent(m.Content) {
						res.Content = append(res.Content, llm.Content{Type: b.Type, Text: b.Text})
					}
					res.IsError, res.Timestamp = true, t.env.Now().UnixMilli()
					return res
				}
			case <-time.After(5 * time.Second):
			}
			return fail("Tool execution was aborted.")
		}
	}
}

// hideOutput replaces the secrets in a tool's output with placeholders.
func (t *turn) hideOutput(o event.ToolOutput) event.ToolOutput {
	o.Content, o.Details = t.hideContent(o.Content), t.secrets.HideJSON(o.Details)
	return o
}

func (t *turn) hideContent(cs []event.Content) []event.Content {
	out := make([]event.Content, len(cs))
	for i, c := range cs {
		c.Text = t.secrets.HideText(c.Text)
		out[i] = c
	}
	return out
}

func toolsForModel(ts *loop.Toolset) []llm.Tool {
	var out []llm.Tool
	for _, t := range ts.Tools() {
		out = append(out, llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return out
}

// revive restarts, once per run, a tool co-process that has died; its
// calls in the meantime got "tool process exited" results.
func (t *turn) revive() {
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
		np, err := startCoproc(t.ctx, p.name, t.env.Dir, t.opts.SessionID, t.env.Stderr)
		if err != nil {
			continue
		}
		select {
		case <-np.tools:
			t.procs[i] = np
			fmt.Fprintf(t.env.Stderr, "agent-chat: tool command %q exited (%v); restarted\n", p.name, p.deadErr)
		case <-np.dead:
		case <-time.After(30 * time.Second):
			np.cmd.Process.Kill()
		}
	}
}
