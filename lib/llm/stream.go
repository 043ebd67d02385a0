package llm

import (
	"encoding/json"
	"fmt"
	"strings"
	"unsafe"
)

// Decoder turns one response's SSE events into stream events. Feed is called
// per SSE event; End once at the end of the body (or with the transport's
// error). Exactly one terminal event (done or error) comes out in all.
type Decoder interface {
	Feed(ev SSE) []Event
	End(err error) []Event
}

// builder keeps the partial assistant message of one call and emits pi's
// events as blocks open, grow and close. Codecs drive it.
type builder struct {
	msg      Message
	model    Model
	out      []Event
	json     map[int]string           // partial tool-call argument text by content index
	grown    map[int]*strings.Builder // the growing texts (grow), by 3×index + field
	open     int                      // index of the open block in sequential codecs, -1 if none
	finished bool
	started  bool // ready emitted "start"
}

func newBuilder(m Model, now int64) *builder {
	return &builder{
		msg: Message{Role: "assistant", Content: []Content{}, API: m.API, Provider: m.Provider,
			Model: m.ID, Usage: &Usage{}, StopReason: StopStop, Timestamp: now},
		model: m, json: map[int]string{}, open: -1,
	}
}

func (b *builder) snapshot() *Message {
	m := b.msg
	m.Content = append([]Content(nil), b.msg.Content...)
	u := *b.msg.Usage
	m.Usage = &u
	return &m
}

func (b *builder) emit(e Event) {
	e.Partial = b.snapshot()
	b.out = append(b.out, e)
}

func (b *builder) take() []Event {
	out := b.out
	b.out = nil
	return out
}

func idx(i int) *int { return &i }

func (b *builder) start() { b.emit(Event{Type: "start"}) }

// ready starts the stream on the first call; it is false once the stream
// has finished, when a decoder ignores what comes.
func (b *builder) ready() bool {
	if b.finished {
		return false
	}
	if !b.started {
		b.start()
		b.started = true
	}
	return true
}

// begin appends a block and emits its *_start event; it returns the index.
func (b *builder) begin(c Content) int {
	b.msg.Content = append(b.msg.Content, c)
	i := len(b.msg.Content) - 1
	b.emit(Event{Type: kind(c.Type) + "_start", ContentIndex: idx(i)})
	if c.Type == "toolCall" {
		b.json[i] = ""
	}
	return i
}

func kind(t string) string {
	switch t {
	case "thinking":
		return "thinking"
	case "toolCall":
		return "toolcall"
	}
	return "text"
}

// delta grows block i and emits the delta.
func (b *builder) delta(i int, s string) {
	if i < 0 || i >= len(b.msg.Content) {
		return
	}
	c := &b.msg.Content[i]
	switch c.Type {
	case "text":
		b.grow(3*i, &c.Text, s)
	case "thinking":
		b.grow(3*i+1, &c.Thinking, s)
	case "toolCall":
		js := b.json[i]
		b.grow(3*i+2, &js, s)
		b.json[i] = js
		c.Arguments = ParsePartialJSON(js)
	}
	b.emit(Event{Type: kind(c.Type) + "_delta", ContentIndex: idx(i), Delta: s})
}

// grow appends s to the text *t in linear time: the text is kept in a
// strings.Builder (one per growing text, by key), which only ever appends, so each value of *t shares the bytes of the
// one before (the partial messages already emitted keep theirs) instead
// of copying the whole text at each delta. A text changed by other means
// since (a codec setting a block's final text) starts a new builder.
func (b *builder) grow(key int, t *string, s string) {
	if b.grown == nil {
		b.grown = map[int]*strings.Builder{}
	}
	g := b.grown[key]
	if g == nil || g.Len() != len(*t) || unsafe.StringData(g.String()) != unsafe.StringData(*t) {
		g = &strings.Builder{}
		g.WriteString(*t)
		b.grown[key] = g
	}
	g.WriteString(s)
	*t = g.String()
}

// drop removes the last block, left unfinished (its events were sent;
// the message no longer holds it).
func (b *builder) drop(i int) {
	if i < 0 || i != len(b.msg.Content)-1 {
		return
	}
	b.msg.Content = b.msg.Content[:i]
	delete(b.json, i)
	for k := 3 * i; k < 3*i+3; k++ {
		delete(b.grown, k)
	}
	if b.open == i {
		b.open = -1
	}
}

// end closes block i and emits its *_end event.
func (b *builder) end(i int) {
	if i < 0 || i >= len(b.msg.Content) {
		return
	}
	c := &b.msg.Content[i]
	e := Event{Type: kind(c.Type) + "_end", ContentIndex: idx(i)}
	switch c.Type {
	case "text":
		e.Content = c.Text
	case "thinking":
		e.Content = c.Thinking
	case "toolCall":
		if s, ok := b.json[i]; ok {
			c.Arguments = finalArgs(s, c.Arguments)
			delete(b.json, i)
		}
		tc := *c
		e.ToolCall = &tc
	}
	b.emit(e)
}

// finalArgs parses the whole argument text; an unparsable one keeps the
// raw string under "_raw" so validation reports it instead of running the
// tool with {}.
func finalArgs(s string, cur json.RawMessage) json.RawMessage {
	if s == "" {
		if len(cur) > 0 {
			return cur
		}
		return json.RawMessage("{}")
	}
	var v map[string]any
	if json.Unmarshal([]byte(s), &v) == nil {
		return json.RawMessage(s)
	}
	raw, _ := json.Marshal(map[string]string{"_invalidJSON": s})
	return raw
}

// sequential helpers: a new block closes the open one.
func (b *builder) seqBegin(c Content) int {
	b.seqClose()
	b.open = b.begin(c)
	return b.open
}

func (b *builder) seqClose() {
	if b.open >= 0 {
		b.end(b.open)
		b.open = -1
	}
}

func (b *builder) openType() string {
	if b.open < 0 {
		return ""
	}
	return b.msg.Content[b.open].Type
}

// setUsage stores usage and recomputes the cost from the model's prices.
func (b *builder) setUsage(u Usage) {
	u.Cost = b.model.CostOf(u)
	b.msg.Usage = &u
}

// done ends the stream successfully. A stop with tool calls is toolUse.
func (b *builder) done(reason string) {
	if b.finished {
		return
	}
	b.seqClose()
	for i := range b.msg.Content {
		if _, ok := b.json[i]; ok {
			b.end(i)
		}
	}
	if reason == StopStop && len(b.msg.ToolCalls()) > 0 {
		reason = StopToolUse
	}
	b.msg.StopReason = reason
	b.finished = true
	m := b.snapshot()
	b.out = append(b.out, Event{Type: "done", Reason: reason, Message: m})
}

// fail ends the stream with an error (or aborted) message.
func (b *builder) fail(reason string, err error) {
	if b.finished {
		return
	}
	b.seqClose()
	b.msg.StopReason = reason
	b.msg.ErrorMessage = err.Error()
	b.finished = true
	m := b.snapshot()
	b.out = append(b.out, Event{Type: "error", Reason: reason, Error: m})
}

// endOfBody is the common End: a body that stops before its terminal event
// is a retryable error.
func (b *builder) endOfBody(err error) []Event {
	if !b.finished {
		if err == nil {
			err = ErrUnexpectedEOF
		}
		b.fail(StopError, err)
	}
	return b.take()
}

// badData reports an SSE payload that is not the JSON the wire promises.
func badData(api string, data []byte, err error) error {
	if len(data) > 200 {
		data = append(data[:200:200], "…"...)
	}
	return fmt.Errorf("%s: malformed stream event %q: %v", api, data, err)
}
