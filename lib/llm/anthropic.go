package llm

import (
	"encoding/json"
	"fmt"
	"strings"
)

type anthropic struct{}

func (anthropic) Request(m Model, c Context, o Options) (Request, error) {
	h := map[string]string{
		"content-type":      "application/json",
		"accept":            "text/event-stream",
		"anthropic-version": "2023-06-01",
		"anthropic-beta":    "fine-grained-tool-streaming-2025-05-14,interleaved-thinking-2025-05-14",
	}
	for k, v := range m.Headers {
		h[strings.ToLower(k)] = v
	}
	cache := o.CacheRetention != "none"
	cc := map[string]any{"type": "ephemeral"}
	if o.CacheRetention == "long" && strings.Contains(m.BaseURL, "api.anthropic.com") {
		cc["ttl"] = "1h"
	}
	body := map[string]any{"model": m.ID, "stream": true}
	mt := maxTokens(m, o)
	if c.SystemPrompt != "" {
		sys := map[string]any{"type": "text", "text": c.SystemPrompt}
		if cache {
			sys["cache_control"] = cc
		}
		body["system"] = []any{sys}
	}
	// The wire messages are built while the body is encoded, one at a time.
	// With caching, the last two user messages get cache marks, and which
	// they are is known only at the end: the messages from the second-to-
	// last user message on are held back until then. Tool results are user
	// messages, so that is the last turn or two, not the history.
	body["messages"] = lazyArray(func(emit func(any)) error {
		if !cache {
			return anthropicMessages(c, m, func(msg map[string]any) { emit(msg) })
		}
		var held []map[string]any
		users := 0 // user messages in held
		err := anthropicMessages(c, m, func(msg map[string]any) {
			if msg["role"] == "user" {
				if users == 2 { // the first held user message is no longer among the last two
					i := 1
					for held[i]["role"] != "user" {
						i++
					}
					for _, h := range held[:i] {
						emit(h)
					}
					held = append(held[:0], held[i:]...)
					users--
				}
				users++
			}
			held = append(held, msg)
		})
		if err != nil {
			return err
		}
		for _, h := range held {
			if h["role"] == "user" {
				addCacheMark(h, cc)
			}
			emit(h)
		}
		return nil
	})
	if len(c.Tools) > 0 {
		var tools []map[string]any
		for _, t := range c.Tools {
			tools = append(tools, map[string]any{"name": t.Name, "description": t.Description, "input_schema": objectSchema(t.Parameters)})
		}
		if cache {
			tools[len(tools)-1]["cache_control"] = cc
		}
		body["tools"] = tools
	}
	forced := false
	switch tc := o.ToolChoice; {
	case tc == "":
	case strings.HasPrefix(tc, "tool:"):
		body["tool_choice"] = map[string]any{"type": "tool", "name": strings.TrimPrefix(tc, "tool:")}
		forced = true
	case tc == "required" || tc == "any":
		body["tool_choice"] = map[string]any{"type": "any"}
		forced = true
	default:
		body["tool_choice"] = map[string]any{"type": tc}
	}
	level := m.ClampThinking(o.Thinking)
	if level != "off" && !forced {
		if adaptive(m) {
			effort := map[string]string{"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "max"}[level]
			if effort == "max" && !strings.Contains(m.ID, "opus") {
				effort = "high"
			}
			body["thinking"] = map[string]any{"type": "adaptive"}
			body["output_config"] = map[string]any{"effort": effort}
		} else {
			budget := thinkingBudget(level)
			body["thinking"] = map[string]any{"type": "enabled", "budget_tokens": budget}
			if mt < budget+4000 {
				mt = budget + 4000
				if m.MaxTokens > 0 && mt > m.MaxTokens {
					mt = m.MaxTokens
				}
			}
		}
	}
	body["max_tokens"] = mt
	if o.Temperature != nil {
		body["temperature"] = *o.Temperature
	}
	return Request{Method: "POST", URL: strings.TrimRight(m.BaseURL, "/") + "/v1/messages", Header: h, payload: body}, nil
}

func adaptive(m Model) bool {
	return strings.Contains(m.ID, "opus-4-6") || strings.Contains(m.ID, "sonnet-4-6")
}

// callArgs are a tool call's arguments as sent back: {} for none (a
// call without arguments is not a schema).
func callArgs(a json.RawMessage) json.RawMessage {
	if len(a) == 0 || string(a) == "null" {
		return json.RawMessage("{}")
	}
	return a
}

// objectSchema makes sure a tool's input schema is an object schema.
func objectSchema(p json.RawMessage) json.RawMessage {
	if len(p) == 0 || string(p) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return p
}

// anthropicMessages turns a history into wire messages, one at a time:
// consecutive tool results become one user message, and a history that
// ends with the assistant gets a "Continue." user message.
func anthropicMessages(c Context, m Model, emit func(map[string]any)) error {
	var group []any // the tool_result blocks of the current run of results
	last := ""
	out := func(msg map[string]any) {
		last = msg["role"].(string)
		emit(msg)
	}
	flush := func() {
		if group != nil {
			out(map[string]any{"role": "user", "content": group})
			group = nil
		}
	}
	err := NormalizeEach(c, m, func(id string) string { return safeID(id, 64) }, func(msg Message) {
		if msg.Role != "toolResult" {
			flush()
		}
		switch msg.Role {
		case "user", "assistant":
			if blocks := anthropicBlocks(msg, m); len(blocks) > 0 {
				out(map[string]any{"role": msg.Role, "content": blocks})
			}
		case "toolResult":
			group = append(group, map[string]any{"type": "tool_result", "tool_use_id": msg.ToolCallID,
				"content": anthropicResultContent(msg, m), "is_error": msg.IsError})
		}
	})
	if err != nil {
		return err
	}
	flush()
	if last == "assistant" {
		out(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Continue."}}})
	}
	return nil
}

// anthropicBlocks are the wire blocks of a user or assistant message: its
// non-empty texts, a user's images (when the model takes images), an
// assistant's thinking and tool calls.
func anthropicBlocks(msg Message, m Model) []any {
	var blocks []any
	user := msg.Role == "user"
	for _, c := range msg.Content {
		switch {
		case c.Type == "text":
			if c.Text != "" {
				blocks = append(blocks, map[string]any{"type": "text", "text": c.Text})
			}
		case c.Type == "image" && user:
			if m.Images() {
				blocks = append(blocks, anthropicImage(c))
			}
		case c.Type == "thinking" && !user:
			switch {
			case c.Redacted:
				blocks = append(blocks, map[string]any{"type": "redacted_thinking", "data": c.ThinkingSignature})
			case c.ThinkingSignature != "":
				blocks = append(blocks, map[string]any{"type": "thinking", "thinking": c.Thinking, "signature": c.ThinkingSignature})
			case c.Thinking != "":
				blocks = append(blocks, map[string]any{"type": "text", "text": c.Thinking})
			}
		case c.Type == "toolCall" && !user:
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": callArgs(c.Arguments)})
		}
	}
	return blocks
}

func anthropicImage(c Content) map[string]any {
	return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": c.MimeType, "data": c.Data}}
}

func anthropicResultContent(r Message, m Model) any {
	var texts []string
	var blocks []any
	hasImage, hasText := false, false
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			texts = append(texts, c.Text)
			blocks = append(blocks, map[string]any{"type": "text", "text": c.Text})
			hasText = true
		case "image":
			if m.Images() {
				blocks = append(blocks, anthropicImage(c))
				hasImage = true
			}
		}
	}
	if !hasImage {
		return strings.Join(texts, "\n")
	}
	if !hasText {
		blocks = append([]any{map[string]any{"type": "text", "text": "(see attached image)"}}, blocks...)
	}
	return blocks
}

