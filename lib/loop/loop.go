package loop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/jsonschema"
	"github.com/agentutils/agentutils/lib/llm"
)

// Action is what the driver does once it has written a Step's events.
type Action int

const (
	// CallModel: stream one model call with Context() and Thinking(),
	// writing message_start and the updates, then give the final message
	// to ModelDone.
	CallModel Action = iota + 1
	// Wait: sleep Delay before retrying, then call Retry; on an interrupt
	// meanwhile, RetryCancelled.
	Wait
	// RunTools: run each of Dispatch (concurrently), restarting dead tool
	// processes first when Revive is set; feed their updates to ToolUpdate
	// and their results to ToolResult, and an interrupt to Abort.
	RunTools
	// StopHook: fire the Stop hook (stop_hook_active: HookActive) and give
	// its verdict to StopHookDone.
	StopHook
	// Done: the run is over; Err is how it ends (nil: exit 0), Warning a
	// line for stderr.
	Done
)

// Step is the loop's answer to each input: events to write, then an action.
type Step struct {
	Events     []event.Event
	Action     Action
	Delay      time.Duration
	Dispatch   []Dispatch
	Revive     bool
	HookActive bool
	Err        error
	Warning    string
}

// Config holds what the loop needs to decide.
type Config struct {
	Model llm.Model
	// Context is the system prompt, the history and the tools offered;
	// the loop adds this run's messages.
	Context  llm.Context
	Thinking string // the starting thinking level
	// Tools are the co-processes' tools (nil: tool calls end the run, for
	// --once, --no-tools and --tools-json); Validator checks arguments.
	Tools     *Toolset
	Validator *jsonschema.Validator
	// MaxTurns caps the model calls of one run: no turn starts at it.
	MaxTurns  int
	Retries   int           // retries of a transient provider error
	RetryBase time.Duration // the first retry's delay, doubling
	Control   bool          // --control: follow-ups can continue a run
	StopHooks bool          // a Stop hook can continue a run
	// Answer, when set, is the JSON Schema the final answer must match
	// (--json-schema): one that does not is sent back, AnswerRetries times.
	Answer *jsonschema.Schema
}

// Loop is agent-chat's run as a state machine (pi's agentLoop): the
// decisions of turns, retries, tool batches, steering and follow-ups,
// Stop hooks, max turns, overflow and compaction, none of the I/O. It is
// not safe for concurrent use: the driver calls it from one goroutine.
type Loop struct {
	cfg      Config
	ctx      llm.Context
	thinking string
	added    []json.RawMessage // every message of this run, for agent_end
	turns    int
	attempt  int
	final    llm.Message // the last model answer
	batch    *batch

	steer, follow []llm.Message // queued by --control
	notices       []Notice      // queued by the tool processes
	level         string        // a pending thinking level
	moved         bool          // the follow-ups of this turn are already in
	stopped       bool          // a Stop hook already continued the run
	aborted       bool
	answerTries   int // final answers sent back for not matching Config.Answer
}

// New starts a loop.
func New(cfg Config) *Loop {
	l := &Loop{cfg: cfg, ctx: cfg.Context, thinking: cfg.Thinking}
	l.ctx.Messages = append([]llm.Message(nil), cfg.Context.Messages...)
	return l
}

// Context is what the next model call sends.
func (l *Loop) Context() llm.Context { return l.ctx }

// Thinking is the thinking level of the next model call.
func (l *Loop) Thinking() string { return l.thinking }

// Steer queues a message for the start of the next turn; FollowUp one for
// when the agent would stop; SetThinking a level for the next turn.
func (l *Loop) Steer(m llm.Message)      { l.steer = append(l.steer, m) }
func (l *Loop) FollowUp(m llm.Message)   { l.follow = append(l.follow, m) }
func (l *Loop) SetThinking(level string) { l.level = level }

// Notice is news a tool process sent unasked (formats/tool-protocol's
// notice: a background job ended).
type Notice struct {
	CustomType string
	Text       string
	Details    json.RawMessage
	Timestamp  int64
}

// Notice queues a tool process's notice for the start of the next turn:
// a custom message (shown to people) that the model reads as a user
// message. A notice never starts a turn: one left when the run ends is
// written by Notices.
func (l *Loop) Notice(n Notice) { l.notices = append(l.notices, n) }

// Notices are the events of the notices still queued (the run is over:
// they go into the session, and the model reads them at its next prompt).
func (l *Loop) Notices() []event.Event {
	var s Step
	l.addNotices(&s)
	return s.Events
}

