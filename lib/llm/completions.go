package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

type completions struct{}

// compatFor fills in the openai-completions quirks from provider and base
// URL; the model's own Compat wins field by field.
func compatFor(m Model) Compat {
	url := strings.ToLower(m.BaseURL)
	nonStandard := false
	for _, s := range []string{"cerebras", "x.ai", "mistral", "chutes", "deepseek", "z.ai", "opencode"} {
		if strings.Contains(url, s) || strings.Contains(m.Provider, strings.TrimSuffix(s, ".ai")) {
			nonStandard = true
		}
	}
	t, f := true, false
	c := Compat{SupportsStore: &t, SupportsDeveloperRole: &t, SupportsReasoningEffort: &t, MaxTokensField: "max_completion_tokens", ThinkingFormat: "openai"}
	if nonStandard {
		c.SupportsStore, c.SupportsDeveloperRole = &f, &f
	}
	if strings.Contains(url, "x.ai") || strings.Contains(m.ID, "grok") || strings.Contains(url, "z.ai") {
		c.SupportsReasoningEffort = &f
	}
	if strings.Contains(url, "z.ai") || m.Provider == "zai" {
		c.ThinkingFormat = "zai"
	}
	if strings.Contains(url, "mistral") || m.Provider == "mistral" {
		c.MaxTokensField = "max_tokens"
		c.ThinkingFormat = "mistral"
	}
	if strings.Contains(url, "deepseek") || strings.Contains(m.Provider, "deepseek") {
		c.ReasoningReplay = "toolCalls"
	}
	if !strings.Contains(url, "api.openai.com") && m.Provider != "openai" {
		// Local servers (ollama, llama.cpp, vLLM) and most proxies know
		// max_tokens and no store.
		c.SupportsStore = &f
		if m.Provider != "openrouter" && !strings.Contains(url, "openrouter") {
			c.MaxTokensField = "max_tokens"
		}
	}
	if u := m.Compat; u != nil {
		setIf(&c.SupportsStore, u.SupportsStore)
		setIf(&c.SupportsDeveloperRole, u.SupportsDeveloperRole)
		setIf(&c.SupportsReasoningEffort, u.SupportsReasoningEffort)
		setIf(&c.MaxTokensField, u.MaxTokensField)
		setIf(&c.ThinkingFormat, u.ThinkingFormat)
		setIf(&c.ReasoningReplay, u.ReasoningReplay)
	}
	return c
}

