package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

func testModel(api string) Model {
	return Model{ID: "test-model", API: api, Provider: "fake", BaseURL: "http://127.0.0.1:1", Reasoning: true,
		Input: []string{"text", "image"}, Cost: Prices{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
		ContextWindow: 200000, MaxTokens: 64000}
}

// decodeFile runs a recorded SSE body through a codec's decoder.
func decodeFile(t *testing.T, api, path string) []Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	codec, err := CodecFor(api)
	if err != nil {
		t.Fatal(err)
	}
	dec := codec.Decoder(testModel(api), 1700000000000)
	r := NewSSEReader(bytes.NewReader(data))
	var out []Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, dec.Feed(ev)...)
	}
	return append(out, dec.End(nil)...)
}

// summary renders an event sequence compactly for golden files: one line
// per event, then the final message.
func summary(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "%s", e.Type)
		if e.ContentIndex != nil {
			fmt.Fprintf(&b, " [%d]", *e.ContentIndex)
		}
		if e.Delta != "" {
			fmt.Fprintf(&b, " %q", e.Delta)
		}
		if e.Content != "" {
			fmt.Fprintf(&b, " content=%q", e.Content)
		}
		if e.ToolCall != nil {
			tc, _ := json.Marshal(e.ToolCall)
			fmt.Fprintf(&b, " %s", tc)
		}
		if e.Reason != "" {
			fmt.Fprintf(&b, " reason=%s", e.Reason)
		}
		b.WriteByte('\n')
	}
	if n := len(evs); n > 0 {
		if m := evs[n-1].Final(); m != nil {
			j, _ := json.MarshalIndent(m, "", "  ")
			b.Write(j)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./lib/llm -update)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s (-want +got):\n%s", path, d)
	}
}

func TestDecodeGolden(t *testing.T) {
	apis := map[string]string{"anthropic": AnthropicMessages, "openai": OpenAICompletions, "responses": OpenAIResponses, "google": GoogleGenerativeAI}
	files, _ := filepath.Glob("../../testdata/sse/*/*.sse")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		api := apis[filepath.Base(filepath.Dir(f))]
		t.Run(f, func(t *testing.T) {
			evs := decodeFile(t, api, f)
			terminal := 0
			for _, e := range evs {
				if e.Type == "done" || e.Type == "error" {
					terminal++
				}
			}
			if terminal != 1 || evs[len(evs)-1].Final() == nil {
				t.Fatalf("want exactly one terminal event, last; got %d:\n%s", terminal, summary(evs))
			}
			golden(t, strings.TrimSuffix(f, ".sse")+".golden", summary(evs))
		})
	}
}

