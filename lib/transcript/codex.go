package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// codexLine is a rollout line: {timestamp, type, payload}, or in the early
// format (before session_meta) a first line {id, timestamp, instructions,
// git}, {"record_type":"state"} markers and bare response items.
type codexLine struct {
	Timestamp    string          `json:"timestamp"`
	Type         string          `json:"type"`
	Payload      json.RawMessage `json:"payload"`
	RecordType   string          `json:"record_type"`
	ID           string          `json:"id"`
	Instructions json.RawMessage `json:"instructions"`
}

// codexItem is what the conversion reads of a response item.
type codexItem struct {
	Type      string                  `json:"type"`
	Role      string                  `json:"role"`
	Name      string                  `json:"name"`
	CallID    string                  `json:"call_id"`
	Arguments json.RawMessage         `json:"arguments"`
	Input     json.RawMessage         `json:"input"`
	Action    json.RawMessage         `json:"action"`
	Output    json.RawMessage         `json:"output"`
	Content   json.RawMessage         `json:"content"`
	Summary   []struct{ Text string } `json:"summary"`
	Encrypted string                  `json:"encrypted_content"`
	ID        string                  `json:"id"`
	Tools     json.RawMessage         `json:"tools"`
}

// whyNoResults is the result of a web search call whose results the
// rollout does not hold (they reached the model inside the response; a
// web_search_end event, when there is one, holds them).
const whyNoResults = "[web search results: not in the Codex rollout]"

// instructionPrefixes open the user messages Codex writes itself (the
// environment, AGENTS.md, permissions): kept, not replayed as prompts.
var instructionPrefixes = []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<permissions instructions>", "<INSTRUCTIONS>"}

// IsCodexInstructions tells the user messages Codex writes itself from the
// ones a person wrote.
func IsCodexInstructions(text string) bool {
	for _, p := range instructionPrefixes {
		if strings.HasPrefix(strings.TrimSpace(text), p) {
			return true
		}
	}
	return false
}

const whyEvents = "UI events that repeat the response items (token counts are read from them)"

