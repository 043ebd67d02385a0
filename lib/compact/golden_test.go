package compact

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/session"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s (-want +got):\n%s", file, d)
	}
}

// path builds a linear path from a compact spec, one word per entry:
// u50 a300 t2000 (user, assistant, tool result of that many tokens),
// b40 (bashExecution), a20/read:x.go (an assistant calling read on x.go),
// t900/read (a read tool result), m (model_change), l (label), cm (custom_message),
// bs (branch_summary), c>ID (a compaction keeping from ID, summary "Earlier.").
// Entry ids are e0, e1, …
func path(t *testing.T, spec string) []Entry {
	t.Helper()
	var recs []session.Record
	parent := "null"
	for i, w := range strings.Fields(spec) {
		id := fmt.Sprintf("e%d", i)
		kind, arg, _ := strings.Cut(w, "/")
		text := func(n string) string {
			k, err := strconv.Atoi(n)
			if err != nil {
				t.Fatalf("bad spec word %q", w)
			}
			return strings.Repeat("x", k*4)
		}
		var body string
		switch {
		case kind == "m":
			body = `"type":"model_change","model":"p/m"`
		case kind == "l":
			body = `"type":"label","targetId":"e0","label":"start"`
		case kind == "cm":
			body = `"type":"custom_message","customType":"note","content":"a note","display":true`
		case kind == "bs":
			body = `"type":"branch_summary","fromId":"e0","summary":"Tried another way."`
		case strings.HasPrefix(kind, "c>"):
			body = fmt.Sprintf(`"type":"compaction","summary":"Earlier.","firstKeptEntryId":%q,"tokensBefore":1000,"details":{"readFiles":["old.go"],"modifiedFiles":["done.go"]}`, kind[2:])
		case kind[0] == 'u':
			body = fmt.Sprintf(`"type":"message","message":{"role":"user","content":%q,"timestamp":1}`, text(kind[1:]))
		case kind[0] == 'b':
			body = fmt.Sprintf(`"type":"message","message":{"role":"bashExecution","command":"make","output":%q,"exitCode":0,"timestamp":1}`, text(kind[1:]))
		case kind[0] == 'a':
			content := fmt.Sprintf(`[{"type":"text","text":%q}]`, text(kind[1:]))
			if tool, file, ok := strings.Cut(arg, ":"); ok {
				content = fmt.Sprintf(`[{"type":"text","text":%q},{"type":"toolCall","id":"c%d","name":%q,"arguments":{"path":%q}}]`, text(kind[1:]), i, tool, file)
			}
			body = fmt.Sprintf(`"type":"message","message":{"role":"assistant","content":%s,"stopReason":"stop","timestamp":1}`, content)
		case kind[0] == 't':
			tool := arg
			if tool == "" {
				tool = "bash"
			}
			body = fmt.Sprintf(`"type":"message","message":{"role":"toolResult","toolCallId":"c","toolName":%q,"content":[{"type":"text","text":%q}],"isError":false,"timestamp":1}`, tool, text(kind[1:]))
		default:
			t.Fatalf("bad spec word %q", w)
		}
		line := fmt.Sprintf(`{"id":%q,"parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z",%s}`, id, parent, body)
		r, err := session.ParseRecord([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		recs = append(recs, r)
		parent = strconv.Quote(id)
	}
	return Index(recs)
}

func ids(entries []Entry) string {
	var out []string
	for _, e := range entries {
		out = append(out, e.ID)
	}
	return "[" + strings.Join(out, " ") + "]"
}

// The cut point rules of §4.6 and the plan of §4.5, as golden output: a
// plain cut at a user message, a split turn, a path after a previous
// compaction, metadata pulled into the kept part (and the reference's
// split-turn quirk after it fixed), and tool results never cut.
func TestCutPointsGolden(t *testing.T) {
	cases := []struct {
		name, spec string
		keep       int
	}{
		{"plain: the cut lands on a user message", "u100 a500 u100 a300 u50 a200", 250},
		{"the worked example: a split turn", "u100 a500 t30000 a200 u50 a300 t25000 a400", 20000},
		{"a bashExecution starts a turn", "u10 a10 b400 a20 a30", 40},
		{"after a previous compaction: only what follows it", "u500 a500 c>e1 u100 a100 u100 a100", 150},
		{"a previous compaction that kept entries before it", "u500 a500 u500 c>e2 u100 a100 u100 a100", 150},
		{"metadata before the cut is pulled into the kept part", "u100 a100 m l u100 a100", 200},
		{"metadata pulled in: the next message is a user one, not a split turn", "u100 a100 u100 a100 m u100 a100", 150},
		{"custom_message and branch_summary are cut points", "u100 a100 bs u100 a100 cm a100", 100},
		{"tool results are never cut: the cut moves to the next assistant", "u10 a10 t500 t500 a10", 600},
		{"only tool results after the keep point: everything is kept", "u10 a10 t500 t500", 600},
		{"the path fits in the kept part", "u10 a10", 20000},
		{"a path that ends in a compaction", "u100 a100 c>e1", 10},
	}
	var b strings.Builder
	for _, c := range cases {
		p := path(t, c.spec)
		fmt.Fprintf(&b, "## %s\n%s (keep %d)\n", c.name, c.spec, c.keep)
		start := 0
		for i, e := range p {
			if e.Type == "compaction" {
				start = i + 1
			}
		}
		if start < len(p) {
			cut := FindCutPoint(p, start, len(p), c.keep)
			fmt.Fprintf(&b, "cut: firstKept %d turnStart %d split %v\n", cut.FirstKept, cut.TurnStart, cut.Split)
			if r := p[cut.FirstKept].Role; r == "toolResult" {
				t.Errorf("%s: cut at a tool result", c.name)
			}
		}
		plan, ok := Prepare(p, Settings{KeepRecentTokens: c.keep})
		if !ok {
			b.WriteString("plan: nothing to compact\n\n")
			continue
		}
		msgIDs := func(from, to int) string {
			var out []Entry
			for _, e := range p[from:to] {
				if e.Message != nil {
					out = append(out, e)
				}
			}
			return ids(out)
		}
		hist := plan.FirstKept
		if plan.SplitTurn {
			hist = plan.TurnStart
		}
		fmt.Fprintf(&b, "plan: firstKeptEntryId %s, summarize %s", plan.FirstKeptEntryID, msgIDs(start, hist))
		if plan.SplitTurn {
			fmt.Fprintf(&b, ", turn prefix %s", msgIDs(plan.TurnStart, plan.FirstKept))
		}
		fmt.Fprintf(&b, ", kept %s (%d tokens)", msgIDs(plan.FirstKept, len(p)), plan.KeptTokens)
		if plan.PreviousSummary != "" {
			fmt.Fprintf(&b, ", previous summary %q", plan.PreviousSummary)
		}
		read, mod := plan.Files.Lists()
		fmt.Fprintf(&b, ", files read %v modified %v\n\n", read, mod)
	}
	golden(t, "cutpoints.golden", b.String())
}

// Pruning (§4.4) as golden output: which results are pruned, the records
// written in their place, and what is saved; read results are never
// pruned, already pruned ones count toward the protected 40k.
func TestPruneGolden(t *testing.T) {
	cases := []struct{ name, spec string }{
		{"old bash output pruned past the newest 40k", "u10 t15000 u10 t15000 u10 t15000 u10 t15000 u10 t15000"},
		{"read results are never pruned", "u10 t15000/read u10 t15000 u10 t15000 u10 t15000 u10 t15000 u10 t15000/read"},
		{"saving under 20k: nothing pruned", "u10 t10000 u10 t40000"},
	}
	var b strings.Builder
	for _, c := range cases {
		p := path(t, c.spec)
		fmt.Fprintf(&b, "## %s\n%s\n", c.name, c.spec)
		out, saved := Prune(p, Defaults, 1767225600000)
		fmt.Fprintf(&b, "saved %d tokens, %d pruned\n", saved, len(out))
		for _, o := range out {
			fmt.Fprintf(&b, "%d: %s\n", o.Index, o.Raw)
			// a pruned record is the same entry: id, parent and pending
			r, err := session.ParseRecord(o.Raw)
			if err != nil || r.ID != p[o.Index].ID || r.ParentID != p[o.Index].ParentID || !r.Pending {
				t.Errorf("%s: pruned record %s", c.name, o.Raw)
			}
		}
		b.WriteString("\n")
		// pruning twice changes nothing more: the pruned results count as kept
		if len(out) > 0 {
			again := append([]Entry(nil), p...)
			for _, o := range out {
				e, err := ReadEntry(o.Raw)
				if err != nil {
					t.Fatal(err)
				}
				again[o.Index] = e
			}
			if out2, _ := Prune(again, Defaults, 2); len(out2) != 0 {
				t.Errorf("%s: pruned again: %d", c.name, len(out2))
			}
		}
	}
	golden(t, "prune.golden", b.String())
}

// File-operation tracking (§4.8): the tools of agentutils and pi, of
// Claude Code and of Codex; a previous compaction's lists; the blocks
// written into the summary (at most 20 lines each).
func TestFileOpsGolden(t *testing.T) {
	msgs := []json.RawMessage{
		json.RawMessage(`{"role":"assistant","content":[{"type":"toolCall","name":"read","arguments":{"path":"a.go"}},{"type":"toolCall","name":"write","arguments":{"path":"new.go","content":"x"}},{"type":"toolCall","name":"edit","arguments":{"path":"b.go"}},{"type":"toolCall","name":"bash","arguments":{"command":"cat c.go"}}]}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"toolCall","name":"Read","arguments":{"file_path":"/p/cc.go"}},{"type":"toolCall","name":"MultiEdit","arguments":{"file_path":"/p/multi.go","edits":[]}},{"type":"toolCall","name":"NotebookEdit","arguments":{"notebook_path":"/p/nb.ipynb"}},{"type":"toolCall","name":"Write","arguments":{"file_path":"/p/w.go"}}]}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"toolCall","name":"apply_patch","arguments":{"input":"*** Begin Patch\n*** Add File: added.go\n+x\n*** Update File: upd.go\n@@\n-a\n+b\n*** Delete File: gone.go\n*** End Patch"}}]}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"toolCall","name":"read","arguments":{"path":"b.go"}},{"type":"toolCall","name":"read","arguments":{"path":7}}]}`),
		json.RawMessage(`{"role":"user","content":[{"type":"toolCall","name":"read","arguments":{"path":"user-said.go"}}]}`),
	}
	f := NewFileOps(json.RawMessage(`{"readFiles":["old.go","a.go"],"modifiedFiles":["prev.go"]}`))
	f.Add(msgs)
	read, mod := f.Lists()
	var b strings.Builder
	fmt.Fprintf(&b, "read: %v\nmodified: %v\n\n", read, mod)
	b.WriteString(UpsertFileLists("## Goal\nShip it.\n\n<read-files>\nstale.go\n</read-files>\n<modified-files>\nstale.go\n</modified-files>\n", read, mod))
	var many []string
	for i := range 23 {
		many = append(many, fmt.Sprintf("f%02d.go", i))
	}
	b.WriteString("\n\n" + UpsertFileLists("Short.", nil, many) + "\n")
	golden(t, "fileops.golden", b.String())
}

// The exact text the summarizer reads (§4.7): the serialized
// conversation (after ConvertToLLM), the previous summary, the
// instructions, and the split turn's prefix.
func TestPromptsGolden(t *testing.T) {
	p := path(t, "u10 a10/read:calc.go t20/read a10/edit:calc.go t5/edit c>e4 u10 b10 a10/write:notes.md t5 u10 a10 t10 a10")
	plan, ok := Prepare(p, Settings{KeepRecentTokens: 12})
	if !ok {
		t.Fatal("no plan")
	}
	conv := func(msgs []json.RawMessage) string { return Serialize(session.ConvertToLLM(msgs)) }
	var b strings.Builder
	b.WriteString("=== history\n" + HistoryPrompt(conv(plan.Summarize), plan.PreviousSummary, "keep the API decisions") + "\n")
	b.WriteString("=== turn prefix\n" + TurnPrefixPrompt(conv(plan.TurnPrefix)) + "\n")
	b.WriteString("=== first history (no previous summary, no instructions)\n" + HistoryPrompt("[User]: hi", "", "") + "\n")
	b.WriteString("=== merged\n" + MergeSplit("## Goal\nX.", "## Original Request\nY.") + "\n")
	golden(t, "prompts.golden", strings.ReplaceAll(b.String(), strings.Repeat("x", 40), "x{40}"))
}

// A path without usage is estimated as the context it resolves to: the
// newest compaction's summary, the entries it keeps, and what follows it;
// a first-kept id that is not on the path keeps nothing before it.
func TestEstimateContext(t *testing.T) {
	for _, c := range []struct {
		spec    string
		want    int
		missing string
	}{
		{"u500 a500 u100", 1100, ""},
		{"u500 a500 u300 c>e2 u100 a100", 2 + 300 + 200, ""},
		{"u500 a500 u300 c>e9 u100 a100", 2 + 200, "e9"},
	} {
		p := path(t, c.spec)
		if got := EstimateContext(p); got != c.want {
			t.Errorf("%s: EstimateContext %d, want %d", c.spec, got, c.want)
		}
		if got := MissingFirstKept(p); got != c.missing {
			t.Errorf("%s: MissingFirstKept %q, want %q", c.spec, got, c.missing)
		}
	}
}
