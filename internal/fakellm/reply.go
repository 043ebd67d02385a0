package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Reply is an answer the fake composes itself (agent mode, Server.Answer)
// rather than replays: a text, tool calls, or both, with fixed usage
// (100 tokens in, 20 out).
type Reply struct {
	ID, Model string // the message id and model named in the stream
	Text      string
	Calls     []Call
}

// Call is a tool call of a Reply.
type Call struct {
	ID, Name string
	Input    any // the arguments, marshalled to JSON
}

// SSE is the reply as the event stream of the wire API the request path
// names: Anthropic Messages (…/messages), OpenAI Responses (…/responses,
// text only), Google Generative AI (…:streamGenerateContent, text only),
// else OpenAI Chat Completions (text only).
func (r Reply) SSE(path string) []byte {
	var b bytes.Buffer
	ev := func(name string, v any) {
		j, _ := json.Marshal(v)
		if name != "" {
			fmt.Fprintf(&b, "event: %s\n", name)
		}
		fmt.Fprintf(&b, "data: %s\n\n", j)
	}
	type m = map[string]any
	switch {
	case strings.HasSuffix(path, "/messages"):
		ev("message_start", m{"type": "message_start", "message": m{"id": r.ID, "type": "message", "role": "assistant",
			"model": r.Model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": m{"input_tokens": 100, "output_tokens": 1}}})
		i, stop := 0, "end_turn"
		if r.Text != "" {
			ev("content_block_start", m{"type": "content_block_start", "index": i, "content_block": m{"type": "text", "text": ""}})
			ev("content_block_delta", m{"type": "content_block_delta", "index": i, "delta": m{"type": "text_delta", "text": r.Text}})
			ev("content_block_stop", m{"type": "content_block_stop", "index": i})
			i++
		}
		for _, c := range r.Calls {
			args, _ := json.Marshal(c.Input)
			ev("content_block_start", m{"type": "content_block_start", "index": i, "content_block": m{"type": "tool_use", "id": c.ID, "name": c.Name, "input": m{}}})
			ev("content_block_delta", m{"type": "content_block_delta", "index": i, "delta": m{"type": "input_json_delta", "partial_json": string(args)}})
			ev("content_block_stop", m{"type": "content_block_stop", "index": i})
			i, stop = i+1, "tool_use"
		}
		ev("message_delta", m{"type": "message_delta", "delta": m{"stop_reason": stop, "stop_sequence": nil}, "usage": m{"output_tokens": 20}})
		ev("message_stop", m{"type": "message_stop"})
	case strings.HasSuffix(path, "/responses"):
		ev("response.created", m{"type": "response.created", "response": m{"id": "r", "status": "in_progress"}})
		ev("response.output_item.added", m{"type": "response.output_item.added", "item": m{"type": "message", "id": r.ID}})
		ev("response.output_text.delta", m{"type": "response.output_text.delta", "item_id": r.ID, "delta": r.Text})
		ev("response.output_item.done", m{"type": "response.output_item.done", "item": m{"type": "message", "id": r.ID, "content": []any{m{"type": "output_text", "text": r.Text}}}})
		ev("response.completed", m{"type": "response.completed", "response": m{"id": "r", "status": "completed", "usage": m{"input_tokens": 100, "output_tokens": 20, "total_tokens": 120, "input_tokens_details": m{"cached_tokens": 0}}}})
	case strings.Contains(path, ":streamGenerateContent"):
		ev("", m{"candidates": []any{m{"content": m{"parts": []any{m{"text": r.Text}}, "role": "model"}, "finishReason": "STOP"}}, "usageMetadata": m{"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120}})
	default: // chat completions
		ev("", m{"id": "c", "object": "chat.completion.chunk", "choices": []any{m{"index": 0, "delta": m{"role": "assistant", "content": r.Text}}}})
		ev("", m{"id": "c", "object": "chat.completion.chunk", "choices": []any{m{"index": 0, "delta": m{}, "finish_reason": "stop"}}, "usage": m{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
		b.WriteString("data: [DONE]\n\n")
	}
	return b.Bytes()
}
