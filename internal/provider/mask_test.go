package provider

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentutils/agentutils/internal/fakellm"
	"github.com/agentutils/agentutils/lib/llm"
)

// A provider that echoes the key — whole, its first characters, or
// OpenAI's "sk-…****abcd" — in an error body, a stream's error event or a
// header: no event, final message or cassette holds any of it.
func TestKeyEchoMasked(t *testing.T) {
	const key = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
	echo := "Incorrect API key provided: " + key + "; Bearer " + key[:14] + "…; sk-proj-****************Xy4z"
	streamErr := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"" + echo + "\"}}\n\n"
	for _, step := range []fakellm.Step{
		{Status: 401, Body: []byte(`{"error":{"message":"` + echo + `","type":"invalid_request_error","code":"invalid_api_key"}}`),
			Headers: map[string]string{"x-request-id": "req " + key}},
		{Body: []byte(streamErr), Headers: map[string]string{"content-type": "text/event-stream"}},
	} {
		srv := fakellm.New(step)
		m := llm.Model{ID: "m", API: llm.AnthropicMessages, Provider: "fake", BaseURL: srv.URL, MaxTokens: 100, ContextWindow: 200000}
		ctx := llm.Context{Messages: []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock("hi")}, Timestamp: 1}}}
		var cassette bytes.Buffer
		c := &Client{HTTP: srv.Client(), Now: func() time.Time { return time.Unix(0, 0) }, Secrets: []string{key}, Record: NewRecorder(&cassette)}
		var seen strings.Builder
		got, err := c.Stream(context.Background(), m, ctx, llm.Options{APIKey: key}, func(e llm.Event) {
			for _, msg := range []*llm.Message{e.Error, e.Message, e.Partial} {
				if msg != nil {
					seen.WriteString(msg.ErrorMessage + "\n")
				}
			}
		})
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got.StopReason != llm.StopError || !strings.Contains(got.ErrorMessage, "[REDACTED]") {
			t.Errorf("error message %q: want an error with [REDACTED]", got.ErrorMessage)
		}
		for name, text := range map[string]string{"final message": got.ErrorMessage, "events": seen.String(), "cassette": cassette.String()} {
			for _, part := range []string{key, key[:14], key[8:22], "*Xy4z"} {
				if strings.Contains(text, part) {
					t.Errorf("status %d: %s holds %q: %s", step.Status, name, part, text)
				}
			}
		}
		if !strings.Contains(cassette.String(), "[REDACTED]") {
			t.Errorf("cassette: %s", cassette.String())
		}
	}
}
