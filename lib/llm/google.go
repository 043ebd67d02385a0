package llm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

type google struct{}

func (google) Request(m Model, c Context, o Options) (Request, error) {
	// The contents are built while the body is encoded, one message at a
	// time; one is held back until the next shows whether to merge them.
	contents := lazyArray(func(emit func(any)) error {
		var held map[string]any
		add := func(role string, parts []any) {
			if len(parts) == 0 {
				return
			}
			// Consecutive turns of one role are merged (function responses).
			if held != nil && held["role"] == role && role == "user" {
				held["parts"] = append(held["parts"].([]any), parts...)
				return
			}
			if held != nil {
				emit(held)
			}
			held = map[string]any{"role": role, "parts": parts}
		}
		err := NormalizeEach(c, m, nil, func(msg Message) {
			var parts []any
			switch msg.Role {
			case "user":
				for _, b := range msg.Content {
					if b.Type == "text" && b.Text != "" {
						parts = append(parts, map[string]any{"text": b.Text})
					} else if b.Type == "image" && m.Images() {
						parts = append(parts, map[string]any{"inlineData": map[string]any{"mimeType": b.MimeType, "data": b.Data}})
					}
				}
				add("user", parts)
			case "assistant":
				same := msg.Provider == m.Provider && msg.Model == m.ID
				for _, b := range msg.Content {
					switch b.Type {
					case "text":
						sig := same && validB64(b.TextSignature)
						if b.Text != "" || sig {
							p := map[string]any{"text": b.Text}
							if sig {
								p["thoughtSignature"] = b.TextSignature
							}
							parts = append(parts, p)
						}
					case "thinking":
						p := map[string]any{"text": b.Thinking, "thought": true}
						if same && validB64(b.ThinkingSignature) {
							p["thoughtSignature"] = b.ThinkingSignature
						}
						parts = append(parts, p)
					case "toolCall":
						p := map[string]any{"functionCall": map[string]any{"name": b.Name, "args": callArgs(b.Arguments)}}
						if same && validB64(b.ThoughtSignature) {
							p["thoughtSignature"] = b.ThoughtSignature
						} else if strings.Contains(m.ID, "gemini-3") {
							p = map[string]any{"text": fmt.Sprintf("[called tool %s with %s]", b.Name, callArgs(b.Arguments))}
						}
						parts = append(parts, p)
					}
				}
				add("model", parts)
			case "toolResult":
				var texts []string
				for _, b := range msg.Content {
					if b.Type == "text" {
						texts = append(texts, b.Text)
					}
				}
				resp := map[string]any{"output": strings.Join(texts, "\n")}
				if msg.IsError {
					resp = map[string]any{"error": strings.Join(texts, "\n")}
				}
				add("user", []any{map[string]any{"functionResponse": map[string]any{"name": msg.ToolName, "response": resp}}})
			}

		})
		if held != nil {
			emit(held)
		}
		return err
	})
	body := map[string]any{"contents": contents}
	if c.SystemPrompt != "" {
		body["systemInstruction"] = map[string]any{"parts": []any{map[string]any{"text": c.SystemPrompt}}}
	}
	if len(c.Tools) > 0 {
		var decls []any
		for _, t := range c.Tools {
			decls = append(decls, map[string]any{"name": t.Name, "description": t.Description, "parametersJsonSchema": objectSchema(t.Parameters)})
		}
		body["tools"] = []any{map[string]any{"functionDeclarations": decls}}
	}
	switch tc := o.ToolChoice; {
	case tc == "":
	case tc == "any" || strings.HasPrefix(tc, "tool:"):
		body["toolConfig"] = map[string]any{"functionCallingConfig": map[string]any{"mode": "ANY"}}
	default:
		body["toolConfig"] = map[string]any{"functionCallingConfig": map[string]any{"mode": strings.ToUpper(tc)}}
	}
	gen := map[string]any{"maxOutputTokens": maxTokens(m, o)}
	if o.Temperature != nil {
		gen["temperature"] = *o.Temperature
	}
	if level := m.ClampThinking(o.Thinking); level != "off" {
		if level == "xhigh" {
			level = "high"
		}
		tc := map[string]any{"includeThoughts": true}
		if strings.Contains(m.ID, "gemini-3") {
			flash := strings.Contains(m.ID, "flash")
			tl := map[string][2]string{"minimal": {"LOW", "MINIMAL"}, "low": {"LOW", "LOW"}, "medium": {"HIGH", "MEDIUM"}, "high": {"HIGH", "HIGH"}}[level]
			if flash {
				tc["thinkingLevel"] = tl[1]
			} else {
				tc["thinkingLevel"] = tl[0]
			}
		} else if strings.Contains(m.ID, "2.5") {
			tc["thinkingBudget"] = thinkingBudget(level)
		} else {
			tc["thinkingBudget"] = -1
		}
		gen["thinkingConfig"] = tc
	}
	body["generationConfig"] = gen
	return post(m, "/models/"+m.ID+":streamGenerateContent?alt=sse", body)
}

// signature is a text or thinking block's signature.
func signature(c Content) string {
	if c.Type == "text" {
		return c.TextSignature
	}
	return c.ThinkingSignature
}

func validB64(s string) bool {
	if s == "" {
		return false
	}
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}

