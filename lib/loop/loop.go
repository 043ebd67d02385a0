package loop

import (
	"encoding/json"
	"fmt"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/jsonschema"
)

// Done reasons: why a run ended.
const (
	EndStop     = "stop"      // the model stopped and nothing was queued
	EndError    = "error"     // the last assistant message is an error
	EndAborted  = "aborted"   // the user aborted
	EndMaxTurns = "max_turns" // --max-turns was reached with work left
)

// DefaultReserveTokens is compaction.reserveTokens of the reference agent.
const DefaultReserveTokens = 16384

// Config holds what the loop needs to decide.
type Config struct {
	Tools     *Toolset
	Validator *jsonschema.Validator // nil: no argument validation
	// MaxTurns caps the model calls of one run; 0 is no cap.
	MaxTurns  int
	Interrupt InterruptMode
	// ContextWindow enables the compaction_suggested check at the end of a
	// successful run (0 disables it); ReserveTokens defaults to 16384.
	ContextWindow int
	ReserveTokens int
	// IntentTracing takes agent__intent out of each call's arguments and
	// reports it on tool_execution_start. The model gets WithIntent's
	// schemas; Validator is built from the tools' own schemas.
	IntentTracing bool
}

// Step is what the driver does next, in this order: write Events, send
// Cancel and Dispatch messages to the co-processes (writing each
// Dispatch's Start event as it is sent), then call the model when
// CallModel, or stop when Done is set. With none of those, wait for the
// next tool message or control command.
type Step struct {
	Events    []event.Event
	Cancel    []Cancel
	Dispatch  []Dispatch
	CallModel bool
	Done      *Done
}

// Done ends a run.
type Done struct {
	Reason string
	// Last is the last assistant message (nil when none was produced).
	Last json.RawMessage
	// Unsent are queued messages the run did not deliver (max turns, abort).
	Unsent []json.RawMessage
}

type phase int

const (
	idle phase = iota
	modelCall
	tools
	ended
)

// Loop is the turn state machine of one run (pi's agentLoop): feed it the
// run's prompts, each final assistant message, tool updates and results,
// and control commands; it answers with Steps.
type Loop struct {
	cfg       Config
	Queue     *Queue
	context   []json.RawMessage
	added     []json.RawMessage
	turns     int
	phase     phase
	aborted   bool
	assistant json.RawMessage
	parsed    Assistant
	batch     *Batch
	lastOK    *Assistant // the last assistant message that was not an error
}

// New starts a loop over the context (the messages the model sees before
// this run's prompts). q may be nil (no steering).
func New(cfg Config, context []json.RawMessage, q *Queue) *Loop {
	if q == nil {
		q = &Queue{}
	}
	if cfg.ReserveTokens == 0 {
		cfg.ReserveTokens = DefaultReserveTokens
	}
	return &Loop{cfg: cfg, Queue: q, context: append([]json.RawMessage(nil), context...)}
}

// SetTools replaces the toolset and validator (a co-process sent a new
// "tools" list); the batch of the next assistant message uses them.
func (l *Loop) SetTools(ts *Toolset, v *jsonschema.Validator) {
	l.cfg.Tools, l.cfg.Validator = ts, v
}

// Context is the message list for the next model call.
func (l *Loop) Context() []json.RawMessage { return l.context }

// Turns is the number of model calls so far.
func (l *Loop) Turns() int { return l.turns }

// Start begins the run: agent_start, turn_start and the prompts (with any
// steering message already queued) as message_start/message_end, then a
// model call. No prompts means continuing from the context (see Prepare).
func (l *Loop) Start(prompts []json.RawMessage) Step {
	if l.phase != idle {
		return Step{}
	}
	prompts = append(append([]json.RawMessage(nil), prompts...), l.Queue.TakeSteering()...)
	s := Step{Events: []event.Event{{Type: event.AgentStart}}}
	return l.nextTurn(s, prompts)
}

func (l *Loop) nextTurn(s Step, pending []json.RawMessage) Step {
	if l.cfg.MaxTurns > 0 && l.turns >= l.cfg.MaxTurns {
		return l.end(s, EndMaxTurns, append(pending, l.Queue.Drain()...))
	}
	l.turns++
	s.Events = append(s.Events, event.Event{Type: event.TurnStart})
	for _, m := range pending {
		s.Events = append(s.Events, event.Event{Type: event.MessageStart, Message: m}, event.Event{Type: event.MessageEnd, Message: m})
		l.context = append(l.context, m)
		l.added = append(l.added, m)
	}
	l.phase = modelCall
	s.CallModel = true
	return s
}

