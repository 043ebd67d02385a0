package provider

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentutils/agentutils/internal/fakellm"
	"github.com/agentutils/agentutils/lib/llm"
)

// Failed HTTP responses as the providers send them (status, JSON error
// body, retry headers; bodies written after each provider's documented
// error shape): the call ends in an error message holding the provider's
// text, classified as the agent loop needs it (retry, and how long to
// wait; context overflow; neither).
func TestHTTPErrors(t *testing.T) {
	for _, c := range []struct {
		name, api string
		status    int
		headers   map[string]string
		body      string
		text      string        // in the error message
		retry     bool          // llm.IsRetryable
		overflow  bool          // llm.IsOverflow
		wait      time.Duration // llm.RetryHint
	}{
		{name: "anthropic 529 overloaded", api: llm.AnthropicMessages, status: 529,
			body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			text: "overloaded_error", retry: true},
		{name: "anthropic 429 rate limit, retry-after", api: llm.AnthropicMessages, status: 429,
			headers: map[string]string{"retry-after": "7", "anthropic-ratelimit-requests-remaining": "0"},
			body:    `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`,
			text:    "rate_limit_error", retry: true, wait: 7 * time.Second},
		{name: "anthropic 500 api_error", api: llm.AnthropicMessages, status: 500,
			body: `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`,
			text: "api_error", retry: true},
		{name: "anthropic 400 prompt too long", api: llm.AnthropicMessages, status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`,
			text: "prompt is too long", overflow: true},
		{name: "openai 429 rate limit, x-ratelimit-reset-ms", api: llm.OpenAIResponses, status: 429,
			headers: map[string]string{"x-ratelimit-reset-ms": "1500"},
			body:    `{"error":{"message":"Rate limit reached for gpt-5 on tokens per min (TPM). Please try again in 1.5s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			text:    "rate_limit_exceeded", retry: true, wait: 1500 * time.Millisecond},
		{name: "openai 429 insufficient quota", api: llm.OpenAICompletions, status: 429,
			body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			text: "exceeded your current quota"},
		{name: "openai 400 context length", api: llm.OpenAICompletions, status: 400,
			body: `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130210 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			text: "maximum context length", overflow: true},
		{name: "openai 503", api: llm.OpenAIResponses, status: 503,
			body: `{"error":{"message":"The server is overloaded or not ready yet.","type":"server_error","param":null,"code":null}}`,
			text: "server is overloaded", retry: true},
		{name: "gemini 429 RetryInfo", api: llm.GoogleGenerativeAI, status: 429,
			body: `{"error":{"code":429,"message":"You exceeded your current quota for requests per minute.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"17s"}]}}`,
			text: "RESOURCE_EXHAUSTED", retry: true, wait: 17 * time.Second},
		{name: "gemini 503 unavailable", api: llm.GoogleGenerativeAI, status: 503,
			body: `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`,
			text: "UNAVAILABLE", retry: true},
		{name: "gemini 500 internal", api: llm.GoogleGenerativeAI, status: 500,
			body: `{"error":{"code":500,"message":"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting","status":"INTERNAL"}}`,
			text: "INTERNAL", retry: true},
		{name: "openrouter 502 upstream", api: llm.OpenAICompletions, status: 502,
			body: `{"error":{"code":502,"message":"Provider returned error","metadata":{"raw":"upstream connect error","provider_name":"Novita"}},"user_id":"user_1"}`,
			text: "Provider returned error", retry: true},
		{name: "openrouter 402 credits", api: llm.OpenAICompletions, status: 402,
			body: `{"error":{"code":402,"message":"Insufficient credits. Add more using https://openrouter.ai/settings/credits"}}`,
			text: "Insufficient credits"},
		{name: "mistral 429", api: llm.OpenAICompletions, status: 429,
			headers: map[string]string{"retry-after": "2"},
			body:    `{"object":"error","message":"Requests rate limit exceeded","type":"rate_limited","param":null,"code":"1300"}`,
			text:    "Requests rate limit exceeded", retry: true, wait: 2 * time.Second},
		{name: "deepseek 503", api: llm.OpenAICompletions, status: 503,
			body: `{"error":{"message":"Server overloaded, please try again later.","type":"service_unavailable_error","param":null,"code":"server_overloaded"}}`,
			text: "Server overloaded", retry: true},
		{name: "429 without a body", api: llm.OpenAICompletions, status: 429,
			text: "(no body)", retry: true},
		{name: "401", api: llm.AnthropicMessages, status: 401,
			body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
			text: "authentication_error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := fakellm.New(fakellm.Step{Status: c.status, Headers: c.headers, Body: []byte(c.body)})
			defer srv.Close()
			m := llm.Model{ID: "m", API: c.api, Provider: "fake", BaseURL: srv.URL, MaxTokens: 100, ContextWindow: 200000}
			ctx := llm.Context{Messages: []llm.Message{{Role: "user", Content: []llm.Content{llm.TextBlock("hi")}, Timestamp: 1}}}
			now := func() time.Time { return time.Unix(0, 0) }
			var events []llm.Event
			got, err := (&Client{HTTP: srv.Client(), Now: now}).Stream(context.Background(), m, ctx, llm.Options{}, func(e llm.Event) { events = append(events, e) })
			if err != nil {
				t.Fatal(err)
			}
			if got.StopReason != llm.StopError || len(events) == 0 || events[len(events)-1].Type != "error" {
				t.Fatalf("want an error message and event, got %+v", got)
			}
			if !strings.HasPrefix(got.ErrorMessage, strconv.Itoa(c.status)+" ") || !strings.Contains(got.ErrorMessage, c.text) {
				t.Errorf("error message %q does not hold %q", got.ErrorMessage, c.text)
			}
			if r := llm.IsRetryable(got, m.ContextWindow); r != c.retry {
				t.Errorf("IsRetryable = %v, want %v (%s)", r, c.retry, got.ErrorMessage)
			}
			if o := llm.IsOverflow(got, m.ContextWindow); o != c.overflow {
				t.Errorf("IsOverflow = %v, want %v (%s)", o, c.overflow, got.ErrorMessage)
			}
			if w := llm.RetryHint(got.ErrorMessage); w != c.wait {
				t.Errorf("RetryHint = %v, want %v (%s)", w, c.wait, got.ErrorMessage)
			}
		})
	}
}
