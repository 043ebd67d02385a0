package llm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUniqueToolCallIDs: a reused id (ollama's call_1 in every turn) and a
// repeat within one message get _2, _3; new ids stay.
func TestUniqueToolCallIDs(t *testing.T) {
	m := Message{Role: "assistant", Content: []Content{
		{Type: "text", Text: "x"},
		{Type: "toolCall", ID: "call_1", Name: "read"},
		{Type: "toolCall", ID: "call_1", Name: "read"},
		{Type: "toolCall", ID: "call_9", Name: "ls"},
	}}
	taken := map[string]bool{"call_1": true, "call_1_2": true}
	if !UniqueToolCallIDs(&m, func(id string) bool { return taken[id] }) {
		t.Error("reported no rename")
	}
	var got []string
	for _, c := range m.ToolCalls() {
		got = append(got, c.ID)
	}
	if d := cmp.Diff([]string{"call_1_3", "call_1_4", "call_9"}, got); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
}