func (completions) Request(m Model, c Context, o Options) (Request, error) {
	cp := compatFor(m)
	mistral := strings.Contains(strings.ToLower(m.BaseURL), "mistral") || m.Provider == "mistral"
	idFn := func(id string) string {
		if i := strings.IndexByte(id, '|'); i >= 0 {
			id = id[:i]
		}
		if mistral {
			s := strings.Map(func(r rune) rune {
				if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
					return r
				}
				return -1
			}, id)
			for len(s) < 9 {
				s += "0"
			}
			return s[len(s)-9:]
		}
		return safeID(id, 40)
	}
	level := m.ClampThinking(o.Thinking)
	// The messages are built while the body is encoded, one at a time.
	msgs := lazyArray(func(emit func(any)) error {
		if c.SystemPrompt != "" {
			role := "system"
			if m.Reasoning && *cp.SupportsDeveloperRole {
				role = "developer"
			}
			emit(map[string]any{"role": role, "content": c.SystemPrompt})
		}
		w := &completionsMessages{m: m, mistral: mistral, replay: cp.ReasoningReplay, emit: emit}
		if err := NormalizeEach(c, m, idFn, w.add); err != nil {
			return err
		}
		w.flush()
		return nil
	})
	body := map[string]any{"model": m.ID, "messages": msgs, "stream": true, "stream_options": map[string]any{"include_usage": true}}
	if *cp.SupportsStore {
		body["store"] = false
	}
	body[cp.MaxTokensField] = maxTokens(m, o)
	if o.Temperature != nil {
		body["temperature"] = *o.Temperature
	}
	if len(c.Tools) > 0 {
		var tools []any
		for _, t := range c.Tools {
			tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
				"name": t.Name, "description": t.Description, "parameters": objectSchema(t.Parameters), "strict": false}})
		}
		body["tools"] = tools
	} else if calls, err := hasToolCalls(c); err != nil {
		return Request{}, err
	} else if calls {
		body["tools"] = []any{}
	}
	switch tc := o.ToolChoice; {
	case tc == "":
	case strings.HasPrefix(tc, "tool:"):
		body["tool_choice"] = map[string]any{"type": "function", "function": map[string]any{"name": strings.TrimPrefix(tc, "tool:")}}
	case tc == "any":
		body["tool_choice"] = "required"
	default:
		body["tool_choice"] = tc
	}
	if m.Reasoning {
		switch cp.ThinkingFormat {
		case "zai":
			body["thinking"] = map[string]any{"type": map[bool]string{true: "enabled", false: "disabled"}[level != "off"]}
		case "qwen":
			body["enable_thinking"] = level != "off"
		case "mistral":
			// Mistral takes only "high" or "none"; magistral models
			// always reason and take neither.
			if !strings.Contains(m.ID, "magistral") {
				body["reasoning_effort"] = map[bool]string{true: "high", false: "none"}[level != "off"]
			}
		default:
			if level != "off" && *cp.SupportsReasoningEffort {
				body["reasoning_effort"] = level
			}
		}
	}
	return post(m, "/chat/completions", body)
}

// hasToolCalls reports whether an assistant message of c calls a tool (the
// body then carries an empty tool list even without tools). Only the
// History messages that may hold a call are decoded: the word, or escapes
// that could spell it.
func hasToolCalls(c Context) (bool, error) {
	isCall := func(msg Message) bool {
		for _, b := range msg.Content {
			if msg.Role == "assistant" && b.Type == "toolCall" {
				return true
			}
		}
		return false
	}
	for i, raw := range c.History {
		if bytes.Contains(raw, []byte("toolCall")) || bytes.Contains(raw, []byte(`\u`)) {
			msg, err := DecodeMessage(raw)
			if err != nil {
				return false, &HistoryError{i, err}
			}
			if isCall(msg) {
				return true, nil
			}
		}
	}
	for _, msg := range c.Messages {
		if isCall(msg) {
			return true, nil
		}
	}
	return false, nil
}

// completionsMessages turns a normalised history into chat messages one at
// a time. Consecutive tool results become "tool" messages, and the images
// they returned follow them in one user message.
type completionsMessages struct {
	m       Model
	mistral bool
	replay  string // Compat.ReasoningReplay
	emit    func(any)
	images  []Content // from the current run of tool results
}

func (w *completionsMessages) flush() {
	if len(w.images) > 0 {
		w.emit(completionsUser(append([]Content{TextBlock("Attached image(s) from tool result:")}, w.images...), w.m))
		w.images = nil
	}
}