// addNotices adds the queued notices to the run: custom messages in the
// events and the session, user messages in the context.
func (l *Loop) addNotices(s *Step) {
	for _, n := range l.notices {
		r := raw(struct {
			Role       string          `json:"role"`
			CustomType string          `json:"customType"`
			Content    string          `json:"content"`
			Display    bool            `json:"display"`
			Details    json.RawMessage `json:"details,omitempty"`
			Timestamp  int64           `json:"timestamp"`
		}{"custom", n.CustomType, n.Text, true, n.Details, n.Timestamp})
		l.ctx.Messages = append(l.ctx.Messages, llm.Message{Role: "user", Content: []llm.Content{llm.TextBlock(n.Text)}, Timestamp: n.Timestamp})
		l.added = append(l.added, r)
		s.Events = append(s.Events, event.Event{Type: event.MessageStart, Message: r}, event.Event{Type: event.MessageEnd, Message: r})
	}
	l.notices = nil
}

// Abort records an interrupt: calls not yet sent get the aborted text and
// the run ends after the current model call or tool batch.
func (l *Loop) Abort() { l.aborted = true }

// FinalText is the text of the last assistant message (the Stop hook's
// last_assistant_message).
func (l *Loop) FinalText() string { return l.final.Text() }

// Start begins the run with the prompt (nil: continue from the context).
func (l *Loop) Start(prompt *llm.Message) Step {
	s := Step{Events: []event.Event{{Type: event.AgentStart}, {Type: event.TurnStart}}}
	l.addNotices(&s) // what happened before the prompt comes before it
	if prompt != nil {
		l.message(&s, *prompt)
	}
	return l.nextTurn(s)
}

// nextTurn counts a turn, takes queued steering and asks for a model call.
func (l *Loop) nextTurn(s Step) Step {
	l.turns++
	if l.moved {
		l.moved = false
	} else {
		l.applyControl(&s, false)
	}
	s.Action = CallModel
	return s
}

// message adds a message to the context with its message_start/end.
func (l *Loop) message(s *Step, m llm.Message) json.RawMessage {
	l.ctx.Messages = append(l.ctx.Messages, m)
	r := raw(m)
	l.added = append(l.added, r)
	s.Events = append(s.Events, event.Event{Type: event.MessageStart, Message: r}, event.Event{Type: event.MessageEnd, Message: r})
	return r
}

// applyControl moves queued control input into the run: a new thinking
// level (with its entry event) and the steering messages, with the
// follow-ups too when the agent would stop. It reports whether any
// message was added.
func (l *Loop) applyControl(s *Step, stopping bool) bool {
	if !stopping { // a notice does not continue a run that would stop
		l.addNotices(s)
	}
	msgs := l.steer
	l.steer = nil
	if stopping {
		msgs = append(msgs, l.follow...)
		l.follow = nil
	}
	if l.level != "" {
		l.thinking = l.cfg.Model.ClampThinking(l.level)
		l.level = ""
		s.Events = append(s.Events, ThinkingEntry(l.thinking))
	}
	for _, m := range msgs {
		l.message(s, m)
	}
	return len(msgs) > 0
}

// ModelDone takes the final message of a model call; aborted says the
// run was interrupted meanwhile. A transient error is retried (the
// message kept in the history marked "retried", left out of the context).
func (l *Loop) ModelDone(final llm.Message, aborted bool, now int64) Step {
	llm.UniqueToolCallIDs(&final, l.toolCallTaken)
	if aborted {
		l.aborted = true
		final.StopReason, final.ErrorMessage = llm.StopAborted, textReqAborted
	}
	l.final = final
	retry := final.StopReason == llm.StopError && llm.IsRetryable(final, l.cfg.Model.ContextWindow) && l.attempt < l.cfg.Retries
	m := raw(final)
	if retry {
		m = append(m[:len(m)-1:len(m)-1], `,"retried":true}`...)
	}
	l.added = append(l.added, m)
	s := Step{Events: []event.Event{{Type: event.MessageEnd, Message: m}}}
	if retry {
		delay := l.cfg.RetryBase << l.attempt
		if hint := llm.RetryHint(final.ErrorMessage); hint > delay {
			delay = hint
		}
		s.Events = append(s.Events, event.Event{Type: event.AutoRetryStart, Attempt: l.attempt + 1, MaxAttempts: l.cfg.Retries,
			DelayMs: delay.Milliseconds(), ErrorMessage: final.ErrorMessage})
		s.Action, s.Delay = Wait, delay
		return s
	}
	if l.attempt > 0 {
		ok := final.StopReason != llm.StopError && final.StopReason != llm.StopAborted
		e := event.Event{Type: event.AutoRetryEnd, Success: &ok, Attempt: l.attempt}
		if !ok {
			e.FinalError = final.ErrorMessage
		}
		s.Events = append(s.Events, e)
	}
	l.attempt = 0
	return l.afterCall(s, now)
}

