package loop

import (
	"encoding/json"
	"fmt"

	"github.com/agentutils/agentutils/lib/event"
)

// Synthetic result texts (the reference agent's words).
const (
	TextSkipped      = "Skipped due to queued user message."
	TextAborted      = "Tool execution was aborted."
	textNotFoundFmt  = "Tool %s not found"
	textDuplicateFmt = "Tool call id %s is used by an earlier call in this message; not run."
)

// Plan groups calls into stages run one after another: consecutive shared
// calls form one stage and run together; an exclusive call is a stage of
// its own, so it waits for every earlier call and blocks every later one.
// concurrency[i] is call i's concurrency ("" means shared); the result holds
// call indices.
func Plan(concurrency []string) [][]int {
	var stages [][]int
	open := false // the last stage takes more shared calls
	for i, c := range concurrency {
		if c == event.Exclusive {
			stages = append(stages, []int{i})
			open = false
			continue
		}
		if !open {
			stages = append(stages, nil)
			open = true
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], i)
	}
	return stages
}

// Dispatch is a call to send to a tool co-process, with the
// tool_execution_start event to write when it is sent.
type Dispatch struct {
	Source int // index of the co-process (Toolset sources)
	Call   event.Call
	Start  event.Event
}

// Cancel is a cancel message for the co-process Source.
type Cancel struct {
	Source int
	Cancel event.Cancel
}

type callState int

const (
	pending  callState = iota // not sent yet
	running                   // sent, no result yet
	finished                  // has its outcome
)

type batchCall struct {
	call    ToolCall
	tool    Tool
	args    json.RawMessage // validated (maybe coerced) arguments
	state   callState
	started bool // tool_execution_start was written
	out     Outcome
}

// Batch runs the tool calls of one assistant message: it hands out the
// calls stage by stage (Next), takes their updates and results in any
// order, and at the end (Finish) gives the events and toolResult messages
// in call order. Calls to unknown tools and calls whose arguments fail
// validation are finished from the start with their synthetic result.
type Batch struct {
	id          string
	calls       []*batchCall
	stages      [][]int // indices into calls of the runnable calls
	stage       int     // the stage being run; len(stages) when all are done
	names       []string
	interrupted bool
	aborted     bool
}

// NewBatch prepares calls (in the assistant message's order) against
// cfg's toolset and validator; with cfg.IntentTracing the agent__intent
// argument is taken out of each call first. id identifies the batch to the
// co-processes (informational).
func NewBatch(id string, calls []ToolCall, cfg Config) *Batch {
	ts, v := cfg.Tools, cfg.Validator
	b := &Batch{id: id, stage: -1}
	var runnable []int
	var conc []string
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	seen := map[string]bool{}
	for _, c := range calls {
		if cfg.IntentTracing {
			c.Arguments, c.intent = StripIntent(c.Arguments)
		}
		bc := &batchCall{call: c, args: c.Arguments}
		if len(bc.args) == 0 {
			bc.args = json.RawMessage("{}")
		}
		b.calls = append(b.calls, bc)
		t, found := ts.Lookup(c.Name)
		switch {
		case seen[c.ID]:
			// Results are matched to calls by id: a second call with the
			// same id cannot run.
			bc.state, bc.out = finished, textOutcome(fmt.Sprintf(textDuplicateFmt, c.ID))
		case !found:
			bc.state, bc.out = finished, textOutcome(fmt.Sprintf(textNotFoundFmt, c.Name))
		default:
			bc.tool = t
			if v != nil {
				args, err := v.Validate(c.Name, c.Arguments)
				if err != nil {
					bc.state, bc.out = finished, textOutcome(err.Error())
					break
				}
				bc.args = args
			}
			runnable = append(runnable, len(b.calls)-1)
			conc = append(conc, t.Concurrency)
		}
		seen[c.ID] = true
	}
	for _, st := range Plan(conc) {
		idx := make([]int, len(st))
		for i, j := range st {
			idx[i] = runnable[j]
		}
		b.stages = append(b.stages, idx)
	}
	b.names = names
	return b
}

// Next returns the calls to send now: the next stage once every call of
// the current one has its result; nil while calls are running, after an
// interrupt or abort, or when everything is done.
func (b *Batch) Next() []Dispatch {
	if b.interrupted || b.aborted {
		return nil
	}
	if b.stage >= 0 && b.stage < len(b.stages) {
		for _, i := range b.stages[b.stage] {
			if b.calls[i].state != finished {
				return nil
			}
		}
	}
	if b.stage >= len(b.stages) {
		return nil
	}
	b.stage++
	if b.stage >= len(b.stages) {
		return nil
	}
	var out []Dispatch
	for _, i := range b.stages[b.stage] {
		c := b.calls[i]
		c.state, c.started = running, true
		out = append(out, Dispatch{
			Source: c.tool.Source,
			Call: event.Call{Type: event.ToolCall, ID: c.call.ID, Name: c.call.Name, Arguments: c.args,
				Batch: &event.Batch{ID: b.id, Index: i, Names: b.names}},
			Start: b.startEvent(c),
		})
	}
	return out
}

