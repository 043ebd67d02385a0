package llm

// The recorded provider streams of ../shared/corpus/provider-streams (live
// Anthropic, Chat Completions, Responses and Gemini calls, and the
// OpenAI-compatible servers), decoded and checked for loss. make interop
// runs this; it skips when the corpus is absent.
//
// "Without loss" is checked against an expectation built from the raw SSE
// by the small readers below (written apart from the codecs, from each
// wire's documentation), and means:
//   - text: the concatenated text of the stream equals our text blocks';
//   - thinking: the reasoning text (thinking deltas, reasoning_content,
//     reasoning, reasoning_text, reasoning summaries, Mistral thinking
//     chunks, Gemini thought parts) equals our thinking blocks' (compared
//     without whitespace: summary parts are joined by a blank line);
//   - opaque reasoning state: every signature, redacted-thinking data,
//     encrypted reasoning item, OpenRouter reasoning_details signature or
//     encrypted data and Gemini thoughtSignature is held in the message
//     (a provider wants it back verbatim);
//   - tool calls: the same calls in order, with the wire's id kept, the
//     same name and JSON-equal arguments;
//   - usage: input (without cached tokens), output (thinking included),
//     cacheRead and cacheWrite equal the last usage the stream reported;
//   - stop reason: the wire's finish reason maps to ours (and a stream
//     that ends without its end marker is an error);
//   - errors: an error the stream carries ends in an error message
//     holding the provider's text; an answer with none of the above and
//     no error is an error too (nothing is a silent success).
// Out of scope: Anthropic server-tool blocks (server_tool_use, web search
// and code execution results; we never enable server tools), citations,
// logprobs.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// corpusDir is ../shared/corpus beside the repository (AGENTUTILS_CORPUS
// overrides it).
func corpusDir() string {
	if d := os.Getenv("AGENTUTILS_CORPUS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "corpus")
}

type corpusEntry struct {
	Name     string  `json:"name"`
	API      string  `json:"api"`
	Provider string  `json:"provider"`
	Model    string  `json:"model"`
	Compat   *Compat `json:"compat"`
}

func TestProviderStreamCorpus(t *testing.T) {
	dir := filepath.Join(corpusDir(), "provider-streams")
	raw, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Skipf("provider-stream corpus absent (%v)", err)
	}
	var index []corpusEntry
	if err := json.Unmarshal(raw, &index); err != nil {
		t.Fatal(err)
	}
	ok := 0
	for _, e := range index {
		t.Run(e.Name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, e.Name+".sse"))
			if err != nil {
				t.Fatal(err)
			}
			var losses []string
			for i, part := range splitResponses(e.API, data) {
				for _, l := range checkStream(e, part) {
					losses = append(losses, fmt.Sprintf("response %d: %s", i+1, l))
				}
			}
			for _, l := range losses {
				t.Errorf("%s: %s", e.Name, l)
			}
			if len(losses) == 0 {
				ok++
			}
		})
	}
	// make interop prints this line.
	fmt.Printf("provider streams: %d/%d decode without loss\n", ok, len(index))
}

// splitResponses cuts a Responses recording into one body per
// response.created: the Vercel AI SDK fixtures of a multi-step call
// (responses-reasoning-encrypted) hold several responses in one file,
// where the wire has one per HTTP response.
func splitResponses(api string, data []byte) [][]byte {
	if api != OpenAIResponses {
		return [][]byte{data}
	}
	var out [][]byte
	const mark = "event: response.created"
	for {
		i := bytes.Index(data[1:], []byte(mark))
		if i < 0 {
			return append(out, data)
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
}

// checkStream decodes one recording and lists what it lost.
func checkStream(e corpusEntry, data []byte) []string {
	var sses []SSE
	r := NewSSEReader(bytes.NewReader(data))
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return []string{err.Error()}
		}
		sses = append(sses, ev)
	}
	codec, err := CodecFor(e.API)
	if err != nil {
		return []string{err.Error()}
	}
	m := Model{ID: e.Model, API: e.API, Provider: e.Provider, Reasoning: true, Compat: e.Compat}
	var evs []Event
	var losses []string
	func() {
		defer func() {
			if p := recover(); p != nil {
				losses = append(losses, fmt.Sprintf("panic: %v", p))
			}
		}()
		dec := codec.Decoder(m, 1)
		for _, ev := range sses {
			evs = append(evs, dec.Feed(ev)...)
		}
		evs = append(evs, dec.End(nil)...)
	}()
	if len(losses) > 0 {
		return losses
	}
	terminal := 0
	for _, ev := range evs {
		if ev.Final() != nil {
			terminal++
		}
	}
	if terminal != 1 || evs[len(evs)-1].Final() == nil {
		return []string{fmt.Sprintf("%d terminal events, want one, last", terminal)}
	}
	got := *evs[len(evs)-1].Final()
	var want expectation
	switch e.API {
	case AnthropicMessages:
		want = expectAnthropic(sses)
	case OpenAICompletions:
		want = expectCompletions(sses)
	case OpenAIResponses:
		want = expectResponses(sses)
	case GoogleGenerativeAI:
		want = expectGoogle(sses)
	}
	// An answer with nothing we keep and no error is an error (api.go),
	// the provider's last event in its message.
	if want.err == "" && want.stop != StopError && noSpace(want.text) == "" && noSpace(want.thinking) == "" && len(want.calls) == 0 {
		want.err = "held no text, no tool call and no error"
	}
	return want.compare(got)
}

