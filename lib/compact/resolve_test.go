package compact

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/session"
)

// readLines reads a stream's lines both ways agent-compact's callers do:
// ReadEntry (the stream) and Index (records already parsed).
func readLines(t *testing.T, lines []string) (read, indexed []Entry, recs []session.Record) {
	t.Helper()
	for _, l := range lines {
		e, err := ReadEntry([]byte(l))
		if err != nil {
			t.Fatalf("ReadEntry(%s): %v", l, err)
		}
		read = append(read, e)
		r, err := session.ParseRecord([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return read, Index(recs), recs
}

// A key that repeats in a record is read at its last occurrence, as
// encoding/json and BuildContext read it: the message of a message entry,
// and a compaction's summary and firstKeptEntryId. The estimate of the
// context is then the estimate of what BuildContext resolves.
func TestDuplicateKeysAsBuildContext(t *testing.T) {
	long := strings.Repeat("y", 400)
	lines := []string{
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"one","timestamp":1}}`,
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"x"}],"timestamp":2},"message":{"role":"assistant","content":[{"type":"text","text":"` + long + `"}],"timestamp":2}}`,
		`{"type":"message","id":"u2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"two","timestamp":3}}`,
		`{"type":"compaction","id":"c1","parentId":"u2","timestamp":"2026-01-01T00:00:03.000Z","summary":"s","summary":"` + long + long + `","firstKeptEntryId":"gone","firstKeptEntryId":"a1","tokensBefore":9}`,
		`{"type":"message","id":"u3","parentId":"c1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":[{"type":"text","text":"z"}],"timestamp":4},"message":{"role":"user","content":[{"type":"text","text":"three, the last"}],"timestamp":4}}`,
	}
	read, indexed, recs := readLines(t, lines)
	ctx, err := session.BuildContext(recs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, m := range ctx.Messages {
		want += EstimateTokens(m)
	}
	for name, entries := range map[string][]Entry{"ReadEntry": read, "Index": indexed} {
		var path []Entry
		for _, i := range ActivePath(entries) {
			path = append(path, entries[i])
		}
		if id := MissingFirstKept(path); id != "" {
			t.Errorf("%s: MissingFirstKept = %q; BuildContext keeps from a1", name, id)
		}
		if got := EstimateContext(path); got != want {
			t.Errorf("%s: EstimateContext = %d, the estimate of BuildContext's messages %d", name, got, want)
		}
		// The kept (from a1) and later messages are BuildContext's (its
		// first is the summary).
		var got []string
		for _, e := range path[1:] {
			if e.Message != nil {
				got = append(got, string(e.Message))
			}
		}
		var msgs []string
		for _, m := range ctx.Messages[1:] {
			msgs = append(msgs, string(m))
		}
		if d := cmp.Diff(msgs, got); d != "" {
			t.Errorf("%s: messages (-BuildContext +compact):\n%s", name, d)
		}
	}
	// The branch summary's messages read the last "message" too.
	got, _ := BranchMessages(recs[:2], 1<<20)
	if len(got) != 2 || !strings.Contains(string(got[1]), long) {
		t.Errorf("BranchMessages: %s", got)
	}
}

// DefaultModel is BuildContext's default model on the same path, whichever
// of a model_change and an assistant message comes last.
func TestDefaultModelAsBuildContext(t *testing.T) {
	user := `{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"x","timestamp":1}}`
	change := func(id, parent, fields string) string {
		return `{"type":"model_change","id":"` + id + `","parentId":"` + parent + `","timestamp":"2026-01-01T00:00:00.000Z",` + fields + `}`
	}
	answer := func(id, parent, fields string) string {
		return `{"type":"message","id":"` + id + `","parentId":"` + parent + `","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[],` + fields + `,"timestamp":1}}`
	}
	for _, tt := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"answer after change", []string{user, change("c", "u", `"model":"a/one"`), answer("a", "c", `"provider":"b","model":"two"`)}, "b/two"},
		{"change after answer", []string{user, answer("a", "u", `"provider":"b","model":"two"`), change("c", "a", `"model":"a/one"`)}, "a/one"},
		{"role default after answer", []string{user, answer("a", "u", `"provider":"b","model":"two"`), change("c", "a", `"model":"a/one","role":"default"`)}, "a/one"},
		{"another role after answer", []string{user, answer("a", "u", `"provider":"b","model":"two"`), change("c", "a", `"model":"a/one","role":"fast"`)}, "b/two"},
		{"v1 change", []string{user, answer("a", "u", `"provider":"b","model":"two"`), change("c", "a", `"provider":"p","modelId":"m"`)}, "p/m"},
		{"change without a model", []string{user, answer("a", "u", `"provider":"b","model":"two"`), change("c", "a", `"model":""`)}, "b/two"},
		{"repeated keys", []string{user, change("c", "u", `"model":"a/one","model":"a/two"`), answer("a", "c", `"provider":"x","model":"y","provider":""`)}, "a/two"},
		{"escaped names", []string{user, answer("a", "u", `"provider":"b\u0021","model":"t\"wo"`)}, `b!/t"wo`},
		{"an answer without names keeps the last", []string{user, answer("a", "u", `"provider":"b","model":"two"`), answer("a2", "a", `"provider":7,"model":""`)}, "b/two"},
		{"retried answer", []string{user, answer("a", "u", `"provider":"b","model":"two","retried":true`)}, "b/two"},
		{"off the path", []string{user, answer("a", "u", `"provider":"b","model":"two"`), change("c", "u", `"model":"a/one"`), answer("d", "u", `"provider":"e","model":"f"`)}, "e/f"},
		{"none", []string{user}, ""},
	} {
		read, indexed, recs := readLines(t, tt.lines)
		ctx, err := session.BuildContext(recs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := ctx.Models["default"]; got != tt.want {
			t.Errorf("%s: BuildContext's default model %q, want %q", tt.name, got, tt.want)
		}
		for name, entries := range map[string][]Entry{"ReadEntry": read, "Index": indexed} {
			var path []Entry
			for _, i := range ActivePath(entries) {
				path = append(path, entries[i])
			}
			if got := DefaultModel(path); got != ctx.Models["default"] {
				t.Errorf("%s (%s): DefaultModel %q, BuildContext %q", tt.name, name, got, ctx.Models["default"])
			}
		}
	}
}
