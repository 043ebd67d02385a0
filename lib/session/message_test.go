package session

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMsg(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Msg
		ok       bool
	}{
		{"assistant", `{"role":"assistant","content":[{"type":"text","text":"hi"}],"provider":"p","model":"m","responseId":"r","timestamp":1700000000000,"usage":{"input":3},"retried":true}`,
			Msg{Role: "assistant", Content: json.RawMessage(`[{"type":"text","text":"hi"}]`), Provider: "p", Model: "m", ResponseID: "r", Time: 1700000000000, Usage: json.RawMessage(`{"input":3}`), Retried: true}, true},
		{"bash, leading space", ` {"role":"bashExecution","command":"ls\n","toolName":"x"}`, Msg{Role: "bashExecution", Command: "ls\n", ToolName: "x"}, true},
		{"tool result", `{"role":"toolResult","toolCallId":"c1","toolName":"read","isError":true,"content":[]}`,
			Msg{Role: "toolResult", ToolCallID: "c1", ToolName: "read", IsError: true, Content: json.RawMessage(`[]`)}, true},
		{"bash output, summary", `{"role":"bashExecution","command":"ls","output":"a\nb","summary":"s"}`,
			Msg{Role: "bashExecution", Command: "ls", Output: "a\nb", Summary: "s"}, true},
		{"custom", `{"role":"custom","customType":"note","content":"c","display":false,"details":null}`,
			Msg{Role: "custom", CustomType: "note", Content: json.RawMessage(`"c"`), Display: json.RawMessage(`false`), Details: json.RawMessage(`null`)}, true},
		{"not an object", `"x"`, Msg{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseMsg([]byte(tc.in))
			got.Raw = nil
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v", ok, tc.ok)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestUsageOf(t *testing.T) {
	got, ok := UsageOf([]byte(`{"input":10,"output":2,"cacheRead":5,"cacheWrite":1,"totalTokens":18,"cost":{"input":0.1,"total":0.25}}`))
	if want := (TokenUsage{10, 2, 5, 1, 0.25}); !ok || got != want {
		t.Errorf("UsageOf = %+v, %v; want %+v", got, ok, want)
	}
	if _, ok := UsageOf(nil); ok {
		t.Errorf("no usage read as one")
	}
}