// FromCodex converts a Codex rollout file. Consecutive items of one
// response (reasoning, text, calls) become one assistant message, so
// parallel calls are followed by their outputs.
func FromCodex(lines [][]byte, opt Options) (Result, error) {
	var res Result
	var acc accounts
	b := newBuilder(opt)
	id, cwd, first, model := "", "", "", ""
	metas := 0
	open := ""     // the assistant message the next items of a response join
	lastAsst := "" // the newest assistant message, for its token count
	counted := map[string]bool{}
	webSearches := 0
	var searchResults []string // web search results waiting for their web_search_end event
	eachLine(lines, &res.Problems, func(n int, line []byte) {
		var v codexLine
		if err := json.Unmarshal(line, &v); err != nil {
			res.Problems = append(res.Problems, Problem{n, err})
			return
		}
		if first == "" && validTime(v.Timestamp) {
			first = v.Timestamp
		}
		ts := isoOr(v.Timestamp, opt.Now)
		kind, payload := v.Type, v.Payload
		switch {
		case len(payload) == 0 && v.RecordType != "":
			acc.skip("record_type "+v.RecordType, "the early format's empty state markers", n)
			return
		case len(payload) == 0 && v.Type == "" && v.ID != "":
			kind, payload = "session_meta", line // the early format's first line
		case len(payload) == 0 && v.Type != "":
			kind, payload = "response_item", line // the early format's bare items
		}
		switch kind {
		case "session_meta":
			var p struct{ ID, Cwd string }
			json.Unmarshal(payload, &p)
			if metas == 0 {
				id, cwd = p.ID, p.Cwd
			}
			metas++
			open = ""
			acc.kept("session_meta", n)
			b.custom(ts, "codex-session_meta", payload, b.last)
		case "turn_context":
			var p struct{ Model, Cwd string }
			json.Unmarshal(payload, &p)
			if p.Model != "" {
				model = p.Model
			}
			if cwd == "" {
				cwd = p.Cwd
			}
			acc.skip("turn_context", "per-turn settings (the model and cwd are read from them)", n)
		case "event_msg":
			var p struct {
				Type    string
				Results json.RawMessage `json:"results"`
				Info    struct {
					Last *struct {
						Input  int `json:"input_tokens"`
						Cached int `json:"cached_input_tokens"`
						Output int `json:"output_tokens"`
						Total  int `json:"total_tokens"`
					} `json:"last_token_usage"`
				}
			}
			json.Unmarshal(payload, &p)
			if u := p.Info.Last; p.Type == "token_count" && u != nil && lastAsst != "" && !counted[lastAsst] {
				counted[lastAsst] = true // a turn's count is written twice
				msg := b.byID[lastAsst]["message"].(map[string]any)
				msg["usage"] = map[string]any{"input": u.Input - u.Cached, "output": u.Output, "cacheRead": u.Cached, "cacheWrite": 0,
					"totalTokens": u.Total, "cost": zeroUsage()["cost"]}
			}
			if p.Type == "web_search_end" && len(searchResults) > 0 && len(p.Results) > 0 && string(p.Results) != "null" {
				// the results of the search the item before it made, as
				// the model got them
				e := searchResults[0]
				searchResults = searchResults[1:]
				b.byID[e]["message"].(map[string]any)["content"] = []any{text(string(p.Results))}
			}
			acc.skip("event_msg", whyEvents, n)
		case "response_item":
			var it codexItem
			if err := json.Unmarshal(payload, &it); err != nil {
				var te *json.UnmarshalTypeError
				if !errors.As(err, &te) {
					res.Problems = append(res.Problems, Problem{n, err})
					return
				}
			}
			join := func(blocks ...any) {
				if open == "" {
					open = b.addAssistant(ts, map[string]any{"role": "assistant", "content": []any{}, "api": "openai-responses",
						"provider": "openai", "model": model, "stopReason": "stop", "usage": zeroUsage(), "timestamp": millis(v.Timestamp)}, b.after(b.last))
					lastAsst = open
				}
				msg := b.byID[open]["message"].(map[string]any)
				msg["content"] = append(msg["content"].([]any), blocks...)
				b.calls(open, blocks)
				for _, bl := range blocks {
					if bl.(map[string]any)["type"] == "toolCall" {
						msg["stopReason"] = "toolUse"
					}
				}
			}
			switch it.Type {
			case "message":
				switch it.Role {
				case "user":
					content := codexContent(it.Content, "message", n, &acc)
					if len(content) > 0 && IsCodexInstructions(firstText(content)) {
						acc.kept("message/user (Codex's own instructions)", n)
						b.custom(ts, "codex-instructions", payload, b.last)
						return
					}
					open = ""
					b.add(ts, userMessage(v.Timestamp, content), b.after(b.last))
				case "assistant":
					join(codexContent(it.Content, "assistant message", n, &acc)...)
				default:
					acc.kept("message/"+it.Role, n)
					b.custom(ts, "codex-"+it.Role, payload, b.last)
				}
			case "reasoning":
				var parts []string
				for _, s := range it.Summary {
					parts = append(parts, s.Text)
				}
				var raw []struct{ Text string }
				json.Unmarshal(it.Content, &raw)
				for _, s := range raw {
					parts = append(parts, s.Text)
				}
				sig := ""
				if it.Encrypted != "" {
					sig = string(payload) // as pi keeps an OpenAI reasoning item: the whole item
				}
				join(map[string]any{"type": "thinking", "thinking": strings.Join(parts, "\n\n"), "thinkingSignature": sig})
			case "function_call", "custom_tool_call", "local_shell_call":
				join(map[string]any{"type": "toolCall", "id": it.CallID, "name": codexToolName(it), "arguments": codexArguments(it)})
			case "tool_search_call":
				// a search of the tools a session defers, run by Codex: a
				// call and its output as the model saw them
				join(map[string]any{"type": "toolCall", "id": it.CallID, "name": "tool_search", "arguments": codexArguments(it)})
			case "tool_search_output":
				open = ""
				tools := it.Tools
				if len(tools) == 0 {
					tools = json.RawMessage("[]")
				}
				b.addResult(ts, it.CallID, []any{text(string(tools))}, false, b.last)
			case "web_search_call":
				// searched by the provider inside the response: the call
				// keeps its action (the query, the page opened), the result
				// says the rollout holds none
				webSearches++
				id := it.ID
				if id == "" {
					id = fmt.Sprintf("web_search_%d", webSearches)
				}
				args := it.Action
				if len(args) == 0 || args[0] != '{' {
					args = json.RawMessage(`{}`)
				}
				join(map[string]any{"type": "toolCall", "id": id, "name": "web_search", "arguments": args})
				open = ""
				searchResults = append(searchResults, b.addResult(ts, id, []any{text(whyNoResults)}, false, b.last))
			case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
				open = ""
				content := codexContent(it.Output, "tool output", n, &acc)
				if len(content) == 0 {
					content = []any{text("")}
				}
				b.addResult(ts, it.CallID, content, false, b.last)
			default:
				acc.kept("response_item/"+it.Type, n)
				b.custom(ts, "codex-"+it.Type, payload, b.last)
			}
		default:
			acc.kept(kind, n)
			b.custom(ts, "codex-"+kind, payload, b.last)
		}
	})
	if len(b.entries) == 0 {
		return res, errors.New("no messages found in the rollout")
	}
	res.Sessions = []Session{{Header: header(id, first, cwd, opt), Entries: b.done()}}
	res.Custom, res.Skipped = sorted(acc.custom), sorted(acc.skipped)
	return res, nil
}

