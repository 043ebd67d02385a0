package main

import (
	"strings"
	"testing"

	"github.com/agentutils/agentutils/lib/llm"
)

// TestRecap: the recap is drawn by the live view's renderer (markdown
// styled with colour), the last n exchanges only, long answers cut.
func TestRecap(t *testing.T) {
	text := func(role, s string) llm.Message {
		return llm.Message{Role: role, Content: []llm.Content{{Type: "text", Text: s}}}
	}
	long := "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10"
	msgs := []llm.Message{
		text("user", "first"), text("assistant", "old answer"),
		text("user", "second"), text("assistant", "Hello **there**\n"+long),
	}
	plain := recap(msgs, 1, false)
	for _, want := range []string{"… 2 earlier messages", "> second", "Hello **there**", "l5", "… 5 more lines"} {
		if !strings.Contains(plain, want) {
			t.Errorf("recap lacks %q:\n%s", want, plain)
		}
	}
	for _, not := range []string{"old answer", "l6", "l10"} {
		if strings.Contains(plain, not) {
			t.Errorf("recap has %q:\n%s", not, plain)
		}
	}
	if c := recap(msgs, 1, true); strings.Contains(c, "**there**") || !strings.Contains(c, "there") {
		t.Errorf("markdown not rendered with colour:\n%q", c)
	}
	if recap(nil, 3, false) != "" {
		t.Error("an empty session has a recap")
	}
}
