package loop

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/agentutils/agentutils/lib/event"
)

// Reply is an answer to send to the co-process Source.
type Reply struct {
	Source int
	Answer event.Answer
}

// Asks routes interactive asks (a co-process's "request") to the user and
// their answers back. Request ids are the co-process's own, so two
// processes may both use "r1": the id the user sees is "<source>:<id>".
type Asks struct {
	pending map[string]askRef
}

type askRef struct {
	source int
	id     string
}

// Forward takes an ask from co-process src. With a --control channel
// (control true) it returns the request event to write and remembers the
// ask; without one nobody can answer, so it returns the "cancelled" reply
// to send back at once.
func (a *Asks) Forward(src int, ask event.ToolAsk, control bool) (*event.Event, *Reply) {
	if !control {
		return nil, &Reply{Source: src, Answer: event.Answer{Type: event.ToolAnswer, RequestID: ask.RequestID, Cancelled: true}}
	}
	if a.pending == nil {
		a.pending = map[string]askRef{}
	}
	id := strconv.Itoa(src) + ":" + ask.RequestID
	a.pending[id] = askRef{src, ask.RequestID}
	return &event.Event{Type: event.Request, RequestID: id, Kind: ask.Kind, Payload: ask.Payload}, nil
}

// Answer turns an "answer" control command into the reply for the
// co-process that asked. An unknown or already answered id is an error.
func (a *Asks) Answer(c Control) (Reply, error) {
	ref, ok := a.pending[c.RequestID]
	if !ok {
		return Reply{}, fmt.Errorf("answer: no pending request %q", c.RequestID)
	}
	delete(a.pending, c.RequestID)
	return Reply{Source: ref.source, Answer: event.Answer{Type: event.ToolAnswer, RequestID: ref.id, Value: c.Value, Cancelled: c.Cancelled}}, nil
}

// CancelAll answers every pending ask as cancelled (the run ended).
func (a *Asks) CancelAll() []Reply {
	var out []Reply
	for id, ref := range a.pending {
		out = append(out, Reply{Source: ref.source, Answer: event.Answer{Type: event.ToolAnswer, RequestID: ref.id, Cancelled: true}})
		delete(a.pending, id)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Source != out[j].Source {
			return out[i].Source < out[j].Source
		}
		return out[i].Answer.RequestID < out[j].Answer.RequestID
	})
	return out
}
