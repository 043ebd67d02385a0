package sessionstore

import "testing"

// A replacement keeps the old entry's parentId and timestamp when it has
// none, and is written as it is when it has both.
func TestMergeReplacement(t *testing.T) {
	old := []byte(`{"type":"message","id":"a1","parentId":"p0","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user"}}`)
	for _, c := range []struct{ repl, want string }{
		{`{"type":"message","id":"a1","parentId":"p9","timestamp":"2027-01-01T00:00:00.000Z","message":{"role":"toolResult"},"pending":true}`,
			`{"type":"message","id":"a1","parentId":"p9","timestamp":"2027-01-01T00:00:00.000Z","message":{"role":"toolResult"},"pending":true}`},
		{`{"type":"message","id":"a1","message":{"role":"toolResult","parentId":"x","timestamp":1}}`,
			`{"type":"message","id":"a1","message":{"role":"toolResult","parentId":"x","timestamp":1},"parentId":"p0","timestamp":"2026-01-01T00:00:00.000Z"}`},
		{`{"type":"message","id":"a1","parentId":null,"message":{}}`,
			`{"type":"message","id":"a1","parentId":null,"message":{},"timestamp":"2026-01-01T00:00:00.000Z"}`},
	} {
		if got := string(mergeReplacement(old, []byte(c.repl))); got != c.want {
			t.Errorf("mergeReplacement(%s)\n got %s\nwant %s", c.repl, got, c.want)
		}
	}
}
