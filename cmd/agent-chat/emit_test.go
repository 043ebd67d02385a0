package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
)

// The throttle merges deltas that follow a written one closely, but the
// first delta of a block is written at once: it is the first character a
// person waits for.
func TestThrottleWritesFirstDeltaAtOnce(t *testing.T) {
	var out bytes.Buffer
	now := time.Unix(0, 0)
	e := newEmitter(&out, "compact", 50*time.Millisecond, func() time.Time { return now })
	idx := 0
	ev := func(typ, delta string, after time.Duration) {
		now = now.Add(after)
		e.update(llm.Event{Type: typ, ContentIndex: &idx, Delta: delta})
	}
	lines := func() int { return strings.Count(out.String(), "\n") }
	ev("text_start", "", 0)
	if lines() != 1 {
		t.Fatalf("text_start not written: %q", out.String())
	}
	ev("text_delta", "a", 10*time.Millisecond)
	if lines() != 2 || !strings.Contains(out.String(), `"delta":"a"`) {
		t.Fatalf("the first delta waited: %q", out.String())
	}
	ev("text_delta", "b", 10*time.Millisecond)
	ev("text_delta", "c", 10*time.Millisecond)
	if lines() != 2 {
		t.Fatalf("deltas inside the window were not merged: %q", out.String())
	}
	ev("text_delta", "d", 40*time.Millisecond)
	if lines() != 3 || !strings.Contains(out.String(), `"delta":"bcd"`) {
		t.Fatalf("merged deltas not written after the window: %q", out.String())
	}
}

// The events of a batch go out together, at its end or when it flushes
// (a quiet point of the stream): one write wakes the next stage once.
func TestBatchWritesTogether(t *testing.T) {
	var out bytes.Buffer
	e := newEmitter(&out, "compact", 0, time.Now)
	e.batch(func() {
		e.emit(event.AgentStart, nil)
		e.emit(event.TurnStart, nil)
		if out.Len() != 0 {
			t.Fatalf("written inside the batch: %q", out.String())
		}
		e.flush()
		if n := strings.Count(out.String(), "\n"); n != 2 {
			t.Fatalf("flush wrote %d lines: %q", n, out.String())
		}
		e.emit(event.TurnEnd, nil)
	})
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Fatalf("the batch's end wrote %d lines in all: %q", n, out.String())
	}
	e.emit(event.AgentEnd, nil)
	if n := strings.Count(out.String(), "\n"); n != 4 {
		t.Fatalf("an event after the batch waited: %q", out.String())
	}
}

// TestCheckpointGate: while the checkpoint's scan goes on, what the run
// writes waits behind it (the request is already out); the entry goes
// first, then the rest in order, whether the scan ends before a later
// write or is waited for (a tool about to run, the run's end).
func TestCheckpointGate(t *testing.T) {
	for _, waited := range []bool{false, true} {
		var out bytes.Buffer
		var warned []string
		e := newEmitter(&out, "compact", 0, time.Now)
		g := &scan{done: make(chan struct{}), warnings: []string{"checkpoint: big.bin: not kept"}}
		e.gate, e.warn = g, func(s string) { warned = append(warned, s) }
		e.emit(event.MessageEnd, func(ev *event.Event) { ev.Message = []byte(`{"role":"user"}`) })
		e.emit(event.TurnStart, nil)
		if out.Len() != 0 {
			t.Fatalf("written before the scan ended: %q", out.String())
		}
		g.entry = &event.Event{Type: event.Entry, Entry: []byte(`{"type":"checkpoint"}`)}
		close(g.done)
		if waited {
			e.wait()
		} else {
			e.emit(event.TurnEnd, nil)
		}
		got := out.String()
		i, j, k := strings.Index(got, `"checkpoint"`), strings.Index(got, `"role":"user"`), strings.Index(got, `"turn_start"`)
		if i < 0 || j < i || k < j {
			t.Errorf("waited %v: not the entry, the prompt, the turn in order:\n%s", waited, got)
		}
		if len(warned) != 1 || e.gate != nil {
			t.Errorf("waited %v: warnings %q, gate %v", waited, warned, e.gate)
		}
	}
}