func firstText(content []any) string {
	for _, c := range content {
		if m := c.(map[string]any); m["type"] == "text" {
			s, _ := m["text"].(string)
			return s
		}
	}
	return ""
}

func codexToolName(it codexItem) string {
	if it.Name != "" {
		return it.Name
	}
	if it.Type == "local_shell_call" {
		return "local_shell"
	}
	return "unknown"
}

// codexArguments are a call's arguments as an object: a function call's
// JSON, a custom tool's free text (apply_patch's patch) as {"input"}, a
// local shell call's action.
func codexArguments(it codexItem) json.RawMessage {
	switch it.Type {
	case "custom_tool_call":
		var s string
		if json.Unmarshal(it.Input, &s) != nil {
			s = string(it.Input)
		}
		b, _ := json.Marshal(map[string]string{"input": s})
		return b
	case "local_shell_call":
		if len(it.Action) > 0 && it.Action[0] == '{' {
			return it.Action
		}
		return json.RawMessage(`{}`)
	}
	var s string
	if json.Unmarshal(it.Arguments, &s) == nil {
		if raw := json.RawMessage(s); json.Valid(raw) && strings.HasPrefix(strings.TrimSpace(s), "{") {
			return raw
		}
		b, _ := json.Marshal(map[string]string{"input": s})
		return b
	}
	if len(it.Arguments) > 0 && it.Arguments[0] == '{' {
		return it.Arguments
	}
	return json.RawMessage(`{}`)
}

// codexContent converts message content or a tool output: a string, an
// object ({content}, or one content item) or a list of content items.
func codexContent(raw json.RawMessage, where string, n int, acc *accounts) []any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []any{text(s)}
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		var obj struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		json.Unmarshal(raw, &obj)
		if obj.Type == "" && len(obj.Content) > 0 { // {"content": …, "success": …}
			return codexContent(obj.Content, where, n, acc)
		}
		items = []json.RawMessage{raw}
	}
	var out []any
	for _, r := range items {
		var it struct {
			Type     string  `json:"type"`
			Text     string  `json:"text"`
			Refusal  string  `json:"refusal"`
			ImageURL *string `json:"image_url"`
		}
		json.Unmarshal(r, &it)
		switch it.Type {
		case "input_text", "output_text", "text":
			out = append(out, text(it.Text))
		case "refusal":
			out = append(out, text(it.Refusal))
		case "input_image":
			if where == "assistant message" {
				acc.skip("image in an assistant message", "a session's assistant messages hold no images", n)
				continue
			}
			url := ""
			if it.ImageURL != nil {
				url = *it.ImageURL
			}
			mime, data := dataURL(url)
			out = append(out, image(mime, data, url))
		default:
			acc.skip(where+" part "+it.Type, "no counterpart in a session", n)
		}
	}
	return out
}

// dataURL splits data:<mime>;base64,<data>.
func dataURL(u string) (mime, data string) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return "", ""
	}
	meta, d, ok := strings.Cut(rest, ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return "", ""
	}
	return strings.TrimSuffix(meta, ";base64"), d
}
