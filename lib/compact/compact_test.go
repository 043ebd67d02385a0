package compact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/session"
)

// entry builds a message entry whose estimate is tokens (4 chars each).
func entry(t *testing.T, id, role string, tokens int) session.Record {
	t.Helper()
	text := strings.Repeat("x", tokens*4)
	var msg string
	switch role {
	case "toolResult":
		msg = fmt.Sprintf(`{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":%q}],"isError":false,"timestamp":1}`, text)
	case "assistant":
		msg = fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%q}],"stopReason":"stop","timestamp":1}`, text)
	default:
		msg = fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":%q}],"timestamp":1}`, text)
	}
	r, err := session.ParseRecord([]byte(fmt.Sprintf(`{"type":"message","id":%q,"parentId":null,"timestamp":"t","message":%s}`, id, msg)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The reference's worked example (§4.6): keep 20000, the cut lands on the
// assistant at 7 inside the turn that starts at 4.
func TestFindCutPointWorkedExample(t *testing.T) {
	path := Index([]session.Record{
		entry(t, "0", "user", 100), entry(t, "1", "assistant", 500), entry(t, "2", "toolResult", 30000),
		entry(t, "3", "assistant", 200), entry(t, "4", "user", 50), entry(t, "5", "assistant", 300),
		entry(t, "6", "toolResult", 25000), entry(t, "7", "assistant", 400),
	})
	got := FindCutPoint(path, 0, len(path), 20000)
	if d := cmp.Diff(Cut{FirstKept: 7, TurnStart: 4, Split: true}, got); d != "" {
		t.Error(d)
	}
	// never at a tool result; a user message cut is not split
	got = FindCutPoint(path, 0, 3, 100)
	if got.FirstKept == 2 {
		t.Errorf("cut at a tool result: %+v", got)
	}
	if c := FindCutPoint(path, 0, 5, 40); c.FirstKept != 4 || c.Split {
		t.Errorf("cut at the user message 4: %+v", c)
	}
}

func TestPrune(t *testing.T) {
	var path []session.Record
	for i := 0; i < 6; i++ {
		path = append(path, entry(t, fmt.Sprint("u", i), "user", 10), entry(t, fmt.Sprint("t", i), "toolResult", 15000))
	}
	out, saved := Prune(Index(path), Defaults, 99)
	// newest 40k of tool output protected: t5, t4, t3 (crossing 40k) kept; t2, t1, t0 pruned
	var ids []string
	for _, p := range out {
		r, _ := session.ParseRecord(p.Raw)
		ids = append(ids, r.ID)
		if !r.Pending || !strings.Contains(string(p.Raw), `"prunedAt":99`) || !strings.Contains(string(p.Raw), "[Output truncated - 15000 tokens]") {
			t.Errorf("pruned entry: %s", p.Raw)
		}
	}
	if d := cmp.Diff([]string{"t0", "t1", "t2"}, ids); d != "" || saved < 40000 {
		t.Errorf("pruned %v saved %d: %s", ids, saved, d)
	}
	if out, _ := Prune(Index(path[:6]), Defaults, 99); out != nil {
		t.Errorf("nothing worth pruning in a short path: %d", len(out))
	}
}

func TestSerializeAndFiles(t *testing.T) {
	msgs := []json.RawMessage{
		json.RawMessage(`{"role":"user","content":"fix it"}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"ok"},{"type":"toolCall","id":"1","name":"edit","arguments":{"path":"a.go","old_text":"x"}},{"type":"toolCall","id":"2","name":"read","arguments":{"path":"b.go"}}]}`),
		json.RawMessage(`{"role":"toolResult","toolCallId":"1","toolName":"edit","content":[{"type":"text","text":"done"}],"isError":false}`),
	}
	want := "[User]: fix it\n\n[Assistant thinking]: hm\n\n[Assistant]: ok\n\n[Assistant tool calls]: edit(old_text=\"x\", path=\"a.go\"); read(path=\"b.go\")\n\n[Tool result]: done"
	if got := Serialize(msgs); got != want {
		t.Errorf("Serialize:\n%s\nwant\n%s", got, want)
	}
	f := NewFileOps(json.RawMessage(`{"readFiles":["old.go"],"modifiedFiles":["c.go"]}`))
	f.Add(msgs)
	read, mod := f.Lists()
	if d := cmp.Diff([]string{"b.go", "old.go"}, read); d != "" {
		t.Error(d)
	}
	if d := cmp.Diff([]string{"a.go", "c.go"}, mod); d != "" {
		t.Error(d)
	}
	s := UpsertFileLists("## Goal\nx\n\n<read-files>\nstale\n</read-files>\n", read, mod)
	if s != "## Goal\nx\n\n<read-files>\nb.go\nold.go\n</read-files>\n<modified-files>\na.go\nc.go\n</modified-files>" {
		t.Errorf("UpsertFileLists = %q", s)
	}
}

func FuzzFindCutPoint(f *testing.F) {
	f.Add([]byte{0, 1, 2, 1, 0, 1, 2, 1}, 50)
	f.Fuzz(func(t *testing.T, roles []byte, keep int) {
		if len(roles) > 64 {
			roles = roles[:64]
		}
		var path []session.Record
		for i, r := range roles {
			path = append(path, entry(t, fmt.Sprint(i), []string{"user", "assistant", "toolResult"}[int(r)%3], int(r)))
		}
		c := FindCutPoint(Index(path), 0, len(path), keep%100000)
		if len(path) > 0 && (c.FirstKept < 0 || c.FirstKept >= len(path)) {
			t.Fatalf("cut %d outside the path of %d", c.FirstKept, len(path))
		}
		if c.FirstKept < len(path) && len(path) > 0 && roleOf(path[c.FirstKept]) == "toolResult" && c.FirstKept > 0 {
			t.Fatalf("cut at a tool result: %+v", c)
		}
	})
}