func (w *completionsMessages) add(msg Message) {
	if msg.Role != "toolResult" {
		w.flush()
	}
	m, mistral := w.m, w.mistral
	switch msg.Role {
	case "user":
		w.emit(completionsUser(msg.Content, m))
	case "assistant":
		am := make(obj, 1, 4)
		am[0] = member{"role", "assistant"}
		var text []string // joined at the end: one part is not copied
		var calls []any
		var details []json.RawMessage // OpenRouter reasoning_details
		var reasoning []member        // reasoning text by the field it came in
		for _, b := range msg.Content {
			switch b.Type {
			case "text":
				if b.Text != "" {
					text = append(text, b.Text)
				}
			case "thinking":
				field := b.ThinkingSignature
				switch {
				case strings.HasPrefix(field, "["):
					// OpenRouter's reasoning_details, sent back as they came
					// (they hold the text, signatures and encrypted data).
					var ds []json.RawMessage
					if json.Unmarshal([]byte(field), &ds) == nil {
						details = append(details, ds...)
					} else if b.Thinking != "" {
						text = append(text, b.Thinking+"\n\n")
					}
				case b.Thinking == "":
				case mistral || field == "" || strings.ContainsAny(field, "{ "):
					text = append(text, b.Thinking+"\n\n")
				default:
					reasoning = appendReasoning(reasoning, field, b.Thinking)
				}
			case "toolCall":
				calls = append(calls, obj{{"function", obj{{"arguments", string(callArgs(b.Arguments))}, {"name", b.Name}}},
					{"id", b.ID}, {"type", "function"}})
			}
		}
		if w.replay == "toolCalls" {
			// DeepSeek: reasoning_content only where the turn called tools
			// (an older reasoner answers 400 to it elsewhere), and there
			// always, even empty (thinking mode answers 400 without it).
			if len(calls) == 0 {
				reasoning = nil
			} else if m.Reasoning && len(reasoning) == 0 {
				reasoning = appendReasoning(nil, "reasoning_content", "")
			}
		}
		for _, r := range reasoning {
			am = set(am, r.Key, r.Val)
		}
		if len(details) > 0 {
			am = set(am, "reasoning_details", details)
		}
		if len(text) == 0 && len(calls) == 0 {
			return
		}
		if len(text) > 0 {
			am = set(am, "content", strings.Join(text, ""))
		} else if mistral {
			am = set(am, "content", "")
		} else {
			am = set(am, "content", nil)
		}
		if len(calls) > 0 {
			am = set(am, "tool_calls", calls)
		}
		w.emit(am)
	case "toolResult":
		var texts []string
		for _, b := range msg.Content {
			if b.Type == "text" {
				texts = append(texts, b.Text)
			} else if b.Type == "image" && m.Images() {
				w.images = append(w.images, b)
			}
		}
		content := strings.Join(texts, "\n")
		if content == "" {
			content = "(see attached image)"
		}
		tm := obj{{"content", content}, {"role", "tool"}, {"tool_call_id", msg.ToolCallID}}
		if mistral {
			tm = set(tm, "name", msg.ToolName)
		}
		w.emit(tm)
	}
}

// appendReasoning adds reasoning text to the member of its field.
func appendReasoning(rs []member, field, s string) []member {
	for i := range rs {
		if rs[i].Key == field {
			rs[i].Val = rs[i].Val.(string) + s
			return rs
		}
	}
	return append(rs, member{field, s})
}

func completionsUser(cs []Content, m Model) obj {
	onlyText := true
	for _, c := range cs {
		if c.Type == "image" {
			onlyText = false
		}
	}
	if onlyText {
		var texts []string
		for _, c := range cs {
			texts = append(texts, c.Text)
		}
		return obj{{"content", strings.Join(texts, "\n")}, {"role", "user"}}
	}
	var parts []any
	for _, c := range cs {
		switch c.Type {
		case "text":
			parts = append(parts, obj{{"text", c.Text}, {"type", "text"}})
		case "image":
			if m.Images() {
				parts = append(parts, obj{{"image_url", obj{{"url", "data:" + c.MimeType + ";base64," + c.Data}}}, {"type", "image_url"}})
			}
		}
	}
	return obj{{"content", parts}, {"role", "user"}}
}

type completionsDecoder struct {
	b       *builder
	calls   map[string]int // wire tool-call key (index, else id) → content index
	last    string         // the key of the last call a delta named
	reason  string
	details map[int]*reasoningDetails // OpenRouter reasoning_details by thinking block
}

func (completions) Decoder(m Model, now int64) Decoder {
	return &completionsDecoder{b: newBuilder(m, now), calls: map[string]int{}, details: map[int]*reasoningDetails{}}
}