// Retry makes the next attempt of a failed model call.
func (l *Loop) Retry() Step {
	l.attempt++
	return Step{Action: CallModel}
}

// RetryCancelled ends the run interrupted while it waited to retry.
func (l *Loop) RetryCancelled() Step {
	f := false
	s := Step{Events: []event.Event{{Type: event.AutoRetryEnd, Success: &f, Attempt: l.attempt + 1, FinalError: textRetryCancel}}}
	l.end(&s)
	s.Err = exit.Silent(exit.Interrupted)
	return s
}

// afterCall decides what a final answer leads to: its tool calls run, the
// turn limit answers them as not run, a follow-up or a blocking Stop hook
// starts another turn, or the run ends.
func (l *Loop) afterCall(s Step, now int64) Step {
	f, n := l.final, l.cfg.MaxTurns
	switch {
	case n > 0 && f.StopReason == llm.StopToolUse && l.cfg.Tools != nil && l.turns >= n:
		return l.maxTurns(s, now)
	case f.StopReason == llm.StopToolUse && l.cfg.Tools != nil && l.turns < n:
		l.ctx.Messages = append(l.ctx.Messages, f)
		l.batch = newBatch(f.ToolCalls(), l.cfg.Tools)
		s.Revive = true
		return l.advance(s, now)
	case f.StopReason == llm.StopStop && l.cfg.Control && l.turns < n && !l.aborted:
		// Follow-ups (and steering that came too late) start the next turn.
		l.ctx.Messages = append(l.ctx.Messages, f)
		if l.applyControl(&s, true) {
			s.Events = append(s.Events, l.turnEnd(nil), event.Event{Type: event.TurnStart})
			l.moved = true
			return l.nextTurn(s)
		}
		l.ctx.Messages = l.ctx.Messages[:len(l.ctx.Messages)-1]
	}
	if s, held := l.checkAnswer(s, now); held {
		return s
	}
	if f.StopReason == llm.StopStop && l.cfg.StopHooks && l.turns < n {
		s.Action, s.HookActive = StopHook, l.stopped
		return s
	}
	return l.finish(s)
}

// StopHookDone takes the Stop hook's verdict: a block continues the run
// with its reason as the prompt.
func (l *Loop) StopHookDone(block bool, reason string, now int64) Step {
	var s Step
	if !block {
		return l.finish(s)
	}
	l.stopped = true
	l.ctx.Messages = append(l.ctx.Messages, l.final)
	s.Events = append(s.Events, l.turnEnd(nil), event.Event{Type: event.TurnStart})
	l.message(&s, llm.Message{Role: "user", Content: []llm.Content{llm.TextBlock(reason)}, Timestamp: now})
	return l.nextTurn(s)
}

// maxTurns ends a run at the turn limit with calls left: each is answered
// as not run, so the session never holds a call without its result.
func (l *Loop) maxTurns(s Step, now int64) Step {
	n := l.cfg.MaxTurns
	l.ctx.Messages = append(l.ctx.Messages, l.final)
	raws := []json.RawMessage{}
	for _, c := range l.final.ToolCalls() {
		m := raw(toolResult(c, fmt.Sprintf(textMaxTurnsFmt, n), now))
		raws = append(raws, m)
		s.Events = append(s.Events, event.Event{Type: event.MessageStart, Message: m}, event.Event{Type: event.MessageEnd, Message: m})
	}
	l.added = append(l.added, raws...)
	s.Events = append(s.Events, l.turnEnd(raws), event.Event{Type: event.MaxTurns, MaxTurns: n},
		event.Event{Type: event.AgentEnd, Messages: l.added})
	s.Action, s.Err = Done, exit.Silent(exit.MaxTurns)
	s.Warning = fmt.Sprintf("stopped at --max-turns %d with %d tool call(s) left, answered as not run (agent-chat --continue goes on)", n, len(raws))
	return s
}