// AssistantDone takes the final assistant message of a model call (the
// driver has streamed it and written its message_* events). Only the final
// attempt is passed: a failed attempt the driver retries (marked
// "retried") never reaches the loop. An error or aborted message ends the
// run, its tool calls unrun and without results (as pi's loop ends it);
// tool calls start a batch; otherwise the turn ends.
func (l *Loop) AssistantDone(msg json.RawMessage, now int64) (Step, error) {
	if l.phase != modelCall {
		return Step{}, fmt.Errorf("loop: assistant message while not waiting for the model")
	}
	a, err := ParseAssistant(msg)
	if err != nil {
		return Step{}, err
	}
	l.assistant, l.parsed = msg, a
	l.context = append(l.context, msg)
	l.added = append(l.added, msg)
	if a.StopReason == StopError || a.StopReason == StopAborted {
		// Its tool calls never run and get no results, as in pi's agent
		// loop: the message is not sent to the model again (llm.NormalizeEach
		// leaves it out, as pi does), and a result answering it would
		// answer no call when pi continues the session.
		s := Step{Events: []event.Event{{Type: event.TurnEnd, Message: msg, ToolResults: []json.RawMessage{}}}}
		reason := EndError
		if a.StopReason == StopAborted || l.aborted {
			reason = EndAborted
		}
		return l.end(s, reason, l.Queue.Drain()), nil
	}
	l.lastOK = &a
	if len(a.ToolCalls) == 0 {
		return l.finishTurn(Step{}, now), nil
	}
	l.batch = NewBatch(fmt.Sprintf("turn-%d", l.turns), a.ToolCalls, l.cfg)
	l.phase = tools
	if l.aborted {
		return l.Abort(now), nil
	}
	return l.advance(Step{}, now), nil
}

// advance dispatches the next stage or, when the batch is done, ends the turn.
func (l *Loop) advance(s Step, now int64) Step {
	for {
		if l.batch.Done() {
			return l.finishTurn(s, now)
		}
		d := l.batch.Next()
		if len(d) == 0 {
			return s // calls are running
		}
		s.Dispatch = append(s.Dispatch, d...)
	}
}

// ToolUpdate turns a co-process update into its event (none for an
// unknown call).
func (l *Loop) ToolUpdate(u event.Update) Step {
	if l.phase != tools {
		return Step{}
	}
	if e, ok := l.batch.Update(u); ok {
		return Step{Events: []event.Event{e}}
	}
	return Step{}
}

// ToolResult takes a co-process result. In immediate interrupt mode a
// queued steering message now interrupts the rest of the batch.
func (l *Loop) ToolResult(r event.Result, now int64) Step {
	if l.phase != tools || !l.batch.Result(r) {
		return Step{}
	}
	var s Step
	if l.cfg.Interrupt != Wait && l.Queue.HasSteering() && !l.batch.Done() {
		s.Cancel = l.batch.Interrupt()
	}
	return l.advance(s, now)
}

// SourceExited fails the running calls of co-process src (it died).
func (l *Loop) SourceExited(src int, reason string, now int64) Step {
	if l.phase != tools {
		return Step{}
	}
	l.batch.SourceExited(src, reason)
	return l.advance(Step{}, now)
}

// Steer and FollowUp queue a user message (see Queue).
func (l *Loop) Steer(m json.RawMessage)    { l.Queue.Steer(m) }
func (l *Loop) FollowUp(m json.RawMessage) { l.Queue.FollowUp(m) }

// Abort stops the run. While tools run, it cancels them and the run ends
// when their results are in; while the model streams, the driver cancels
// the request and the aborted message it gets ends the run.
func (l *Loop) Abort(now int64) Step {
	if l.phase == ended {
		return Step{}
	}
	l.aborted = true
	if l.phase != tools {
		return Step{}
	}
	s := Step{Cancel: l.batch.Abort()}
	return l.advance(s, now)
}

func (l *Loop) finishTurn(s Step, now int64) Step {
	var results []json.RawMessage
	if l.batch != nil {
		evs, rs := l.batch.Finish(now)
		s.Events = append(s.Events, evs...)
		results = rs
		l.context = append(l.context, rs...)
		l.added = append(l.added, rs...)
	}
	l.batch = nil
	s.Events = append(s.Events, event.Event{Type: event.TurnEnd, Message: l.assistant, ToolResults: nonNil(results)})
	if l.aborted {
		return l.end(s, EndAborted, l.Queue.Drain())
	}
	pending := l.Queue.TakeSteering()
	if len(l.parsed.ToolCalls) > 0 || len(pending) > 0 {
		return l.nextTurn(s, pending)
	}
	if f := l.Queue.TakeFollowUps(); len(f) > 0 {
		return l.nextTurn(s, f)
	}
	return l.end(s, EndStop, nil)
}

func (l *Loop) end(s Step, reason string, unsent []json.RawMessage) Step {
	if (reason == EndStop || reason == EndMaxTurns) && l.lastOK != nil && l.cfg.ContextWindow > 0 {
		tokens := l.lastOK.Usage.ContextTokens()
		if CompactionThreshold(tokens, l.cfg.ContextWindow, l.cfg.ReserveTokens) {
			s.Events = append(s.Events, CompactionSuggested(tokens, l.cfg.ContextWindow))
		}
	}
	s.Events = append(s.Events, event.Event{Type: event.AgentEnd, Messages: nonNil(l.added)})
	l.phase = ended
	s.CallModel = false
	s.Done = &Done{Reason: reason, Last: l.assistant, Unsent: unsent}
	return s
}

func nonNil(s []json.RawMessage) []json.RawMessage {
	if s == nil {
		return []json.RawMessage{}
	}
	return s
}