// addCacheMark puts cache_control on the last block of a user message (the
// last two user messages get one: breakpoints 3 and 4 of §1.8.1). In a
// tool loop those are tool results: the mark goes on the last
// tool_result, so each turn reads the prefix up to the newest results
// from the cache. (User messages hold text, image and tool_result
// blocks, which all take a mark.)
func addCacheMark(msg map[string]any, cc map[string]any) {
	blocks, _ := msg["content"].([]any)
	if n := len(blocks); n > 0 {
		if b, ok := blocks[n-1].(map[string]any); ok {
			b["cache_control"] = cc
		}
	}
}

type anthropicDecoder struct {
	b       *builder
	index   map[int]int // wire index → content index
	started bool        // a message_start was read
}

// anthropicBlock is a content block as message_start and
// content_block_start carry it.
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

// content is the block as ours; ok is false for a block we do not keep
// (server tools' blocks).
func (c anthropicBlock) content() (Content, bool) {
	switch c.Type {
	case "text":
		return TextBlock(c.Text), true
	case "thinking":
		return Content{Type: "thinking", Thinking: c.Thinking, ThinkingSignature: c.Signature}, true
	case "redacted_thinking":
		return Content{Type: "thinking", Redacted: true, ThinkingSignature: c.Data}, true
	case "tool_use":
		return ToolCallBlock(c.ID, c.Name, callArgs(c.Input)), true
	}
	return Content{}, false
}

// messageStart begins the message: a second one (a proxy that spliced a
// new answer into a cut one) drops the blocks the first left open, a
// tool call cut mid-arguments among them. Blocks and a stop reason the
// message already holds (programmatic tool calling answers in
// message_start alone) are taken whole.
func (d *anthropicDecoder) messageStart(content []anthropicBlock, stop string) {
	b := d.b
	if d.started {
		for len(d.index) > 0 {
			last := len(b.msg.Content) - 1
			w := -1
			for k, i := range d.index {
				if i == last {
					w = k
				}
			}
			if w < 0 {
				break
			}
			b.drop(last)
			delete(d.index, w)
		}
		d.index = map[int]int{}
	} else {
		b.start()
	}
	d.started = true
	for _, c := range content {
		if cc, ok := c.content(); ok {
			b.end(b.begin(cc))
		}
	}
	if stop != "" {
		b.msg.StopReason = stop
	}
}