type googleDecoder struct {
	b      *builder
	now    int64
	n      int
	ids    map[string]bool
	reason string
	// a call whose arguments are streamed (partialArgs, until a part
	// without willContinue): its block and the arguments so far
	streaming int
	args      *partialArgs
}

func (google) Decoder(m Model, now int64) Decoder {
	return &googleDecoder{b: newBuilder(m, now), now: now, ids: map[string]bool{}, streaming: -1}
}

func (d *googleDecoder) Feed(ev SSE) []Event {
	b := d.b
	if !b.ready() {
		return nil
	}
	var r struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text             *string `json:"text"`
					Thought          bool    `json:"thought"`
					ThoughtSignature string  `json:"thoughtSignature"`
					FunctionCall     *struct {
						ID           string          `json:"id"`
						Name         string          `json:"name"`
						Args         json.RawMessage `json:"args"`
						PartialArgs  []partialArg    `json:"partialArgs"`
						WillContinue bool            `json:"willContinue"`
					} `json:"functionCall"`
				} `json:"parts"`
			} `json:"content"`
			FinishReason string `json:"finishReason"`
		} `json:"candidates"`
		UsageMetadata *struct {
			Prompt     int `json:"promptTokenCount"`
			Candidates int `json:"candidatesTokenCount"`
			Thoughts   int `json:"thoughtsTokenCount"`
			Cached     int `json:"cachedContentTokenCount"`
			Total      int `json:"totalTokenCount"`
		} `json:"usageMetadata"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Status  string `json:"status"`
		} `json:"error"`
	}
	if err := json.Unmarshal(ev.Data, &r); err != nil {
		b.fail(StopError, badData(GoogleGenerativeAI, ev.Data, err))
		return b.take()
	}
	if r.Error != nil {
		b.fail(StopError, fmt.Errorf("%d %s: %s", r.Error.Code, r.Error.Status, r.Error.Message))
		return b.take()
	}
	if u := r.UsageMetadata; u != nil {
		// promptTokenCount includes the cached tokens.
		b.setUsage(Usage{Input: u.Prompt - u.Cached, Output: u.Candidates + u.Thoughts, CacheRead: u.Cached, TotalTokens: u.Total})
	}
	if len(r.Candidates) == 0 {
		return b.take()
	}
	cand := r.Candidates[0]
	for _, p := range cand.Content.Parts {
		switch {
		case p.FunctionCall != nil && d.streaming >= 0:
			// The streamed call's next arguments; a part without
			// willContinue ends it.
			fc := p.FunctionCall
			for _, a := range fc.PartialArgs {
				d.args.add(a)
			}
			if !fc.WillContinue {
				d.endCall()
			}
		case p.FunctionCall != nil:
			fc := p.FunctionCall
			id := fc.ID
			if id == "" || d.ids[id] {
				d.n++
				id = fmt.Sprintf("%s_%d_%d", fc.Name, d.now, d.n)
			}
			d.ids[id] = true
			c := ToolCallBlock(id, fc.Name, json.RawMessage("{}"))
			c.ThoughtSignature = p.ThoughtSignature
			i := b.seqBegin(c)
			if fc.WillContinue {
				d.streaming, d.args = i, &partialArgs{}
				for _, a := range fc.PartialArgs {
					d.args.add(a)
				}
				break
			}
			b.delta(i, string(callArgs(fc.Args)))
			b.seqClose()
		case p.Text != nil:
			want := "text"
			if p.Thought {
				want = "thinking"
			}
			// A part's thoughtSignature belongs to the block it is part
			// of: on the first chunk of a text part (2.5 Pro), or on a
			// trailing empty one (Gemini 3). A second signature starts a
			// new block: signed parts are never merged.
			if b.openType() != want || p.ThoughtSignature != "" && signature(b.msg.Content[b.open]) != "" {
				if want == "thinking" {
					b.seqBegin(Content{Type: "thinking"})
				} else {
					b.seqBegin(TextBlock(""))
				}
			}
			if p.ThoughtSignature != "" {
				if c := &b.msg.Content[b.open]; want == "thinking" {
					c.ThinkingSignature = p.ThoughtSignature
				} else {
					c.TextSignature = p.ThoughtSignature
				}
			}
			if *p.Text != "" {
				b.delta(b.open, *p.Text)
			}
		}
	}
	if cand.FinishReason != "" {
		d.reason = cand.FinishReason
	}
	return b.take()
}

// endCall closes the streamed call with the arguments it was given.
func (d *googleDecoder) endCall() {
	if d.streaming < 0 {
		return
	}
	d.b.delta(d.streaming, string(d.args.json()))
	d.b.seqClose()
	d.streaming, d.args = -1, nil
}

func (d *googleDecoder) End(err error) []Event {
	if err == nil && !d.b.finished && d.reason != "" {
		d.endCall()
		switch d.reason {
		case "STOP":
			d.b.done(StopStop)
		case "MAX_TOKENS":
			d.b.done(StopLength)
		default:
			if len(d.b.msg.ToolCalls()) > 0 {
				d.b.done(StopToolUse)
			} else {
				d.b.fail(StopError, fmt.Errorf("the model stopped: %s", d.reason))
			}
		}
	}
	return d.b.endOfBody(err)
}
