package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

// An errored or aborted assistant message is left out of the request, as
// pi 0.73's transformMessages leaves it out, and so are results that
// answer its calls; an orphan call before it still gets "No result
// provided".
func TestNormalizeLeavesOutFailedTurns(t *testing.T) {
	m := testModel(OpenAICompletions)
	call := func(id string) Content { return ToolCallBlock(id, "read", json.RawMessage(`{}`)) }
	asst := func(stop string, cs ...Content) Message {
		return Message{Role: "assistant", API: m.API, Provider: m.Provider, Model: m.ID, StopReason: stop, Content: cs}
	}
	result := func(id string) Message {
		return Message{Role: "toolResult", ToolCallID: id, ToolName: "read", Content: []Content{TextBlock("r" + id)}}
	}
	hist := []Message{
		{Role: "user", Content: []Content{TextBlock("go")}},
		asst(StopToolUse, call("c1")), // orphan: no result before the next assistant
		asst(StopAborted, TextBlock("half"), call("c2")),
		result("c2"), // our older files answered an aborted call
		{Role: "user", Content: []Content{TextBlock("again")}},
		asst(StopError, TextBlock("boom")),
		asst(StopStop, TextBlock("done")),
	}
	var got []string
	err := NormalizeEach(Context{Messages: hist}, m, nil, func(msg Message) {
		s := msg.Role
		for _, c := range msg.Content {
			switch c.Type {
			case "text":
				s += ":" + c.Text
			case "toolCall":
				s += ":call " + c.ID
			}
		}
		if msg.Role == "toolResult" {
			s += " for " + msg.ToolCallID
		}
		got = append(got, s)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "user:go | assistant:call c1 | toolResult:No result provided for c1 | user:again | assistant:done"
	if g := strings.Join(got, " | "); g != want {
		t.Errorf("sent\n  %s\nwant\n  %s", g, want)
	}
}
