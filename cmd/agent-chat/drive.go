package main

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/internal/provider"
	"github.com/agentutils/agentutils/internal/toolproto"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/loop"
	"github.com/agentutils/agentutils/lib/permission"
)

// driver performs the I/O of one run for lib/loop, which decides: it
// streams the model, runs tool calls on the co-processes, reads --control,
// fires the Stop hook and writes the events.
type driver struct {
	env    *app.Env
	ctx    context.Context // the run's context: SIGINT or a control abort cancels it
	out    *emitter
	client *provider.Client
	model  llm.Model
	opts   llm.Options
	// secrets never reach the model: hidden outbound, revealed inbound.
	secrets *llm.Secrets
	tools   *toolRunner // nil without co-processes
	notes   *notices    // the tools' and the async hooks' news for the model
	ctl     *control    // --control (nil without)
	fire    func(hooks.Input) hooks.Verdict
	warn    func(string)       // a line on stderr
	perm    *permission.Policy // refuses calls (nil: none refused here)
	spent   *spendMeter        // what the run has spent (the task tool's budgets)
	stop    hooks.Input        // the Stop (or SubagentStop) hook's input
	// permHooks: PermissionRequest hooks decide the calls that would need
	// approval.
	permHooks bool
}

// toolMsg is an update or the result of a running call.
type toolMsg struct {
	index  int
	update *event.ToolOutput
	result llm.Message
}

func (d *driver) now() int64 { return d.env.Now().UnixMilli() }

// run drives the loop from the prompt (nil: continue) to its end.
func (d *driver) run(l *loop.Loop, prompt *llm.Message) error {
	d.sync(l)
	s := l.Start(prompt)
	var msgs chan toolMsg // made at the first tool batch
	for {
		d.write(s)
		switch s.Action {
		case loop.CallModel:
			final, err := d.call(l)
			if err != nil { // a replay mismatch or a codec failure: no message to show
				return err
			}
			d.sync(l)
			s = l.ModelDone(final, d.ctx.Err() != nil, d.now())
		case loop.Wait:
			select {
			case <-time.After(s.Delay):
				s = l.Retry()
			case <-d.ctx.Done():
				s = l.RetryCancelled()
			}
		case loop.RunTools:
			if msgs == nil {
				msgs = make(chan toolMsg, 16)
			}
			s = d.runTools(l, s, msgs)
		case loop.StopHook:
			in := d.stop
			in.StopHookActive, in.LastAssistantMessage = &s.HookActive, l.FinalText()
			v := d.fire(in)
			d.sync(l)
			s = l.StopHookDone(v.Block && !v.Stop, v.Reason, d.now())
		default:
			if s.Warning != "" {
				d.warn(s.Warning)
			}
			return s.Err
		}
	}
}

// write writes a step's events. Before a model call they are held until
// its request is written (the client's Sent): the next stages (the
// front-end drawing the prompt, agent-session append persisting it) then
// run while the server answers, not while the request is built and sent.
func (d *driver) write(s loop.Step) {
	events := func() {
		for _, e := range s.Events {
			d.out.event(e)
		}
	}
	if s.Action == loop.CallModel {
		d.out.held = true // out at Sent, at the latest at the end of call's batch
		events()
		return
	}
	d.out.batch(events)
}

// sync hands the loop what came in meanwhile: control input, the tool
// processes' notices and an interrupt.
func (d *driver) sync(l *loop.Loop) {
	d.ctl.feed(l)
	d.notes.feed(l)
	if d.ctx.Err() != nil {
		l.Abort()
	}
}

// runTools starts the step's calls and feeds the loop the next update or
// result.
func (d *driver) runTools(l *loop.Loop, s loop.Step, msgs chan toolMsg) loop.Step {
	if s.Revive {
		d.tools.revive(d.ctx, d.env, d.opts.SessionID)
	}
	d.out.wait() // the checkpoint's scan is over before a tool changes anything
	for _, dsp := range s.Dispatch {
		go d.execute(dsp, msgs)
	}
	done := d.ctx.Done()
	for {
		select {
		case m := <-msgs:
			d.sync(l)
			if m.update != nil {
				return l.ToolUpdate(m.index, *m.update)
			}
			s := l.ToolResult(m.index, m.result, d.now())
			if e := d.planApproved(m.result); e != nil {
				s.Events = append(s.Events, *e)
			}
			return s
		case <-done:
			l.Abort()
			done = nil
		}
	}
}