func TestRequestGolden(t *testing.T) {
	ctx := Context{
		SystemPrompt: "You are a test.",
		Tools:        []Tool{{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
		Messages: []Message{
			{Role: "user", Content: []Content{TextBlock("read main.go"), ImageBlock("iVBORw0KGgo=", "image/png")}, Timestamp: 1},
			{Role: "assistant", API: AnthropicMessages, Provider: "other", Model: "old", StopReason: StopToolUse, Timestamp: 2,
				Content: []Content{{Type: "thinking", Thinking: "from another model", ThinkingSignature: "sig"}, TextBlock("Reading."),
					ToolCallBlock("toolu_1", "read", json.RawMessage(`{"path":"main.go"}`))}},
			{Role: "toolResult", ToolCallID: "toolu_1", ToolName: "read", Content: []Content{TextBlock("package main")}, Timestamp: 3},
			{Role: "assistant", StopReason: StopToolUse, Timestamp: 4, Content: []Content{ToolCallBlock("toolu_2", "read", json.RawMessage(`{"path":"x"}`))}},
			{Role: "user", Content: []Content{TextBlock("and now?")}, Timestamp: 5},
		},
	}
	for _, api := range []string{AnthropicMessages, OpenAICompletions, OpenAIResponses, GoogleGenerativeAI} {
		t.Run(api, func(t *testing.T) {
			codec, _ := CodecFor(api)
			req, err := codec.Request(testModel(api), ctx, Options{Thinking: "medium", SessionID: "s1", APIKey: "sk-test"})
			if err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			json.Indent(&pretty, req.BodyBytes(), "", "  ")
			got := fmt.Sprintf("%s %s\n%s\n", req.Method, req.URL, pretty.String())
			golden(t, filepath.Join("testdata", "request-"+api+".golden"), got)

			// The same history as message JSON (Context.History, the
			// first three messages) encodes to the same body.
			split := ctx
			split.History, split.Messages = nil, ctx.Messages[3:]
			for _, m := range ctx.Messages[:3] {
				b, _ := json.Marshal(m)
				split.History = append(split.History, b)
			}
			hreq, err := codec.Request(testModel(api), split, Options{Thinking: "medium", SessionID: "s1", APIKey: "sk-test"})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(req.BodyBytes()), string(hreq.BodyBytes())); d != "" {
				t.Errorf("History and Messages encode differently (-Messages +History):\n%s", d)
			}

			// A History message that does not decode fails the body.
			bad := split
			bad.History = append([]json.RawMessage{json.RawMessage(`{"role":"user","content":7}`)}, split.History...)
			breq, err := codec.Request(testModel(api), bad, Options{})
			if err == nil {
				_, err = breq.Encode()
			}
			var he *HistoryError
			if !errors.As(err, &he) || he.Index != 0 {
				t.Errorf("a bad History message: got %v, want a HistoryError at 0", err)
			}
		})
	}
}

func TestCutStreamIsRetryable(t *testing.T) {
	evs := decodeFile(t, AnthropicMessages, "../../testdata/sse/anthropic/cut_mid_stream.sse")
	m := evs[len(evs)-1].Error
	if m == nil || m.ErrorMessage != ErrUnexpectedEOF.Error() || !IsRetryable(*m, 200000) {
		t.Fatalf("a cut stream should end in a retryable error, got %+v", evs[len(evs)-1])
	}
	if m.Text() != "Hi" {
		t.Errorf("partial text kept: %q", m.Text())
	}
}

// openai-completions sends an empty tool list when the history calls tools
// but the request has none; a History message is decoded for it only when
// it may hold a call (escapes included).
func TestCompletionsEmptyToolsForCalls(t *testing.T) {
	m := testModel(OpenAICompletions)
	call := Message{Role: "assistant", StopReason: StopToolUse, Content: []Content{ToolCallBlock("t1", "read", json.RawMessage(`{}`))}}
	raw, _ := json.Marshal(call)
	escaped := json.RawMessage(strings.Replace(string(raw), `"toolCall"`, `"toolCal\u006c"`, 1))
	user := Message{Role: "user", Content: []Content{TextBlock("hi")}}
	userRaw, _ := json.Marshal(user)
	for _, tc := range []struct {
		name string
		c    Context
		want bool
	}{
		{"call in Messages", Context{Messages: []Message{user, call}}, true},
		{"call in History", Context{History: []json.RawMessage{userRaw, raw}}, true},
		{"escaped call in History", Context{History: []json.RawMessage{userRaw, escaped}}, true},
		{"no call", Context{History: []json.RawMessage{userRaw}, Messages: []Message{user}}, false},
		{"tools given", Context{Messages: []Message{user, call}, Tools: []Tool{{Name: "read"}}}, false},
	} {
		req, err := completions{}.Request(m, tc.c, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := strings.Contains(string(req.BodyBytes()), `"tools":[]`); got != tc.want {
			t.Errorf("%s: empty tool list %v, want %v", tc.name, got, tc.want)
		}
	}
	bad := Context{History: []json.RawMessage{json.RawMessage(`{"role":"assistant","content":[{"type":"toolCall","id":7}]}`)}}
	var he *HistoryError
	if _, err := (completions{}).Request(m, bad, Options{}); !errors.As(err, &he) {
		t.Errorf("a bad History message that may hold a call: got %v, want a HistoryError", err)
	}
}

// An errored assistant turn is not sent (as pi leaves it out), and
// openai-responses puts the "Juice: 0" item last for a gpt-5 model that is
// not to reason.
func TestResponsesErroredTurnAndJuice(t *testing.T) {
	m := testModel(OpenAIResponses)
	m.ID = "gpt-5-test"
	hist := []Message{
		{Role: "user", Content: []Content{TextBlock("go")}, Timestamp: 1},
		{Role: "assistant", API: m.API, Provider: m.Provider, Model: m.ID, StopReason: StopError, ErrorMessage: "boom", Timestamp: 2,
			Content: []Content{{Type: "thinking", Thinking: "hmm", ThinkingSignature: `{"type":"reasoning","id":"rs_1"}`}, TextBlock("partial"),
				ToolCallBlock("c1|fc_1", "read", json.RawMessage(`{}`))}},
		{Role: "user", Content: []Content{TextBlock("again")}, Timestamp: 3},
	}
	req, err := responses{}.Request(m, Context{Messages: hist}, Options{Thinking: "off"})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(req.BodyBytes(), &body); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, it := range body.Input {
		k, _ := it["type"].(string)
		if k == "" {
			k, _ = it["role"].(string)
		}
		kinds = append(kinds, k)
	}
	// the errored turn is left out by normalisation, its calls with it
	want := "user,user,developer"
	if got := strings.Join(kinds, ","); got != want {
		t.Errorf("input items %s, want %s", got, want)
	}
	if last := body.Input[len(body.Input)-1]; last["content"] != "# Juice: 0 !important" {
		t.Errorf("last item %v, want the Juice developer item", last)
	}
}