type wantCall struct {
	id, name, args string
}

type expectation struct {
	text, thinking string
	opaque         []string
	calls          []*wantCall
	usage          *Usage
	stop           string // ours
	err            string // the provider's error text
}

func (w *expectation) compare(got Message) []string {
	var out []string
	var text, thinking strings.Builder
	for _, c := range got.Content {
		switch c.Type {
		case "text":
			text.WriteString(c.Text)
		case "thinking":
			thinking.WriteString(c.Thinking)
		}
	}
	if text.String() != w.text {
		out = append(out, fmt.Sprintf("text: got %d bytes %q, want %d bytes %q", text.Len(), clip(text.String()), len(w.text), clip(w.text)))
	}
	if g, x := noSpace(thinking.String()), noSpace(w.thinking); g != x {
		out = append(out, fmt.Sprintf("thinking: got %d chars %q, want %d chars %q", len(g), clip(g), len(x), clip(x)))
	}
	msgJSON, _ := json.Marshal(got)
	for _, s := range w.opaque {
		if !containsOpaque(msgJSON, s) {
			out = append(out, fmt.Sprintf("opaque reasoning state lost: %q", clip(s)))
		}
	}
	calls := got.ToolCalls()
	if len(calls) != len(w.calls) {
		out = append(out, fmt.Sprintf("tool calls: got %d, want %d", len(calls), len(w.calls)))
	} else {
		for i, c := range w.calls {
			g := calls[i]
			if g.Name != c.name {
				out = append(out, fmt.Sprintf("tool call %d: name %q, want %q", i, g.Name, c.name))
			}
			if c.id != "" && !strings.Contains(g.ID, c.id) {
				out = append(out, fmt.Sprintf("tool call %d: id %q, want %q kept", i, g.ID, c.id))
			}
			if !jsonEqual(g.Arguments, c.args) {
				out = append(out, fmt.Sprintf("tool call %d: arguments %s, want %s", i, g.Arguments, c.args))
			}
		}
	}
	if w.usage != nil {
		u := Usage{}
		if got.Usage != nil {
			u = *got.Usage
		}
		g := [4]int{u.Input, u.Output, u.CacheRead, u.CacheWrite}
		x := [4]int{w.usage.Input, w.usage.Output, w.usage.CacheRead, w.usage.CacheWrite}
		if g != x {
			out = append(out, fmt.Sprintf("usage (input, output, cacheRead, cacheWrite): got %v, want %v", g, x))
		}
	}
	stop := w.stop
	if w.err != "" {
		stop = StopError
	}
	if stop == StopStop && len(w.calls) > 0 {
		stop = StopToolUse
	}
	if got.StopReason != stop {
		out = append(out, fmt.Sprintf("stop reason %q (%s), want %q", got.StopReason, got.ErrorMessage, stop))
	}
	if w.err != "" && !strings.Contains(got.ErrorMessage, w.err) {
		out = append(out, fmt.Sprintf("error message %q does not hold the provider's %q", got.ErrorMessage, w.err))
	}
	return out
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:40] + "…" + s[len(s)-40:]
	}
	return s
}

func noSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// containsOpaque: s is in the message JSON as a string, or inside a string
// that holds JSON.
func containsOpaque(msg []byte, s string) bool {
	once, _ := json.Marshal(s)
	once = once[1 : len(once)-1]
	twice, _ := json.Marshal(string(once))
	twice = twice[1 : len(twice)-1]
	return bytes.Contains(msg, once) || bytes.Contains(msg, twice)
}

