package export

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// corpusSession reads a session file of formats/session/valid.
func corpusSession(t *testing.T, name string) Session {
	t.Helper()
	b, err := os.ReadFile("../../formats/session/valid/" + name)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return Session{Header: lines[0], Entries: lines[1:]}
}

// TestSubagent: the page draws a task call's sub-agent conversation inside
// the call, and the JSON document carries it to agent-render and back.
func TestSubagent(t *testing.T) {
	parent, child := corpusSession(t, "task-parent.jsonl"), corpusSession(t, "task-child.jsonl")
	file := "/home/u/.local/share/agentutils/sessions/--home-u-proj--/2026-12-07T10-00-00-000Z_5e1f0a00-0000-4000-8000-000000000001/2026-12-07T10-00-01-100Z_5e1f0a00-0000-4000-8000-000000000002.jsonl"
	parent.Subagents = map[string]Session{file: child}
	page, err := HTML(parent)
	if err != nil {
		t.Fatal(err)
	}
	h := string(page)
	call := strings.Index(h, `data-tool="task"`)
	sub := strings.Index(h, `<details class="subagent">`)
	if call < 0 || sub < call || !strings.Contains(h[sub:], "func Parse(s string)") {
		t.Errorf("the sub-agent's conversation is not inside the task call (call at %d, sub-agent at %d)", call, sub)
	}
	doc, err := JSON(parent)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	again, err := JSON(back)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(doc), string(again)); d != "" || len(back.Subagents) != 1 {
		t.Errorf("JSON(ParseJSON(JSON(s))) (-want +got):\n%s", d)
	}
	if _, err := ParseJSON([]byte(`{"entries":[]}`)); err == nil {
		t.Error("a document without a header is read")
	}
}
