package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/lib/session"
)

// The fixtures in testdata/ are ours: each reproduces one shape of the real
// transcripts (../shared/corpus) in a few lines.

// TestFixturesLossless runs the corpus check over every fixture.
func TestFixturesLossless(t *testing.T) {
	claude, _ := filepath.Glob("testdata/claude/*.jsonl")
	codex, _ := filepath.Glob("testdata/codex/*.jsonl")
	files := append(claude, codex...)
	if len(files) < 12 {
		t.Fatalf("%d fixtures", len(files))
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			checkLossless(t, filepath.Base(filepath.Dir(f)), readCorpusFile(t, f))
		})
	}
}

func importFixture(t *testing.T, name string) Result {
	t.Helper()
	res, err := convert(filepath.Dir(name), readCorpusFile(t, filepath.Join("testdata", name)))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// msg is a message of a context, reduced to what the tests look at.
type msg struct {
	Role       string  `json:"role"`
	Content    []block `json:"content"`
	ToolCallID string  `json:"toolCallId"`
	Summary    string  `json:"summary"`
	StopReason string  `json:"stopReason"`
	Usage      struct {
		Input, Output, CacheRead int
	} `json:"usage"`
}

func (m msg) String() string {
	var parts []string
	for _, b := range m.Content {
		switch b.Type {
		case "toolCall":
			parts = append(parts, "call:"+b.ID)
		case "text":
			parts = append(parts, "text")
		default:
			parts = append(parts, b.Type)
		}
	}
	s := m.Role
	if m.ToolCallID != "" {
		s += ":" + m.ToolCallID
	}
	if len(parts) > 0 {
		s += "[" + strings.Join(parts, ",") + "]"
	}
	return s
}

// context is the active path of a session as the model sees it, one
// string per message.
func context(t *testing.T, s Session) ([]msg, string) {
	t.Helper()
	var recs []session.Record
	for _, e := range s.Entries {
		r, err := session.ParseRecord(e)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	ctx, err := session.BuildContext(recs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []msg
	var shape []string
	for _, raw := range ctx.Messages {
		var m msg
		json.Unmarshal(raw, &m)
		out = append(out, m)
		shape = append(shape, m.String())
	}
	return out, strings.Join(shape, " ")
}

func skipped(res Result) map[string]int {
	out := map[string]int{}
	for _, t := range res.Skipped {
		out[t.Kind] = t.Count
	}
	return out
}

func kept(res Result) map[string]int {
	out := map[string]int{}
	for _, t := range res.Custom {
		out[t.Kind] = t.Count
	}
	return out
}

func TestClaudeParallelCallsOneMessage(t *testing.T) {
	res := importFixture(t, "claude/parallel-calls.jsonl")
	msgs, shape := context(t, res.Sessions[0])
	if want := "user[text] assistant[text,call:t1,call:t2] toolResult:t1[text] toolResult:t2[text] assistant[text]"; shape != want {
		t.Errorf("context %s\nwant    %s", shape, want)
	}
	// the three lines repeat the message's usage: it is counted once
	if msgs[1].Usage.Output != 7 || msgs[1].StopReason != "toolUse" {
		t.Errorf("merged message: %+v", msgs[1])
	}
}

func TestClaudeResultsPointingAtTheirCallLine(t *testing.T) {
	res := importFixture(t, "claude/results-at-call-line.jsonl")
	msgs, shape := context(t, res.Sessions[0])
	if want := "user[text] assistant[thinking,call:t1,call:t2] toolResult:t1[text] toolResult:t2[text] assistant[text]"; shape != want {
		t.Errorf("context %s\nwant    %s", shape, want)
	}
	if msgs[1].Usage.Output != 40 {
		t.Errorf("usage of the last line: %+v", msgs[1].Usage)
	}
	if skipped(res)["progress"] != 3 || len(res.Skipped) != 1 {
		t.Errorf("skipped %+v", res.Skipped)
	}
}

func TestClaudeSidechainIsASessionOfItsOwn(t *testing.T) {
	res := importFixture(t, "claude/sidechain.jsonl")
	if len(res.Sessions) != 2 {
		t.Fatalf("%d sessions", len(res.Sessions))
	}
	_, main := context(t, res.Sessions[0])
	_, sub := context(t, res.Sessions[1])
	if main != "user[text] assistant[call:task1] toolResult:task1[text] assistant[text]" || sub != "user[text] assistant[text]" {
		t.Errorf("main %s\nsub %s", main, sub)
	}
	if s := res.Sessions[1]; s.Agent != "sidechain-1" || s.Header.ID != "side-sidechain-1" {
		t.Errorf("sub-agent session %q %+v", s.Agent, s.Header)
	}
	// linked to the Task call whose prompt it got, the call's result naming it
	if un := LinkSubagents(res.Sessions[0], res.Sessions[1:]); len(un) != 0 || res.Sessions[1].Header.ParentToolCallID != "task1" {
		t.Errorf("unlinked %v, call %q", un, res.Sessions[1].Header.ParentToolCallID)
	}
	if !NoteSubagent(res.Sessions[0].Entries, "task1", "side/s.jsonl", "side-sidechain-1", "sidechain-1") ||
		!strings.Contains(string(bytes.Join(res.Sessions[0].Entries, nil)), `"details":{"agent":"sidechain-1","session":"side/s.jsonl","sessionId":"side-sidechain-1"}`) {
		t.Error("the Task call's result does not name the sub-agent's session")
	}
	if NoteSubagent(res.Sessions[0].Entries, "nope", "f", "i", "a") {
		t.Error("a call without a result")
	}
}

func TestClaudeSubagentFileAlone(t *testing.T) {
	res := importFixture(t, "claude/subagent-alone.jsonl")
	if len(res.Sessions) != 1 {
		t.Fatalf("%d sessions", len(res.Sessions))
	}
	if id := res.Sessions[0].Header.ID; id != "main-1-a2898e3" {
		t.Errorf("id %q: the main session's id and the agent's", id)
	}
	if _, shape := context(t, res.Sessions[0]); shape != "user[text] assistant[call:t1] toolResult:t1[text] assistant[text]" {
		t.Errorf("context %s", shape)
	}
}

func TestClaudeCompaction(t *testing.T) {
	res := importFixture(t, "claude/compaction.jsonl")
	msgs, shape := context(t, res.Sessions[0])
	if shape != "compactionSummary user[text] assistant[text]" || !strings.Contains(msgs[0].Summary, "first task is done") {
		t.Errorf("context %s: %+v", shape, msgs[0])
	}
}

func TestClaudeQueuedPromptAfterTheResults(t *testing.T) {
	res := importFixture(t, "claude/queued-prompt.jsonl")
	_, shape := context(t, res.Sessions[0])
	if want := "user[text,image] assistant[call:t1] toolResult:t1[text,image] user[text,image] assistant[text]"; shape != want {
		t.Errorf("context %s\nwant    %s", shape, want)
	}
	if kept(res)["attachment"] != 1 {
		t.Errorf("custom %+v", res.Custom)
	}
}

func TestClaudeBookkeeping(t *testing.T) {
	res := importFixture(t, "claude/bookkeeping.jsonl")
	if _, shape := context(t, res.Sessions[0]); shape != "user[text] assistant[text]" {
		t.Errorf("context %s", shape)
	}
	sk, kp := skipped(res), kept(res)
	if sk["file-history-snapshot"] != 1 || sk["queue-operation"] != 1 || sk["api-request-blob"] != 1 || len(sk) != 3 {
		t.Errorf("skipped %+v", res.Skipped)
	}
	if kp["summary"] != 1 || kp["system/turn_duration"] != 1 || kp["custom-title"] != 1 || kp["frobnicate"] != 1 {
		t.Errorf("custom %+v", res.Custom)
	}
	if !strings.Contains(string(res.Sessions[0].Entries[0]), `"customType":"claude-summary"`) {
		t.Errorf("first entry %s", res.Sessions[0].Entries[0])
	}
}

func TestCodexParallelCallsOneMessage(t *testing.T) {
	res := importFixture(t, "codex/parallel-calls.jsonl")
	msgs, shape := context(t, res.Sessions[0])
	if want := "user[text] assistant[thinking,call:c1,call:c2] toolResult:c1[text] toolResult:c2[text] assistant[text]"; shape != want {
		t.Errorf("context %s\nwant    %s", shape, want)
	}
	if u := msgs[1].Usage; u.Input != 20 || u.CacheRead != 100 || u.Output != 30 {
		t.Errorf("usage from token_count: %+v", u)
	}
	if h := res.Sessions[0].Header; h.ID != "cx-par" || h.Cwd != "/p" {
		t.Errorf("header %+v", h)
	}
	if kept(res)["message/user (Codex's own instructions)"] != 1 || skipped(res)["event_msg"] != 2 || skipped(res)["turn_context"] != 1 {
		t.Errorf("custom %+v skipped %+v", res.Custom, res.Skipped)
	}
}

func TestCodexApplyPatchKept(t *testing.T) {
	res := importFixture(t, "codex/apply-patch.jsonl")
	msgs, _ := context(t, res.Sessions[0])
	var args struct{ Input string }
	json.Unmarshal(msgs[1].Content[0].Arguments, &args)
	if !strings.HasPrefix(args.Input, "*** Begin Patch\n*** Update File: a.go") {
		t.Errorf("apply_patch arguments %s", msgs[1].Content[0].Arguments)
	}
	if msgs[2].Content[0].Text != "Success. Updated the following files:\nM a.go\n" {
		t.Errorf("list output %+v", msgs[2])
	}
}

func TestCodexImagesAndOutputs(t *testing.T) {
	res := importFixture(t, "codex/images-and-outputs.jsonl")
	msgs, shape := context(t, res.Sessions[0])
	want := "user[text,image] assistant[call:v1] toolResult:v1[text,image] assistant[call:v2] toolResult:v2[text] assistant[call:v3] toolResult:v3[text] assistant[text]"
	if shape != want {
		t.Errorf("context %s\nwant    %s", shape, want)
	}
	if got := string(res.Sessions[0].Entries[1]); !strings.Contains(got, `"data":"iVBORw0KGgo=","mimeType":"image/png"`) {
		t.Errorf("image: %s", got)
	}
	if msgs[4].Content[0].Text != "exit 0" || msgs[6].Content[0].Text != "a.go" {
		t.Errorf("object outputs: %+v %+v", msgs[4], msgs[6])
	}
}

func TestCodexOtherItemsKept(t *testing.T) {
	res := importFixture(t, "codex/other-items.jsonl")
	if h := res.Sessions[0].Header; h.ID != "cx-first" || h.Cwd != "/p" {
		t.Errorf("the first session_meta is the session: %+v", h)
	}
	kp := kept(res)
	for _, k := range []string{"response_item/agent_message", "response_item/image_generation_call", "response_item/frobnicate_call", "world_state", "compacted", "message/developer"} {
		if kp[k] != 1 {
			t.Errorf("%s kept %d times: %+v", k, kp[k], res.Custom)
		}
	}
	if kp["session_meta"] != 2 {
		t.Errorf("session_meta kept %d times", kp["session_meta"])
	}
	// the searches are where the model saw them: a web search's action as
	// its call, the results of its web_search_end event as its result, a
	// tool search's call and output
	msgs, shape := context(t, res.Sessions[0])
	if want := "user[text] assistant[call:web_search_1] toolResult:web_search_1[text] assistant[call:ts1] toolResult:ts1[text] assistant[text]"; shape != want {
		t.Errorf("context %s\nwant    %s", shape, want)
	}
	var args struct{ Type, Query string }
	json.Unmarshal(msgs[1].Content[0].Arguments, &args)
	results := `[{"type":"result","title":"Go 1.26 is released","url":"https://go.dev/blog/go1.26"}]` // its web_search_end's
	if args.Query != "go 1.26" || msgs[2].Content[0].Text != results || msgs[4].Content[0].Text != "[]" {
		t.Errorf("searches: %+v %+v %+v", msgs[1], msgs[2], msgs[4])
	}
}

func TestCodexEarlyFormat(t *testing.T) {
	lines := readCorpusFile(t, "testdata/codex/early-format.jsonl")
	if f := Detect(lines[0]); f != "codex" {
		t.Fatalf("Detect = %q", f)
	}
	res := importFixture(t, "codex/early-format.jsonl")
	if h := res.Sessions[0].Header; h.ID != "cx-early" || h.Timestamp != "2025-09-10T18:58:38.331Z" {
		t.Errorf("header %+v", h)
	}
	if _, shape := context(t, res.Sessions[0]); shape != "user[text] assistant[thinking,call:call_1] toolResult:call_1[text] assistant[text]" {
		t.Errorf("context %s", shape)
	}
	if skipped(res)["record_type state"] != 2 {
		t.Errorf("skipped %+v", res.Skipped)
	}
}

// FuzzImport feeds every converter any input: no panic, and what they
// write are session records.
func FuzzImport(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.json*")
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, in string) {
		lines := bytes.Split([]byte(in), []byte{'\n'})
		for _, format := range []string{"claude", "codex", "gemini", "opencode"} {
			var res Result
			var err error
			switch format {
			case "gemini":
				res, err = FromGemini([]byte(in), opts())
			case "opencode":
				var s OpencodeSession
				if json.Unmarshal([]byte(in), &s) != nil {
					continue
				}
				res, err = FromOpencode(s, opts())
			default:
				res, err = convert(format, lines)
			}
			if err != nil {
				continue
			}
			for _, s := range res.Sessions {
				for _, e := range s.Entries {
					if _, err := session.ParseRecord(e); err != nil {
						t.Fatalf("%s: %s: %v", format, e, err)
					}
				}
			}
		}
	})
}

// TestClaudeAssistantStringContent: an assistant message whose content is
// a plain string (hand-written and older records; the API takes it) keeps
// its text.
func TestClaudeAssistantStringContent(t *testing.T) {
	res := importFixture(t, "claude/string-content.jsonl")
	msgs, shape := context(t, res.Sessions[0])
	if want := "user[text] assistant[text]"; shape != want {
		t.Fatalf("context %s\nwant    %s", shape, want)
	}
	if got := msgs[1].Content[0].Text; got != "The title is Title." {
		t.Errorf("text %q", got)
	}
}
