package llm

import (
	"encoding/json"
	"fmt"
	"strings"
)

type responses struct{}

func (responses) Request(m Model, c Context, o Options) (Request, error) {
	level := m.ClampThinking(o.Thinking)
	// The input items are built while the body is encoded, one message at
	// a time. A gpt-5 model asked not to reason gets the "Juice: 0"
	// developer item last.
	juice := m.Reasoning && level == "off" && strings.HasPrefix(m.ID, "gpt-5")
	input := lazyArray(func(emit func(any)) error {
		if c.SystemPrompt != "" {
			role := "system"
			if m.Reasoning {
				role = "developer"
			}
			emit(map[string]any{"role": role, "content": c.SystemPrompt})
		}
		n := -1 // the message's place in the normalised history
		err := NormalizeEach(c, m, func(id string) string { return id }, func(msg Message) {
			n++
			switch msg.Role {
			case "user":
				var parts []any
				for _, b := range msg.Content {
					switch b.Type {
					case "text":
						parts = append(parts, obj{{"text", b.Text}, {"type", "input_text"}})
					case "image":
						if m.Images() {
							parts = append(parts, obj{{"detail", "auto"}, {"image_url", "data:" + b.MimeType + ";base64," + b.Data}, {"type", "input_image"}})
						}
					}
				}
				if len(parts) > 0 {
					emit(obj{{"content", parts}, {"role", "user"}})
				}
			case "assistant":
				same := msg.Provider == m.Provider && msg.Model == m.ID
				for _, b := range msg.Content {
					switch b.Type {
					case "thinking":
						if strings.HasPrefix(b.ThinkingSignature, "{") {
							emit(json.RawMessage(b.ThinkingSignature))
						}
					case "text":
						id := b.TextSignature
						if id == "" {
							id = fmt.Sprintf("msg_%d", n)
						}
						emit(obj{{"content", []any{obj{{"annotations", []any{}}, {"text", b.Text}, {"type", "output_text"}}}},
							{"id", id}, {"role", "assistant"}, {"status", "completed"}, {"type", "message"}})
					case "toolCall":
						callID, itemID, _ := strings.Cut(b.ID, "|")
						item := obj{{"arguments", string(callArgs(b.Arguments))}, {"call_id", safeID(callID, 64)}, {"name", b.Name}, {"type", "function_call"}}
						if itemID != "" && !(!same && strings.HasPrefix(itemID, "fc_")) {
							if !strings.HasPrefix(itemID, "fc_") {
								itemID = "fc_" + itemID
							}
							item = set(item, "id", strings.TrimRight(safeID(itemID, 64), "_"))
						}
						emit(item)
					}
				}
			case "toolResult":
				callID, _, _ := strings.Cut(msg.ToolCallID, "|")
				var texts []string
				var images []any
				for _, b := range msg.Content {
					if b.Type == "text" {
						texts = append(texts, b.Text)
					} else if b.Type == "image" && m.Images() {
						images = append(images, obj{{"detail", "auto"}, {"image_url", "data:" + b.MimeType + ";base64," + b.Data}, {"type", "input_image"}})
					}
				}
				out := strings.Join(texts, "\n")
				if out == "" && len(images) > 0 {
					out = "(see attached image)"
				}
				emit(obj{{"call_id", safeID(callID, 64)}, {"output", out}, {"type", "function_call_output"}})
				if len(images) > 0 {
					emit(map[string]any{"role": "user", "content": append([]any{map[string]any{"type": "input_text", "text": "Attached image(s) from tool result:"}}, images...)})
				}
			}

		})
		if err != nil {
			return err
		}
		if juice {
			emit(map[string]any{"role": "developer", "content": "# Juice: 0 !important"})
		}
		return nil
	})
	body := map[string]any{"model": m.ID, "input": input, "stream": true, "store": false, "max_output_tokens": maxTokens(m, o)}
	if o.CacheRetention != "none" && o.SessionID != "" {
		body["prompt_cache_key"] = o.SessionID
		if o.CacheRetention == "long" && strings.Contains(m.BaseURL, "api.openai.com") {
			body["prompt_cache_retention"] = "24h"
		}
	}
	if o.Temperature != nil {
		body["temperature"] = *o.Temperature
	}
	if len(c.Tools) > 0 {
		var tools []any
		for _, t := range c.Tools {
			tools = append(tools, map[string]any{"type": "function", "name": t.Name, "description": t.Description, "parameters": objectSchema(t.Parameters), "strict": false})
		}
		body["tools"] = tools
	}
	switch tc := o.ToolChoice; {
	case tc == "":
	case strings.HasPrefix(tc, "tool:"):
		body["tool_choice"] = map[string]any{"type": "function", "name": strings.TrimPrefix(tc, "tool:")}
	case tc == "any":
		body["tool_choice"] = "required"
	default:
		body["tool_choice"] = tc
	}
	if m.Reasoning {
		body["include"] = []string{"reasoning.encrypted_content"}
		if level != "off" {
			effort := level
			if effort == "xhigh" && !m.SupportsXhigh() {
				effort = "high"
			}
			body["reasoning"] = map[string]any{"effort": effort, "summary": "auto"}
		}
	}
	return post(m, "/responses", body)
}

