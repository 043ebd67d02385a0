package main

import (
	"testing"

	"github.com/agentutils/agentutils/lib/session"
)

// An entry's one-line summary in the tree: an assistant turn of tool calls
// alone has no text, and no empty text is printed for it.
func TestDescribe(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"bash","arguments":{}}]}}`, "assistant: → bash"},
		{`{"type":"message","id":"b","message":{"role":"assistant","content":[{"type":"text","text":"Fixing it."},{"type":"toolCall","id":"c","name":"edit","arguments":{}}]}}`, "assistant: Fixing it. → edit"},
		{`{"type":"message","id":"d","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}}`, "assistant: Done."},
	} {
		r, err := session.ParseRecord([]byte(c.raw))
		if err != nil {
			t.Fatal(err)
		}
		if got := describe(r); got != c.want {
			t.Errorf("describe(%s) = %q, want %q", c.raw, got, c.want)
		}
	}
}