func (b *Batch) startEvent(c *batchCall) event.Event {
	return event.Event{Type: event.ToolExecutionStart, ToolCallID: c.call.ID, ToolName: c.call.Name, Args: c.args, Intent: c.call.intent}
}

// find is the call with this id that can take an update or result (the
// first one: duplicates are finished from the start).
func (b *Batch) find(id string) *batchCall {
	for _, c := range b.calls {
		if c.call.ID == id {
			return c
		}
	}
	return nil
}

// Update turns a co-process's partial result into a tool_execution_update
// event; ok is false for an unknown or finished call (the update is dropped).
func (b *Batch) Update(u event.Update) (event.Event, bool) {
	c := b.find(u.ID)
	if c == nil || c.state != running {
		return event.Event{}, false
	}
	p := u.PartialResult
	return event.Event{Type: event.ToolExecutionUpdate, ToolCallID: c.call.ID, ToolName: c.call.Name, Args: c.args, PartialResult: &p}, true
}

// Result records a call's result; ok is false for an unknown call or a
// second result (ignored). A result that arrives after a steering
// interrupt is replaced by the "skipped" text, except for non-abortable
// tools, whose work is done and is reported as it is.
func (b *Batch) Result(r event.Result) bool {
	c := b.find(r.ID)
	if c == nil || c.state != running {
		return false
	}
	c.state = finished
	c.out = Outcome{Content: r.Content, Details: r.Details, IsError: r.IsError}
	if b.interrupted && !c.tool.NonAbortable {
		c.out = textOutcome(TextSkipped)
	}
	return true
}

// SourceExited fails every running call of co-process src with
// "tool process exited: <reason>" (the driver restarts the process once).
func (b *Batch) SourceExited(src int, reason string) {
	for _, c := range b.calls {
		if c.state == running && c.tool.Source == src {
			c.state, c.out = finished, textOutcome("tool process exited: "+reason)
		}
	}
}

// Interrupt stops the batch for queued steering messages: calls not yet
// sent are skipped, and running abortable calls are cancelled (their
// results, when they come, are reported as skipped).
func (b *Batch) Interrupt() []Cancel {
	if b.interrupted || b.aborted {
		return nil
	}
	b.interrupted = true
	return b.stop(TextSkipped)
}

// Abort stops the batch for a user abort: calls not yet sent get the
// "aborted" text, and running abortable calls are cancelled (their results
// are kept as the tool reports them).
func (b *Batch) Abort() []Cancel {
	if b.aborted {
		return nil
	}
	b.aborted = true
	return b.stop(TextAborted)
}

func (b *Batch) stop(text string) []Cancel {
	var out []Cancel
	for _, c := range b.calls {
		switch c.state {
		case pending:
			c.state, c.out = finished, textOutcome(text)
		case running:
			if !c.tool.NonAbortable {
				out = append(out, Cancel{Source: c.tool.Source, Cancel: event.Cancel{Type: event.ToolCancel, ID: c.call.ID}})
			}
		}
	}
	return out
}

// Done reports whether every call has its outcome and no stage is left.
func (b *Batch) Done() bool {
	for _, c := range b.calls {
		if c.state != finished {
			return false
		}
	}
	return true
}

// Finish gives, in call order, each call's events (a late
// tool_execution_start for a call never sent, tool_execution_end, then
// message_start/message_end of its toolResult message stamped now) and the
// toolResult messages. Call it once Done.
func (b *Batch) Finish(now int64) ([]event.Event, []json.RawMessage) {
	var evs []event.Event
	var msgs []json.RawMessage
	for _, c := range b.calls {
		if !c.started {
			evs = append(evs, b.startEvent(c))
			c.started = true
		}
		content := c.out.Content
		if content == nil {
			content = []event.Content{}
		}
		details := c.out.Details
		if len(details) == 0 {
			details = json.RawMessage("{}")
		}
		evs = append(evs, event.Event{Type: event.ToolExecutionEnd, ToolCallID: c.call.ID, ToolName: c.call.Name,
			Result: &event.ToolOutput{Content: content, Details: details}, IsError: bptr(c.out.IsError)})
		m := mustJSON(ToolResultMessage{Role: "toolResult", ToolCallID: c.call.ID, ToolName: c.call.Name,
			Content: content, Details: c.out.Details, IsError: c.out.IsError, Timestamp: now})
		evs = append(evs, event.Event{Type: event.MessageStart, Message: m}, event.Event{Type: event.MessageEnd, Message: m})
		msgs = append(msgs, m)
	}
	return evs, msgs
}
