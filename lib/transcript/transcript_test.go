package transcript

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentutils/agentutils/lib/session"
)

func TestDetect(t *testing.T) {
	for line, want := range map[string]string{
		`{"type":"session","version":3,"id":"x"}`:              "pi",
		`{"type":"user","uuid":"u","sessionId":"s"}`:           "claude",
		`{"timestamp":"t","type":"session_meta","payload":{}}`: "codex",
		`{"hello":1}`: "",
		`not json`:    "",
	} {
		if got := Detect([]byte(line)); got != want {
			t.Errorf("Detect(%s) = %q, want %q", line, got, want)
		}
	}
}

func opts() Options {
	n := 0
	return Options{NewID: func() string { n++; return fmt.Sprintf("id%06d", n) }, Now: time.Unix(0, 0), Cwd: "/w"}
}

func TestFromClaudeKeepsTheTree(t *testing.T) {
	lines := [][]byte{
		[]byte(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"S","timestamp":"2026-01-01T00:00:00Z","cwd":"/p","message":{"role":"user","content":"q"}}`),
		[]byte(`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"S","timestamp":"2026-01-01T00:00:01Z","message":{"model":"m","content":[{"type":"text","text":"A"}],"stop_reason":"end_turn"}}`),
		[]byte(`{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"S","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":"edited q"}}`),
		[]byte(`{"type":"assistant","isSidechain":true,"uuid":"x","parentUuid":"u2","message":{"content":[]}}`),
		[]byte(`{"type":"mystery"}`),
		[]byte(`garbage`),
	}
	res, err := FromClaude(lines, opts())
	if err != nil {
		t.Fatal(err)
	}
	hh, entries := res.Sessions[0].Header, res.Sessions[0].Entries
	if hh.ID != "S" || hh.Cwd != "/p" || len(entries) != 4 || len(res.Problems) != 1 || res.Problems[0].Line != 6 || len(res.Sessions) != 2 {
		t.Fatalf("header %+v, %d entries, %d sessions, problems %v", hh, len(entries), len(res.Sessions), res.Problems)
	}
	var recs []session.Record
	for _, e := range entries {
		r, err := session.ParseRecord(e)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	// u2 branches from u1 as in the source, not from a1.
	if recs[2].ParentID != recs[0].ID || !strings.HasPrefix(string(entries[0]), `{"type":"message","id":`) {
		t.Errorf("entries: %s", entries)
	}
}

func TestFromCodexEmpty(t *testing.T) {
	_, err := FromCodex([][]byte{[]byte(` `)}, opts())
	if err == nil {
		t.Error("a rollout with no records is an error")
	}
}