// execute runs one call on its co-process: the tool gets the real values
// of the placeholders; what it returns is hidden again before anyone sees
// or stores it.
func (d *driver) execute(dsp loop.Dispatch, msgs chan<- toolMsg) {
	c := dsp.Call
	res := llm.Message{Role: "toolResult", ToolCallID: c.ID, ToolName: c.Name}
	fail := func(s string) {
		res.Content, res.IsError, res.Timestamp = []llm.Content{llm.TextBlock(s)}, true, d.now()
		msgs <- toolMsg{index: dsp.Index, result: res}
	}
	call := c
	call.Arguments = json.RawMessage(d.secrets.Reveal(string(c.Arguments)))
	why, args := d.permitted(c.Name, call.Arguments)
	if why != "" {
		fail(why)
		return
	}
	call.Arguments = args
	if dsp.Source == len(d.tools.procs) { // the task tool, run here
		d.runTask(dsp, call, res, msgs)
		return
	}
	p := d.tools.procs[dsp.Source]
	ch, err := p.Call(&call)
	if err != nil {
		fail(toolproto.ExitText(err))
		return
	}
	for {
		select {
		case v := <-ch:
			switch m := v.(type) {
			case *event.Update:
				pr := d.hideOutput(m.PartialResult)
				msgs <- toolMsg{index: dsp.Index, update: &pr}
			case *event.Result:
				m.Content, m.Details = d.hideContent(m.Content), d.secrets.HideJSON(m.Details)
				for _, b := range m.Content {
					res.Content = append(res.Content, llm.Content{Type: b.Type, Text: b.Text, Data: b.Data, MimeType: b.MimeType})
				}
				res.Details, res.IsError, res.Timestamp = m.Details, m.IsError, d.now()
				msgs <- toolMsg{index: dsp.Index, result: res}
				return
			}
		case <-p.Dead():
			fail(toolproto.ExitText(p.Err()))
			return
		case <-d.ctx.Done():
			d.aborted(dsp, p, ch, res, msgs)
			return
		}
	}
}

// aborted ends a running call on an interrupt: cancel (unless the tool is
// not abortable), then a little wait for the co-process's answer.
func (d *driver) aborted(dsp loop.Dispatch, p *coproc, ch <-chan any, res llm.Message, msgs chan<- toolMsg) {
	if dsp.Abortable {
		p.Cancel(dsp.Call.ID)
	}
	select {
	case v := <-ch:
		if m, ok := v.(*event.Result); ok {
			for _, b := range d.hideContent(m.Content) {
				res.Content = append(res.Content, llm.Content{Type: b.Type, Text: b.Text})
			}
			res.IsError, res.Timestamp = true, d.now()
			msgs <- toolMsg{index: dsp.Index, result: res}
			return
		}
	case <-time.After(5 * time.Second):
	}
	res.Content, res.IsError, res.Timestamp = []llm.Content{llm.TextBlock(loop.TextAborted)}, true, d.now()
	msgs <- toolMsg{index: dsp.Index, result: res}
}

// call makes one model call, streaming message_start and updates.
func (d *driver) call(l *loop.Loop) (llm.Message, error) {
	started := false
	opts := d.opts
	opts.Thinking = l.Thinking()
	// What the model writes keeps its placeholders: events, the session
	// and exports never hold a secret; only a tool gets the real value
	// (execute).
	// The events of one read of the stream go out in one write: the
	// client flushes the output before it waits for the network (Quiet).
	var final llm.Message
	var err error
	d.out.batch(func() {
		final, err = d.client.Stream(d.ctx, d.model, d.secrets.Hide(l.Context()), opts, func(ev llm.Event) {
			d.out.model(ev, &started)
		})
	})
	if err != nil {
		return final, exit.Wrap(exit.Failure, err)
	}
	d.spent.add(true, final.Usage)
	if !started {
		empty := llm.Message{Role: "assistant", Content: []llm.Content{}, API: d.model.API, Provider: d.model.Provider, Model: d.model.ID, StopReason: llm.StopStop, Timestamp: final.Timestamp}
		m := msgJSON(empty)
		d.out.emit(event.MessageStart, func(e *event.Event) { e.Message = m })
	}
	return final, nil
}

// hideOutput replaces the secrets in a tool's output with placeholders.
func (d *driver) hideOutput(o event.ToolOutput) event.ToolOutput {
	o.Content, o.Details = d.hideContent(o.Content), d.secrets.HideJSON(o.Details)
	return o
}

func (d *driver) hideContent(cs []event.Content) []event.Content {
	out := make([]event.Content, len(cs))
	for i, c := range cs {
		c.Text = d.secrets.HideText(c.Text)
		out[i] = c
	}
	return out
}
