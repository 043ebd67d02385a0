package compact

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// decodedEstimate is EstimateTokens written with encoding/json: the skimming
// version must agree with it.
func decodedEstimate(raw json.RawMessage) int {
	m, bs := parse(raw)
	chars := 0
	switch m.Role {
	case "user", "custom", "hookMessage", "fileMention", "pythonExecution":
		for _, b := range bs {
			chars += len(b.Text)
			if b.Type == "image" && m.Role == "hookMessage" {
				chars += imageChars
			}
		}
	case "assistant":
		for _, b := range bs {
			chars += len(b.Text) + len(b.Thinking)
			if b.Type == "toolCall" {
				chars += len(b.Name) + len(b.Arguments)
			}
		}
	case "toolResult":
		for _, b := range bs {
			chars += len(b.Text)
			if b.Type == "image" {
				chars += imageChars
			}
		}
	case "bashExecution":
		chars = len(m.Command) + len(m.Output)
	case "branchSummary", "compactionSummary":
		chars = len(m.Summary)
	}
	return int(math.Ceil(float64(chars) / 4))
}

var estimateCases = []string{
	`{"role":"user","content":"fix the test, please"}`,
	`{"role":"user","content":[{"type":"text","text":"a\nb \"q\" \u00e9"},{"type":"image","data":"AAAA","mimeType":"image/png"}]}`,
	`{"role":"assistant","content":[{"type":"thinking","thinking":"hmm\tok"},{"type":"text","text":"x"},{"type":"toolCall","id":"t","name":"edit","arguments":{"path":"a.go", "old_text":"x"}}]}`,
	`{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"bash","arguments":null}]}`,
	`{"role":"toolResult","toolCallId":"t","content":[{"type":"text","text":"ok"},{"type":"image","data":"A","mimeType":"image/png"}]}`,
	`{"role":"hookMessage","content":[{"type":"image","data":"A","mimeType":"image/png"}]}`,
	`{"role":"bashExecution","command":"go test ./...","output":"ok\n"}`,
	`{"role":"compactionSummary","summary":"## Goal\nFix.","tokensBefore":5}`,
	`{"role":"branchSummary","summary":"s","fromId":"a"}`,
	`{"role":"custom","content":"c"}`,
	`{"role":"unknown","content":"zzz"}`,
	`{"role":"user","content":[]}`,
	`{"role":"user"}`,
}

func TestEstimateTokensMatchesDecoded(t *testing.T) {
	for _, c := range estimateCases {
		if got, want := EstimateTokens(json.RawMessage(c)), decodedEstimate(json.RawMessage(c)); got != want {
			t.Errorf("%s: %d, decoded %d", c, got, want)
		}
	}
}

func FuzzEstimateTokens(f *testing.F) {
	for _, c := range estimateCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			EstimateTokens(json.RawMessage(s)) // must not panic
			return
		}
		if got, want := EstimateTokens(json.RawMessage(s)), decodedEstimate(json.RawMessage(s)); got != want {
			var m any
			json.Unmarshal([]byte(s), &m)
			if _, ok := m.(map[string]any); !ok || foldedKey(m) {
				// not an object, or a key encoding/json matches case-insensitively
				// (the skimmer, like JavaScript, does not)
				return
			}
			t.Errorf("%s: %d, decoded %d", s, got, want)
		}
	})
}

// foldedKey reports whether v has an object key that is not all lower case.
func foldedKey(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if strings.ToLower(k) != k || foldedKey(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if foldedKey(x) {
				return true
			}
		}
	}
	return false
}