func (anthropic) Decoder(m Model, now int64) Decoder {
	return &anthropicDecoder{b: newBuilder(m, now), index: map[int]int{}}
}

type anthropicUsage struct {
	Input      *int `json:"input_tokens"`
	Output     *int `json:"output_tokens"`
	CacheRead  *int `json:"cache_read_input_tokens"`
	CacheWrite *int `json:"cache_creation_input_tokens"`
}

func (d *anthropicDecoder) usage(u *anthropicUsage) {
	if u == nil {
		return
	}
	cur := *d.b.msg.Usage
	set := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	set(&cur.Input, u.Input)
	set(&cur.Output, u.Output)
	set(&cur.CacheRead, u.CacheRead)
	set(&cur.CacheWrite, u.CacheWrite)
	cur.TotalTokens = cur.Input + cur.Output + cur.CacheRead + cur.CacheWrite
	d.b.setUsage(cur)
}

func (d *anthropicDecoder) Feed(ev SSE) []Event {
	b := d.b
	if b.finished {
		return nil
	}
	var e struct {
		Type    string `json:"type"`
		Index   int    `json:"index"`
		Message struct {
			ID         string           `json:"id"`
			Usage      *anthropicUsage  `json:"usage"`
			Content    []anthropicBlock `json:"content"`
			StopReason string           `json:"stop_reason"`
		} `json:"message"`
		ContentBlock anthropicBlock `json:"content_block"`
		Delta        struct {
			Type        string `json:"type"`
			Text        string `json:"text"`
			Thinking    string `json:"thinking"`
			PartialJSON string `json:"partial_json"`
			Signature   string `json:"signature"`
			StopReason  string `json:"stop_reason"`
		} `json:"delta"`
		Usage *anthropicUsage `json:"usage"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(ev.Data, &e); err != nil {
		b.fail(StopError, badData(AnthropicMessages, ev.Data, err))
		return b.take()
	}
	switch e.Type {
	case "message_start":
		d.usage(e.Message.Usage)
		d.messageStart(e.Message.Content, e.Message.StopReason)
	case "content_block_start":
		c, ok := e.ContentBlock.content()
		if !ok {
			return b.take()
		}
		c.ThinkingSignature = ""
		if e.ContentBlock.Type == "redacted_thinking" {
			c.ThinkingSignature = e.ContentBlock.Data
		}
		d.index[e.Index] = b.begin(c)
	case "content_block_delta":
		i, ok := d.index[e.Index]
		if !ok {
			return b.take()
		}
		switch e.Delta.Type {
		case "text_delta":
			b.delta(i, e.Delta.Text)
		case "thinking_delta":
			b.delta(i, e.Delta.Thinking)
		case "input_json_delta":
			b.delta(i, e.Delta.PartialJSON)
		case "signature_delta":
			b.msg.Content[i].ThinkingSignature += e.Delta.Signature
		}
	case "content_block_stop":
		if i, ok := d.index[e.Index]; ok {
			b.end(i)
			delete(d.index, e.Index)
		}
	case "message_delta":
		d.usage(e.Usage)
		if e.Delta.StopReason != "" {
			b.msg.StopReason = e.Delta.StopReason
		}
	case "message_stop":
		reason, err := anthropicStop(b.msg.StopReason)
		if err != nil {
			b.fail(StopError, err)
		} else {
			b.done(reason)
		}
	case "error":
		b.fail(StopError, fmt.Errorf("%s: %s", e.Error.Type, e.Error.Message))
	}
	return b.take()
}

func anthropicStop(s string) (string, error) {
	switch s {
	case "end_turn", "pause_turn", "stop_sequence", StopStop, "":
		return StopStop, nil
	case "max_tokens":
		return StopLength, nil
	case "tool_use":
		return StopToolUse, nil
	case "refusal", "sensitive":
		return "", fmt.Errorf("the model stopped: %s", s)
	}
	return "", fmt.Errorf("unknown stop reason %q", s)
}

func (d *anthropicDecoder) End(err error) []Event { return d.b.endOfBody(err) }

// post builds a streaming JSON POST to path under the model's base URL,
// with the model's headers.
func post(m Model, path string, body any) (Request, error) {
	h := map[string]string{"content-type": "application/json", "accept": "text/event-stream"}
	for k, v := range m.Headers {
		h[strings.ToLower(k)] = v
	}
	return Request{Method: "POST", URL: strings.TrimRight(m.BaseURL, "/") + path, Header: h, payload: body}, nil
}
