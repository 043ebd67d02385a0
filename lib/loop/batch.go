package loop

import (
	"encoding/json"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
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

// Dispatch is a call for the driver to run on tool co-process Source: it
// sends Call, turns the co-process's updates into ToolUpdate(Index, …)
// and its result into ToolResult(Index, …). Call.Arguments are the
// validated arguments. Abortable says whether an interrupt sends cancel
// (a non-abortable tool finishes its work).
type Dispatch struct {
	Index     int
	Source    int
	Call      event.Call
	Abortable bool
}

// batch is the tool calls of one assistant message, run stage by stage.
type batch struct {
	calls   []llm.Content
	stages  [][]int
	stage   int // the stage being run (-1 before the first)
	args    []json.RawMessage
	results []llm.Message
	done    []bool
}

func newBatch(calls []llm.Content, ts *Toolset) *batch {
	conc := make([]string, len(calls))
	for i, c := range calls {
		conc[i] = event.Shared
		if t, ok := ts.Lookup(c.Name); ok {
			conc[i] = t.Concurrency
		}
	}
	n := len(calls)
	return &batch{calls: calls, stages: Plan(conc), stage: -1, args: make([]json.RawMessage, n),
		results: make([]llm.Message, n), done: make([]bool, n)}
}

// stageDone reports whether every call of the current stage has its result.
func (b *batch) stageDone() bool {
	if b.stage < 0 {
		return true
	}
	for _, i := range b.stages[b.stage] {
		if !b.done[i] {
			return false
		}
	}
	return true
}

// endEvents are the tool_execution_end events of the current stage.
func (b *batch) endEvents() []event.Event {
	if b.stage < 0 {
		return nil
	}
	var evs []event.Event
	for _, i := range b.stages[b.stage] {
		r := b.results[i]
		isErr := r.IsError
		var content []event.Content
		for _, c := range r.Content {
			content = append(content, event.Content{Type: c.Type, Text: c.Text, Data: c.Data, MimeType: c.MimeType})
		}
		evs = append(evs, event.Event{Type: event.ToolExecutionEnd, ToolCallID: r.ToolCallID, ToolName: r.ToolName, IsError: &isErr,
			Result: &event.ToolOutput{Content: content, Details: r.Details}})
	}
	return evs
}

// start opens the next stage: a tool_execution_start event for each of its
// calls, and either a synthetic result (unknown tool, arguments that fail
// validation, an aborted run) or a dispatch.
func (l *Loop) startStage(s *Step, now int64) {
	b := l.batch
	b.stage++
	for _, i := range b.stages[b.stage] {
		c := b.calls[i]
		s.Events = append(s.Events, event.Event{Type: event.ToolExecutionStart, ToolCallID: c.ID, ToolName: c.Name, Args: c.Arguments})
		tool, ok := l.cfg.Tools.Lookup(c.Name)
		args, err := json.RawMessage(nil), error(nil)
		if ok {
			args, err = l.cfg.Validator.Validate(c.Name, c.Arguments)
		}
		switch {
		case !ok:
			b.results[i], b.done[i] = toolResult(c, notFound(c.Name), now), true
		case err != nil:
			b.results[i], b.done[i] = toolResult(c, err.Error(), now), true
		case l.aborted:
			b.results[i], b.done[i] = toolResult(c, TextAborted, now), true
		default:
			b.args[i] = args
			s.Dispatch = append(s.Dispatch, Dispatch{Index: i, Source: tool.Source, Abortable: !tool.NonAbortable,
				Call: event.Call{ID: c.ID, Name: c.Name, Arguments: args}})
		}
	}
}