type responsesDecoder struct {
	b     *builder
	items map[string]int // item id → content index
	// output index → content index: GitHub Copilot gives every event of an
	// item an id of its own, so its events are found by their
	// output_index, as the SDKs do
	outputs map[int]int
	// bytes streamed of each text part, by content index and part
	streamed map[[2]int]int
}

func (responses) Decoder(m Model, now int64) Decoder {
	return &responsesDecoder{b: newBuilder(m, now), items: map[string]int{}, outputs: map[int]int{}, streamed: map[[2]int]int{}}
}

// block is the content index of an event's item: by its id, else by its
// output index.
func (d *responsesDecoder) block(id string, output *int) (int, bool) {
	if i, ok := d.items[id]; ok {
		return i, true
	}
	if output != nil {
		i, ok := d.outputs[*output]
		return i, ok
	}
	return 0, false
}

// add notes a new item's content index.
func (d *responsesDecoder) add(id string, output *int, i int) {
	d.items[id] = i
	if output != nil {
		d.outputs[*output] = i
	}
}

func (d *responsesDecoder) Feed(ev SSE) []Event {
	b := d.b
	if b.finished {
		return nil
	}
	var e struct {
		Type   string          `json:"type"`
		ItemID string          `json:"item_id"`
		Output *int            `json:"output_index"`
		Part   int             `json:"content_index"`
		Delta  string          `json:"delta"`
		Text   string          `json:"text"`
		Item   json.RawMessage `json:"item"`
		Args   string          `json:"arguments"`
		Code   string          `json:"code"`
		Msg    string          `json:"message"`
		Error  *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"` // OpenAI's error event nests them
		Resp struct {
			Status string `json:"status"`
			Usage  *struct {
				InputTokens        int `json:"input_tokens"`
				OutputTokens       int `json:"output_tokens"`
				TotalTokens        int `json:"total_tokens"`
				InputTokensDetails struct {
					CachedTokens int `json:"cached_tokens"`
				} `json:"input_tokens_details"`
			} `json:"usage"`
			Error *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		} `json:"response"`
	}
	if err := json.Unmarshal(ev.Data, &e); err != nil {
		b.fail(StopError, badData(OpenAIResponses, ev.Data, err))
		return b.take()
	}
	var item struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		CallID  string `json:"call_id"`
		Name    string `json:"name"`
		Args    string `json:"arguments"`
		Summary []struct {
			Text string `json:"text"`
		} `json:"summary"`
		Content []struct {
			Type    string `json:"type"`
			Text    string `json:"text"`
			Refusal string `json:"refusal"`
		} `json:"content"`
	}
	if len(e.Item) > 0 {
		_ = json.Unmarshal(e.Item, &item)
	}
	switch e.Type {
	case "response.created":
		b.start()
	case "response.output_item.added":
		switch item.Type {
		case "reasoning":
			d.add(item.ID, e.Output, b.begin(Content{Type: "thinking"}))
		case "message":
			d.add(item.ID, e.Output, b.begin(TextBlock("")))
		case "function_call":
			i := b.begin(ToolCallBlock(item.CallID+"|"+item.ID, item.Name, json.RawMessage("{}")))
			d.add(item.ID, e.Output, i)
			if item.Args != "" {
				b.json[i] = item.Args
			}
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta", "response.output_text.delta", "response.refusal.delta", "response.function_call_arguments.delta":
		if i, ok := d.block(e.ItemID, e.Output); ok {
			b.delta(i, e.Delta)
			d.streamed[[2]int{i, e.Part}] += len(e.Delta)
		}
	case "response.output_text.done":
		// A final text longer than its deltas: the rest goes out as a
		// delta, so a live view shows what the message will hold.
		if i, ok := d.block(e.ItemID, e.Output); ok {
			n := d.streamed[[2]int{i, e.Part}]
			if c := b.msg.Content[i]; len(e.Text) > n && strings.HasSuffix(c.Text, e.Text[:n]) {
				b.delta(i, e.Text[n:])
				d.streamed[[2]int{i, e.Part}] = len(e.Text)
			}
		}
	case "response.reasoning_summary_part.done":
		if i, ok := d.block(e.ItemID, e.Output); ok {
			b.delta(i, "\n\n")
		}
	case "response.function_call_arguments.done":
		if i, ok := d.block(e.ItemID, e.Output); ok {
			b.json[i] = e.Args
		}
	case "response.output_item.done":
		i, ok := d.block(item.ID, e.Output)
		if !ok {
			break
		}
		c := &b.msg.Content[i]
		switch item.Type {
		case "reasoning":
			// The summary (OpenAI), or the raw chain of thought in
			// content[] (reasoning_text: OpenRouter, LM Studio, DeepSeek,
			// vLLM), or both.
			var parts []string
			for _, s := range item.Summary {
				parts = append(parts, s.Text)
			}
			for _, p := range item.Content {
				parts = append(parts, p.Text)
			}
			c.Thinking = strings.Join(parts, "\n\n")
			c.ThinkingSignature = string(e.Item)
		case "message":
			var parts []string
			for _, p := range item.Content {
				parts = append(parts, p.Text+p.Refusal)
			}
			c.Text = strings.Join(parts, "")
			c.TextSignature = item.ID
		case "function_call":
			if item.Args != "" {
				b.json[i] = item.Args
			}
		}
		b.end(i)
		for id, j := range d.items {
			if j == i {
				delete(d.items, id)
			}
		}
		if e.Output != nil {
			delete(d.outputs, *e.Output)
		}
	case "response.completed", "response.incomplete":
		if u := e.Resp.Usage; u != nil {
			cached := u.InputTokensDetails.CachedTokens
			b.setUsage(Usage{Input: u.InputTokens - cached, Output: u.OutputTokens, CacheRead: cached, TotalTokens: u.TotalTokens})
		}
		switch e.Resp.Status {
		case "incomplete":
			b.done(StopLength)
		case "failed", "cancelled":
			b.fail(StopError, fmt.Errorf("response %s", e.Resp.Status))
		default:
			b.done(StopStop)
		}
	case "response.failed":
		if er := e.Resp.Error; er != nil {
			b.fail(StopError, fmt.Errorf("Error Code %s: %s", er.Code, er.Message))
		} else {
			b.fail(StopError, fmt.Errorf("Unknown error"))
		}
	case "error":
		if er := e.Error; er != nil && e.Msg == "" {
			e.Code, e.Msg = er.Code, er.Message
		}
		b.fail(StopError, fmt.Errorf("Error Code %s: %s", e.Code, e.Msg))
	}
	return b.take()
}

func (d *responsesDecoder) End(err error) []Event { return d.b.endOfBody(err) }