func jsonEqual(a json.RawMessage, b string) bool {
	if strings.TrimSpace(b) == "" {
		b = "{}"
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return string(a) == b
	}
	return reflect.DeepEqual(x, y)
}

// js is a generic JSON value with path access.
type js = map[string]any

func parse(data []byte) js {
	var v js
	_ = json.Unmarshal(data, &v)
	return v
}

func get(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(js)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func str(v any, path ...string) string {
	s, _ := get(v, path...).(string)
	return s
}

func num(v any, path ...string) (int, bool) {
	f, ok := get(v, path...).(float64)
	return int(f), ok
}

func list(v any, path ...string) []any {
	l, _ := get(v, path...).([]any)
	return l
}

func rawJSON(v any) string {
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Anthropic Messages: content blocks by index, usage in message_start and
// message_delta (the later value of a field wins), error events.
func expectAnthropic(sses []SSE) expectation {
	var w expectation
	var u Usage
	hasUsage := false
	calls := map[int]*wantCall{}
	sigs := map[int]string{}
	stopped, reason := false, ""
	readUsage := func(v any) {
		if v == nil {
			return
		}
		hasUsage = true
		for k, dst := range map[string]*int{"input_tokens": &u.Input, "output_tokens": &u.Output,
			"cache_read_input_tokens": &u.CacheRead, "cache_creation_input_tokens": &u.CacheWrite} {
			if n, ok := num(v, k); ok {
				*dst = n
			}
		}
	}
	// begin reads a block at wire index i (-1: a whole block in
	// message_start, its arguments complete).
	begin := func(b any, i int) {
		switch str(b, "type") {
		case "text":
			w.text += str(b, "text")
		case "thinking":
			w.thinking += str(b, "thinking")
			if i >= 0 {
				sigs[i] = str(b, "signature")
			} else if s := str(b, "signature"); s != "" {
				w.opaque = append(w.opaque, s)
			}
		case "redacted_thinking":
			w.opaque = append(w.opaque, str(b, "data"))
		case "tool_use":
			c := &wantCall{id: str(b, "id"), name: str(b, "name")}
			if in := rawJSON(get(b, "input")); in != "{}" {
				c.args = in
			}
			if i >= 0 {
				calls[i] = c
			}
			w.calls = append(w.calls, c)
		}
	}
	for _, ev := range sses {
		v := parse(ev.Data)
		i, _ := num(v, "index")
		switch str(v, "type") {
		case "message_start":
			readUsage(get(v, "message", "usage"))
			// A second one drops the calls the first left open.
			for _, c := range calls {
				for k, x := range w.calls {
					if x == c {
						w.calls = append(w.calls[:k], w.calls[k+1:]...)
						break
					}
				}
			}
			calls = map[int]*wantCall{}
			// Blocks and a stop reason in the message itself.
			for _, b := range list(v, "message", "content") {
				begin(b, -1)
			}
			if r := str(v, "message", "stop_reason"); r != "" {
				reason = r
			}
		case "content_block_start":
			begin(get(v, "content_block"), i)
		case "content_block_delta":
			d := get(v, "delta")
			switch str(d, "type") {
			case "text_delta":
				w.text += str(d, "text")
			case "thinking_delta":
				w.thinking += str(d, "thinking")
			case "signature_delta":
				sigs[i] += str(d, "signature")
			case "input_json_delta":
				if c := calls[i]; c != nil {
					c.args += str(d, "partial_json")
				}
			}
		case "content_block_stop":
			delete(calls, i)
			if s := sigs[i]; s != "" {
				w.opaque = append(w.opaque, s)
			}
			delete(sigs, i)
		case "message_delta":
			readUsage(get(v, "usage"))
			if s := str(v, "delta", "stop_reason"); s != "" {
				reason = s
			}
		case "message_stop":
			stopped = true
		case "error":
			w.err = str(v, "error", "message")
		}
	}
	if hasUsage {
		w.usage = &u
	}
	w.stop = StopError
	if stopped {
		w.stop = stopOf(reason, map[string]string{"max_tokens": StopLength, "tool_use": StopToolUse, "refusal": StopError}, StopStop)
	}
	return w
}

// stopOf maps a wire finish reason to ours (other when not in the table).
func stopOf(reason string, table map[string]string, other string) string {
	if s, ok := table[reason]; ok {
		return s
	}
	return other
}

// Chat Completions: choices[0].delta (content as a string or, Mistral, an
// array of text/thinking chunks; reasoning_content / reasoning /
// reasoning_text; OpenRouter reasoning_details; tool_calls by index, or by
// id when the index is missing), finish_reason, the last usage, error
// chunks.
func expectCompletions(sses []SSE) expectation {
	var w expectation
	calls := map[string]*wantCall{}
	details := map[string]string{} // OpenRouter signature / encrypted data by type and index
	var detailKeys []string
	var last *wantCall
	done, reason := false, ""
	for _, ev := range sses {
		if strings.TrimSpace(string(ev.Data)) == "[DONE]" {
			done = true
			continue
		}
		v := parse(ev.Data)
		if e := get(v, "error"); e != nil {
			w.err = str(e, "message")
		}
		if u := get(v, "usage"); u != nil {
			in, _ := num(u, "prompt_tokens")
			out, _ := num(u, "completion_tokens")
			cached, ok := num(u, "prompt_tokens_details", "cached_tokens")
			if !ok {
				cached, _ = num(u, "prompt_cache_hit_tokens")
			}
			write, _ := num(u, "prompt_tokens_details", "cache_write_tokens")
			w.usage = &Usage{Input: in - cached - write, Output: out, CacheRead: cached, CacheWrite: write}
		}
		ch := list(v, "choices")
		if len(ch) == 0 {
			continue
		}
		d := get(ch[0], "delta")
		switch c := get(d, "content").(type) {
		case string:
			w.text += c
		case []any:
			for _, part := range c {
				switch str(part, "type") {
				case "text":
					w.text += str(part, "text")
				case "thinking":
					for _, t := range list(part, "thinking") {
						w.thinking += str(t, "text")
					}
				}
			}
		}
		reasoning := false
		for _, f := range []string{"reasoning_content", "reasoning", "reasoning_text"} {
			if s := str(d, f); s != "" {
				w.thinking += s
				reasoning = true
				break
			}
		}
		for _, rd := range list(d, "reasoning_details") {
			if !reasoning {
				w.thinking += str(rd, "text") + str(rd, "summary")
			}
			n, _ := num(rd, "index")
			for _, f := range []string{"signature", "data"} {
				if s := str(rd, f); s != "" {
					k := fmt.Sprintf("%s/%d/%s", str(rd, "type"), n, f)
					if _, ok := details[k]; !ok {
						detailKeys = append(detailKeys, k)
					}
					details[k] += s
				}
			}
		}
		for _, tc := range list(d, "tool_calls") {
			key := ""
			if n, ok := num(tc, "index"); ok {
				key = fmt.Sprint(n)
			} else if id := str(tc, "id"); id != "" {
				key = id
			}
			c := calls[key]
			if key == "" {
				c = last
			}
			if c == nil {
				c = &wantCall{id: str(tc, "id")}
				calls[key] = c
				w.calls = append(w.calls, c)
			}
			last = c
			c.name += str(tc, "function", "name")
			c.args += str(tc, "function", "arguments")
		}
		if s := str(ch[0], "finish_reason"); s != "" {
			reason = s
		}
	}
	for _, k := range detailKeys {
		w.opaque = append(w.opaque, details[k])
	}
	w.stop = stopOf(reason, map[string]string{"length": StopLength, "tool_calls": StopToolUse, "content_filter": StopError}, StopStop)
	if !done && reason == "" {
		w.stop = StopError
	}
	return w
}

// Responses: the finished output items (message text and refusals,
// reasoning summaries and raw reasoning content, encrypted reasoning,
// function calls), the usage of response.completed / incomplete, error and
// response.failed events.
func expectResponses(sses []SSE) expectation {
	var w expectation
	w.stop = StopError
	for _, ev := range sses {
		v := parse(ev.Data)
		switch str(v, "type") {
		case "response.output_item.done":
			it := get(v, "item")
			switch str(it, "type") {
			case "message":
				for _, p := range list(it, "content") {
					w.text += str(p, "text") + str(p, "refusal")
				}
			case "reasoning":
				for _, p := range list(it, "summary") {
					w.thinking += str(p, "text")
				}
				for _, p := range list(it, "content") {
					w.thinking += str(p, "text")
				}
				if s := str(it, "encrypted_content"); s != "" {
					w.opaque = append(w.opaque, s)
				}
			case "function_call":
				w.calls = append(w.calls, &wantCall{id: str(it, "call_id"), name: str(it, "name"), args: str(it, "arguments")})
			}
		case "response.completed", "response.incomplete":
			if u := get(v, "response", "usage"); u != nil {
				in, _ := num(u, "input_tokens")
				out, _ := num(u, "output_tokens")
				cached, _ := num(u, "input_tokens_details", "cached_tokens")
				w.usage = &Usage{Input: in - cached, Output: out, CacheRead: cached}
			}
			w.stop = StopStop
			if str(v, "response", "status") == "incomplete" {
				w.stop = StopLength
			}
		case "response.failed":
			if m := str(v, "response", "error", "message"); m != "" {
				w.err = m
			}
		case "error":
			w.err = str(v, "message")
			if w.err == "" {
				w.err = str(v, "error", "message")
			}
		}
	}
	return w
}

// Gemini: candidate parts (text, thought text, functionCall, and any
// thoughtSignature), the finish reason, the last usageMetadata (the prompt
// count includes the cached tokens).
func expectGoogle(sses []SSE) expectation {
	var w expectation
	reason := ""
	var streamed *wantArgs
	for _, ev := range sses {
		v := parse(ev.Data)
		if e := get(v, "error"); e != nil {
			w.err = str(e, "message")
		}
		if u := get(v, "usageMetadata"); u != nil {
			p, _ := num(u, "promptTokenCount")
			c, _ := num(u, "candidatesTokenCount")
			t, _ := num(u, "thoughtsTokenCount")
			k, _ := num(u, "cachedContentTokenCount")
			w.usage = &Usage{Input: p - k, Output: c + t, CacheRead: k}
		}
		cands := list(v, "candidates")
		if len(cands) == 0 {
			continue
		}
		for _, p := range list(cands[0], "content", "parts") {
			if fc := get(p, "functionCall"); fc != nil {
				// Streamed arguments (partialArgs) until a part without
				// willContinue: values by path, strings joined.
				more, _ := get(fc, "willContinue").(bool)
				if streamed != nil {
					for _, a := range list(fc, "partialArgs") {
						streamed.add(a)
					}
					if !more {
						streamed.call.args = streamed.json()
						streamed = nil
					}
					continue
				}
				c := &wantCall{id: str(fc, "id"), name: str(fc, "name"), args: rawJSON(get(fc, "args"))}
				w.calls = append(w.calls, c)
				if more {
					streamed = &wantArgs{call: c, values: map[string]any{}}
					for _, a := range list(fc, "partialArgs") {
						streamed.add(a)
					}
				}
			} else if b, _ := get(p, "thought").(bool); b {
				w.thinking += str(p, "text")
			} else {
				w.text += str(p, "text")
			}
			if s := str(p, "thoughtSignature"); s != "" {
				w.opaque = append(w.opaque, s)
			}
		}
		if s := str(cands[0], "finishReason"); s != "" {
			reason = s
		}
	}
	if streamed != nil {
		streamed.call.args = streamed.json()
	}
	w.stop = stopOf(reason, map[string]string{"STOP": StopStop, "MAX_TOKENS": StopLength}, StopError)
	return w
}

// wantArgs are a streamed Gemini call's arguments: the value at each
// JSON path ($.a.b[0].c), a string joined from its pieces.
type wantArgs struct {
	call   *wantCall
	order  []string
	values map[string]any
}

func (a *wantArgs) add(arg any) {
	path := str(arg, "jsonPath")
	var v any
	if s, ok := get(arg, "stringValue").(string); ok {
		old, _ := a.values[path].(string)
		v = old + s
	} else if n, ok := get(arg, "numberValue").(float64); ok {
		v = n
	} else if b, ok := get(arg, "boolValue").(bool); ok {
		v = b
	}
	if _, seen := a.values[path]; !seen {
		a.order = append(a.order, path)
	}
	a.values[path] = v
}

var pathPart = regexp.MustCompile(`\.([A-Za-z0-9_]+)|\[([0-9]+)\]`)

// json builds the object: each path's steps made, arrays grown to fit.
func (a *wantArgs) json() string {
	var root any = map[string]any{}
	for _, path := range a.order {
		steps := pathPart.FindAllStringSubmatch(path, -1)
		var build func(node any, i int) any
		build = func(node any, i int) any {
			if i == len(steps) {
				return a.values[path]
			}
			if key := steps[i][1]; key != "" {
				m, _ := node.(map[string]any)
				if m == nil {
					m = map[string]any{}
				}
				m[key] = build(m[key], i+1)
				return m
			}
			n, _ := strconv.Atoi(steps[i][2])
			arr, _ := node.([]any)
			for len(arr) <= n {
				arr = append(arr, nil)
			}
			arr[n] = build(arr[n], i+1)
			return arr
		}
		root = build(root, 0)
	}
	b, _ := json.Marshal(root)
	return string(b)
}
