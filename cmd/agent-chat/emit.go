package main

import (
	"bufio"
	"encoding/json"
	"io"
	"time"

	"github.com/agentutils/agentutils/lib/claudestream"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
)

const defaultThrottle = 50 * time.Millisecond

// emitter writes agent events as JSON Lines, flushing after each event so
// the next stage sees them as they happen (events made together, in a
// batch, are flushed together). Deltas are coalesced over the
// throttle window (consecutive deltas of one block are merged). The window
// starts at a written delta: the first delta of a block, or one after a
// quiet spell as long as the window, is written at once (it is on the way
// to a person's first character), only the deltas that follow it close
// behind are merged.
type emitter struct {
	w        *bufio.Writer
	mode     string // compact | full | final
	throttle time.Duration
	now      func() time.Time
	pending  *llm.Event // a buffered delta
	last     time.Time  // when the last delta was written (zero after another event)
	err      error
	// claude, when set, turns every event into Claude Code's stream-json
	// (--output-format claude) instead of writing it.
	claude *claudestream.Translator
	turns  int // turn_start events written
	// held: what is written waits for flush (batch): the events of one
	// loop step, or of one read of the model's stream, go out in one write
	// (each write wakes the next stage; a burst is one wake-up).
	held bool
	// gate: a checkpoint's scan whose entry goes before what is written
	// meanwhile (queued); warn says its warnings.
	gate   *scan
	queued []event.Event
	warn   func(string)
}

// wait lets the checkpoint's scan end, then writes its entry and what
// waited behind it: before a tool runs, and at the run's end.
func (e *emitter) wait() {
	if e.gate == nil {
		return
	}
	<-e.gate.done
	g, q := e.gate, e.queued
	e.gate, e.queued = nil, nil
	for _, w := range g.warnings {
		e.warn(w)
	}
	if g.entry != nil {
		e.write(*g.entry)
	}
	for _, ev := range q {
		e.write(ev)
	}
}

// batch runs fn with the output held, then flushes it; fn may flush
// earlier (at each quiet point of a stream).
func (e *emitter) batch(fn func()) {
	e.held = true
	defer func() {
		e.held = false
		e.flush()
	}()
	fn()
}

// flush writes what is held.
func (e *emitter) flush() {
	if err := e.w.Flush(); err != nil && e.err == nil {
		e.err = err
	}
}

func newEmitter(w io.Writer, mode string, throttle time.Duration, now func() time.Time) *emitter {
	return &emitter{w: bufio.NewWriter(w), mode: mode, throttle: throttle, now: now}
}

func (e *emitter) write(ev event.Event) {
	if e.gate != nil {
		select {
		case <-e.gate.done:
			e.wait()
		default:
			e.queued = append(e.queued, ev)
			return
		}
	}
	if e.claude != nil {
		lines, err := e.claude.Event(ev, e.now().UnixMilli())
		for _, l := range lines {
			e.w.Write(l)
			if len(l) == 0 || l[len(l)-1] != '\n' {
				e.w.WriteByte('\n')
			}
		}
		if err == nil && !e.held {
			err = e.w.Flush()
		}
		if err != nil && e.err == nil {
			e.err = err
		}
		return
	}
	b, err := event.Encode(ev)
	if err == nil {
		_, err = e.w.Write(b)
	}
	if err == nil && !e.held {
		err = e.w.Flush()
	}
	if err != nil && e.err == nil {
		e.err = err
	}
}

// finish ends a claude stream with its result line.
func (e *emitter) finish() {
	if e.claude == nil {
		return
	}
	if l := e.claude.Finish(e.now().UnixMilli()); l != nil {
		e.w.Write(l)
		if l[len(l)-1] != '\n' {
			e.w.WriteByte('\n')
		}
		e.w.Flush()
	}
}

// emit writes one event, filled in by fill.
func (e *emitter) emit(typ string, fill func(*event.Event)) {
	ev := event.Event{Type: typ}
	if fill != nil {
		fill(&ev)
	}
	e.event(ev)
}

// event writes one event given as a value, after any buffered delta.
func (e *emitter) event(ev event.Event) {
	e.flushDelta()
	if ev.Type == event.TurnStart {
		e.turns++
	}
	e.write(ev)
}

func isDelta(t string) bool {
	return t == "text_delta" || t == "thinking_delta" || t == "toolcall_delta"
}

// model writes one event of the model's stream: message_start with the
// first partial message (started says it was written), then updates.
func (e *emitter) model(ev llm.Event, started *bool) {
	if !*started && ev.Partial != nil {
		*started = true
		m := msgJSON(ev.Partial)
		e.emit(event.MessageStart, func(e *event.Event) { e.Message = m })
	}
	switch ev.Type {
	case "start", "done", "error":
	default:
		e.update(ev)
	}
}

// update handles one stream event of the assistant message.
func (e *emitter) update(ev llm.Event) {
	if e.mode == "final" {
		return
	}
	if isDelta(ev.Type) && e.throttle > 0 {
		if p := e.pending; p != nil && p.Type == ev.Type && *p.ContentIndex == *ev.ContentIndex {
			p.Delta += ev.Delta
			p.Partial = ev.Partial
		} else {
			e.flushDelta()
			c := ev
			e.pending = &c
		}
		if e.now().Sub(e.last) >= e.throttle {
			e.flushDelta()
		}
		return
	}
	e.flushDelta()
	e.writeUpdate(ev)
}

func (e *emitter) flushDelta() {
	if e.pending != nil {
		p := *e.pending
		e.pending = nil
		e.writeUpdate(p)
	}
}

func (e *emitter) writeUpdate(ev llm.Event) {
	if isDelta(ev.Type) {
		e.last = e.now()
	} else {
		e.last = time.Time{} // a block's first delta goes out at once
	}
	partial := ev.Partial
	if e.mode != "full" {
		ev.Partial = nil
		ev.Message, ev.Error = nil, nil // the terminal message comes with message_end
	}
	ame, _ := json.Marshal(ev)
	out := event.Event{Type: event.MessageUpdate, AssistantMessageEvent: ame}
	if e.mode == "full" && partial != nil {
		out.Message, _ = json.Marshal(partial)
	}
	e.write(out)
}

func msgJSON(m any) json.RawMessage {
	b, _ := json.Marshal(m)
	return b
}