// completionsChunk is one Chat Completions stream chunk.
type completionsChunk struct {
	Choices []struct {
		Delta struct {
			// Content is a string, or (Mistral's reasoning models) an
			// array of text and thinking chunks.
			Content          json.RawMessage   `json:"content"`
			ReasoningContent *string           `json:"reasoning_content"`
			Reasoning        *string           `json:"reasoning"`
			ReasoningText    *string           `json:"reasoning_text"`
			ReasoningDetails []json.RawMessage `json:"reasoning_details"`
			ToolCalls        []struct {
				Index    *int   `json:"index"` // absent at Mistral: told apart by id
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int  `json:"prompt_tokens"`
		CompletionTokens    int  `json:"completion_tokens"`
		CachedTokens        *int `json:"cached_tokens"`
		PromptCacheHit      *int `json:"prompt_cache_hit_tokens"` // DeepSeek
		PromptTokensDetails *struct {
			CachedTokens     *int `json:"cached_tokens"`
			CacheWriteTokens int  `json:"cache_write_tokens"` // OpenRouter
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
	} `json:"error"`
}

// mistralChunk is one element of an array content delta: {type:text,
// text} or {type:thinking, thinking:[{type:text, text}]}.
type mistralChunk struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Thinking []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"thinking"`
}

func (d *completionsDecoder) Feed(ev SSE) []Event {
	b := d.b
	if !b.ready() {
		return nil
	}
	data := strings.TrimSpace(string(ev.Data))
	if data == "[DONE]" {
		d.finish()
		return b.take()
	}
	var ch completionsChunk
	if err := json.Unmarshal(ev.Data, &ch); err != nil {
		b.fail(StopError, badData(OpenAICompletions, ev.Data, err))
		return b.take()
	}
	if u := ch.Usage; u != nil {
		cached, write := 0, 0
		switch pd := u.PromptTokensDetails; {
		case u.CachedTokens != nil:
			cached = *u.CachedTokens
		case pd != nil && pd.CachedTokens != nil:
			cached = *pd.CachedTokens
		case u.PromptCacheHit != nil:
			cached = *u.PromptCacheHit
		}
		if pd := u.PromptTokensDetails; pd != nil {
			write = pd.CacheWriteTokens
		}
		in := u.PromptTokens - cached - write
		b.setUsage(Usage{Input: in, Output: u.CompletionTokens, CacheRead: cached, CacheWrite: write,
			TotalTokens: in + u.CompletionTokens + cached + write})
	}
	if ch.Error != nil {
		b.fail(StopError, fmt.Errorf("%v %s", ch.Error.Code, ch.Error.Message))
		return b.take()
	}
	if len(ch.Choices) == 0 {
		return b.take()
	}
	c := ch.Choices[0]
	reasoning := false
	for _, r := range []struct {
		v    *string
		name string
	}{{c.Delta.ReasoningContent, "reasoning_content"}, {c.Delta.Reasoning, "reasoning"}, {c.Delta.ReasoningText, "reasoning_text"}} {
		if r.v != nil && *r.v != "" {
			d.thinking(r.name, *r.v)
			reasoning = true
			break
		}
	}
	for _, raw := range c.Delta.ReasoningDetails {
		d.reasoningDetail(raw, !reasoning)
	}
	if err := d.content(c.Delta.Content); err != nil {
		b.fail(StopError, badData(OpenAICompletions, ev.Data, err))
		return b.take()
	}
	for _, tc := range c.Delta.ToolCalls {
		key := d.last
		if tc.Index != nil {
			key = fmt.Sprint("#", *tc.Index)
		} else if tc.ID != "" {
			key = "id:" + tc.ID
		}
		d.last = key
		i, ok := d.calls[key]
		if !ok || b.open != i {
			if ok {
				// a call resumed after another block: keep appending to it
				b.delta(i, tc.Function.Arguments)
				continue
			}
			i = b.seqBegin(ToolCallBlock(tc.ID, tc.Function.Name, json.RawMessage("{}")))
			d.calls[key] = i
		}
		if tc.Function.Arguments != "" {
			b.delta(i, tc.Function.Arguments)
		}
	}
	if c.FinishReason != nil && *c.FinishReason != "" {
		d.reason = *c.FinishReason
	}
	return b.take()
}

// thinking appends reasoning text, opening a thinking block that records
// the field it came in (sent back in that field).
func (d *completionsDecoder) thinking(field, s string) {
	b := d.b
	if b.openType() != "thinking" {
		b.seqBegin(Content{Type: "thinking", ThinkingSignature: field})
	}
	if s != "" {
		b.delta(b.open, s)
	}
}

func (d *completionsDecoder) text(s string) {
	b := d.b
	if s == "" {
		return
	}
	if b.openType() != "text" {
		b.seqBegin(TextBlock(""))
	}
	b.delta(b.open, s)
}

// content reads delta.content: a string, or Mistral's array of chunks.
func (d *completionsDecoder) content(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] != '[' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		d.text(s)
		return nil
	}
	var chunks []mistralChunk
	if err := json.Unmarshal(raw, &chunks); err != nil {
		return err
	}
	for _, c := range chunks {
		switch c.Type {
		case "thinking":
			for _, t := range c.Thinking {
				// Mistral takes thinking back as text (the request's rule
				// for a thinking block without a field).
				d.thinking("", t.Text)
			}
		case "text":
			d.text(c.Text)
		}
	}
	return nil
}

// reasoningDetails are OpenRouter's reasoning_details of one thinking
// block, stream fragments merged (same type and index), in arrival order.
type reasoningDetails struct {
	list []map[string]any
}

// reasoningDetail merges one reasoning_details fragment into the open
// thinking block's list and keeps the list, as JSON, in the block's
// signature: the request sends it back as reasoning_details. With
// asText (no reasoning field in the delta), its text or summary is the
// thinking text.
func (d *completionsDecoder) reasoningDetail(raw json.RawMessage, asText bool) {
	var frag map[string]any
	if json.Unmarshal(raw, &frag) != nil || frag == nil {
		return
	}
	text, _ := frag["text"].(string)
	summary, _ := frag["summary"].(string)
	b := d.b
	if b.openType() != "thinking" {
		d.thinking("", "")
	}
	if asText {
		d.thinking("", text+summary)
	}
	rd := d.details[b.open]
	if rd == nil {
		rd = &reasoningDetails{}
		d.details[b.open] = rd
	}
	var into map[string]any
	if n := len(rd.list); n > 0 && frag["index"] != nil && rd.list[n-1]["index"] == frag["index"] && rd.list[n-1]["type"] == frag["type"] {
		into = rd.list[n-1]
	}
	if into == nil {
		rd.list = append(rd.list, frag)
	} else {
		for k, v := range frag {
			s, isStr := v.(string)
			old, wasStr := into[k].(string)
			switch {
			case isStr && wasStr && (k == "text" || k == "summary" || k == "signature" || k == "data"):
				into[k] = old + s
			case into[k] == nil || (wasStr && old == ""):
				into[k] = v
			}
		}
	}
	js, _ := json.Marshal(rd.list)
	b.msg.Content[b.open].ThinkingSignature = string(js)
}

func (d *completionsDecoder) finish() {
	switch d.reason {
	case "length":
		d.b.done(StopLength)
	case "tool_calls", "function_call":
		d.b.done(StopToolUse)
	case "content_filter":
		d.b.fail(StopError, fmt.Errorf("the provider filtered the content (finish_reason content_filter)"))
	default:
		d.b.done(StopStop)
	}
}

// End: some servers (llama.cpp, older vLLM) close without [DONE] after a
// finish_reason; that is a complete stream.
func (d *completionsDecoder) End(err error) []Event {
	if err == nil && d.reason != "" && !d.b.finished {
		d.finish()
	}
	return d.b.endOfBody(err)
}