// ToolUpdate turns a running call's partial result into its event.
func (l *Loop) ToolUpdate(i int, partial event.ToolOutput) Step {
	s := Step{Action: RunTools}
	if b := l.batch; b != nil && i >= 0 && i < len(b.calls) && !b.done[i] {
		c := b.calls[i]
		s.Events = []event.Event{{Type: event.ToolExecutionUpdate, ToolCallID: c.ID, ToolName: c.Name, Args: b.args[i], PartialResult: &partial}}
	}
	return s
}

// ToolResult takes a dispatched call's result.
func (l *Loop) ToolResult(i int, r llm.Message, now int64) Step {
	s := Step{Action: RunTools}
	b := l.batch
	if b == nil || i < 0 || i >= len(b.calls) || b.done[i] {
		return s
	}
	b.results[i], b.done[i] = r, true
	return l.advance(s, now)
}

// advance ends the stage whose results are all in and opens the next
// ones; after the last, the turn ends.
func (l *Loop) advance(s Step, now int64) Step {
	b := l.batch
	for {
		if !b.stageDone() {
			s.Action = RunTools
			return s
		}
		s.Events = append(s.Events, b.endEvents()...)
		if b.stage+1 == len(b.stages) {
			return l.endBatch(s)
		}
		l.startStage(&s, now)
	}
}

// endBatch writes the results in call order and ends the turn.
func (l *Loop) endBatch(s Step) Step {
	b := l.batch
	l.batch = nil
	raws := []json.RawMessage{}
	for _, r := range b.results {
		m := raw(r)
		raws = append(raws, m)
		s.Events = append(s.Events, event.Event{Type: event.MessageStart, Message: m}, event.Event{Type: event.MessageEnd, Message: m})
	}
	l.added = append(l.added, raws...)
	l.ctx.Messages = append(l.ctx.Messages, b.results...)
	s.Events = append(s.Events, l.turnEnd(raws))
	if l.aborted {
		s.Events = append(s.Events, event.Event{Type: event.AgentEnd, Messages: l.added})
		s.Action, s.Err = Done, exit.Silent(exit.Interrupted)
		return s
	}
	s.Events = append(s.Events, event.Event{Type: event.TurnStart})
	return l.nextTurn(s)
}

// finish ends the run on the last answer: context_overflow,
// compaction_suggested, turn_end, agent_end and the exit.
func (l *Loop) finish(s Step) Step {
	f, m := l.final, l.cfg.Model
	overflow := f.StopReason == llm.StopError && llm.IsOverflow(f, m.ContextWindow)
	if overflow {
		s.Events = append(s.Events, event.Event{Type: event.ContextOverflow, ErrorMessage: f.ErrorMessage, Model: m.Ref(), ContextWindow: m.ContextWindow})
	}
	if u := f.Usage; f.StopReason != llm.StopError && f.StopReason != llm.StopAborted && u != nil && m.ContextWindow > 0 {
		if tokens := u.ContextTokens(); CompactionThreshold(tokens, m.ContextWindow, DefaultReserveTokens) {
			s.Events = append(s.Events, event.Event{Type: event.CompactionSuggested, Reason: "threshold", ContextTokens: tokens, ContextWindow: m.ContextWindow})
		}
	}
	l.end(&s)
	switch {
	case f.StopReason == llm.StopAborted:
		s.Err = exit.Silent(exit.Interrupted)
	case overflow:
		s.Err = exit.Silent(exit.Overflow)
	case f.StopReason == llm.StopError:
		s.Err = exit.Errorf(exit.Failure, "%s: %s", m.Ref(), f.ErrorMessage)
	}
	return s
}

// end closes the run: turn_end and agent_end.
func (l *Loop) end(s *Step) {
	s.Events = append(s.Events, l.turnEnd(nil), event.Event{Type: event.AgentEnd, Messages: l.added})
	s.Action = Done
}

func (l *Loop) turnEnd(results []json.RawMessage) event.Event {
	if results == nil {
		results = []json.RawMessage{}
	}
	return event.Event{Type: event.TurnEnd, Message: raw(l.final), ToolResults: results}
}

// toolCallTaken reports whether a tool call id is already used in the
// context: by a message of this run, or anywhere in the history (a plain
// search of its bytes for the quoted id; a false match only renames).
func (l *Loop) toolCallTaken(id string) bool {
	for _, m := range l.ctx.Messages {
		for _, c := range m.Content {
			if c.Type == "toolCall" && c.ID == id {
				return true
			}
		}
	}
	q, _ := json.Marshal(id)
	for _, h := range l.ctx.History {
		if bytes.Contains(h, q) {
			return true
		}
	}
	return false
}
