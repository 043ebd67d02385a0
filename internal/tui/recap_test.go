package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/internal/pipeline"
	"github.com/agentutils/agentutils/internal/testbin"
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
	plain := recap(msgs, 1, 80, false)
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
	if c := recap(msgs, 1, 80, true); strings.Contains(c, "**there**") || !strings.Contains(c, "there") {
		t.Errorf("markdown not rendered with colour:\n%q", c)
	}
	if recap(nil, 3, 80, false) != "" {
		t.Error("an empty session has a recap")
	}
}

// TestFooterTotalsAcrossCompaction: open cuts its stream at the newest
// compaction; the footer's tokens and cost are still the whole path's.
func TestFooterTotalsAcrossCompaction(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	bin, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	msg := func(id, parent, role string, in, out int) string {
		u := ""
		if role == "assistant" {
			u = fmt.Sprintf(`,"usage":{"input":%d,"output":%d,"cacheRead":0,"cacheWrite":0,"totalTokens":%d,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}}`, in, out, in+out)
		}
		return fmt.Sprintf(`{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"%s","content":[{"type":"text","text":"t"}]%s,"timestamp":1}}`, id, parent, role, u)
	}
	lines := []string{
		`{"type":"session","version":3,"id":"0123456789abcdef","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`,
		msg("z1", "null", "user", 0, 0),
		msg("z2", `"z1"`, "assistant", 50, 5),
		msg("a1", `"z2"`, "user", 0, 0),
		msg("a2", `"a1"`, "assistant", 100, 10),
		msg("b1", `"a2"`, "user", 0, 0),
		msg("b2", `"b1"`, "assistant", 100, 10),
		`{"type":"compaction","id":"a3","parentId":"b2","timestamp":"2026-01-01T00:00:00.000Z","summary":"s","firstKeptEntryId":"b1","tokensBefore":110}`,
		msg("a4", `"a3"`, "user", 0, 0),
		msg("a5", `"a4"`, "assistant", 200, 20),
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("AGENTUTILS_HOME", dir)
	a := &agent{Config: Config{Stages: &pipeline.Stages{Dir: dir, Env: os.Environ(), Session: []string{"agent-session"}}, File: file}}
	r := a.loadState(context.Background(), 80)
	if a.state.in != 450 || a.state.out != 45 || a.state.cost != 2 {
		t.Errorf("footer totals ↑%d ↓%d $%v, want ↑450 ↓45 $2 (every turn); recap %q", a.state.in, a.state.out, a.state.cost, r)
	}
}
