package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/internal/testbin"
	"github.com/agentutils/agentutils/lib/compact"
)

// longStream is a linear pi-shaped session stream of n entries: turns of
// user, assistant (a bash call, its usage the context so far, a
// model_change now and then) and tool result of 0.1-4 KB, and a compaction
// keeping ~20k tokens whenever the context passed 90k.
func longStream(n int, seed int64) string {
	rng := rand.New(rand.NewSource(seed))
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n")
	type kept struct {
		id     string
		tokens int
		user   bool
	}
	var ctx []kept
	tokens, parent := 0, "null"
	add := func(id, line string, t int, user bool) {
		b.WriteString(line + "\n")
		parent = fmt.Sprintf("%q", id)
		ctx = append(ctx, kept{id, t, user})
		tokens += t
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("e%06d", i)
		text := strings.Repeat("w", 100+rng.Intn(3900))
		switch i % 3 {
		case 0:
			if i%300 == 0 { // now and then a model change
				model := []string{"anthropic/claude-a", "openai/gpt-b"}[i/300%2]
				add("m"+id, fmt.Sprintf(`{"type":"model_change","id":"m%s","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","model":%q}`, id, parent, model), 0, false)
			}
			add(id, fmt.Sprintf(`{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":%q}],"timestamp":1}}`, id, parent, text), len(text)/4, true)
		case 1:
			add(id, fmt.Sprintf(`{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":%q},{"type":"toolCall","id":"c%s","name":"bash","arguments":{"command":"ls"}}],"provider":"p%d","model":"m","usage":{"input":%d,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":%d},"stopReason":"toolUse","timestamp":1}}`,
				id, parent, text, id, i%7, tokens, tokens+10), len(text)/4, false)
		default:
			add(id, fmt.Sprintf(`{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"toolResult","toolCallId":"ce%06d","toolName":"bash","content":[{"type":"text","text":%q}],"isError":false,"timestamp":1}}`, id, parent, i-1, text), len(text)/4, false)
			if tokens > 90000 {
				k, acc := len(ctx)-1, 0
				for ; k > 0 && (acc < 20000 || !ctx[k].user); k-- {
					acc += ctx[k].tokens
				}
				cid := "c" + id
				b.WriteString(fmt.Sprintf(`{"type":"compaction","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","summary":"so far","firstKeptEntryId":%q,"tokensBefore":%d}`+"\n", cid, parent, ctx[k].id, tokens))
				parent = fmt.Sprintf("%q", cid)
				ctx = ctx[k:]
				tokens = 0
				for _, e := range ctx {
					tokens += e.tokens
				}
			}
		}
	}
	return b.String()
}

// decisions is what agent-compact decides from a stream.
type decisions struct {
	Pruned       map[string]string // id → the pruned record
	Saved        int
	Tokens       int
	Model        string
	LastAsst     string
	Missing      string
	Plan         compact.Plan
	PlanOK       bool
	Output       string
	LinesWritten int
}

func decide(t *testing.T, in string, after int) decisions {
	t.Helper()
	var out bytes.Buffer
	st, err := readStream(strings.NewReader(in), &out, after)
	if err != nil {
		t.Fatal(err)
	}
	written := strings.Count(out.String(), "\n")
	path, lines, _ := st.path()
	s := compact.Defaults
	s.ProtectTokens, s.MinimumSavings = 10000, 1000
	pruned, saved := compact.Prune(path, s, 1)
	d := decisions{Pruned: map[string]string{}, Saved: saved, Tokens: compact.ContextAfterPrune(path, saved),
		Model: compact.DefaultModel(path), LastAsst: string(compact.LastAssistant(path)), Missing: compact.MissingFirstKept(path),
		LinesWritten: written}
	repl := map[int][]byte{}
	for _, p := range pruned {
		d.Pruned[path[p.Index].ID] = string(p.Raw)
		repl[lines[p.Index]] = p.Raw
	}
	d.Plan, d.PlanOK = compact.Prepare(path, s)
	d.Plan.Summarize, d.Plan.TurnPrefix, d.Plan.Kept = nil, nil, nil
	d.Plan.FirstKept += st.offset()
	if d.Plan.TurnStart >= 0 {
		d.Plan.TurnStart += st.offset()
	}
	if err := st.write(repl, []byte(`{"rec":1}`)); err != nil {
		t.Fatal(err)
	}
	d.Output = out.String()
	return d
}

// A long linear stream decides the same, and writes the same bytes, whether
// agent-compact holds every line or lets go of those before the newest
// compaction's kept part (carrying the model changes and usage it still
// reads).
func TestWindowDecidesAsWhole(t *testing.T) {
	for _, n := range []int{40, 900, 3000} {
		in := longStream(n, int64(n))
		whole := decide(t, in, 0)
		if whole.LinesWritten != 0 {
			t.Fatalf("n=%d: holding every line wrote %d early", n, whole.LinesWritten)
		}
		for _, after := range []int{1, 64 << 10, flushAfter} {
			got := decide(t, in, after)
			if n >= 900 && after < flushAfter && got.LinesWritten == 0 {
				t.Errorf("n=%d after=%d: nothing let go of", n, after)
			}
			got.LinesWritten = 0
			if diff := cmp.Diff(whole, got, cmp.AllowUnexported(compact.FileOps{})); diff != "" {
				t.Errorf("n=%d after=%d: window differs from whole (-whole +window):\n%.3000s", n, after, diff)
			}
		}
	}
}

// The stream 'agent-session open' prints of a long session, cut at the
// newest compaction (formats/session: the stream is the context), decides
// as the whole path does: the same pruning, model, usage and plan, at the
// same indexes of the path.
func TestCutStreamDecidesAsWhole(t *testing.T) {
	dir, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{40, 900, 3000} {
		in := longStream(n, int64(n))
		file := filepath.Join(t.TempDir(), "s.jsonl")
		os.WriteFile(file, []byte(in), 0o644)
		cut, err := exec.Command(filepath.Join(dir, "agent-session"), "open", file).Output()
		if err != nil {
			t.Fatal(err)
		}
		if n >= 900 && !strings.Contains(strings.SplitN(string(cut), "\n", 2)[0], `"carried":`) {
			t.Fatalf("n=%d: the stream was not cut", n)
		}
		whole, got := decide(t, in, 0), decide(t, string(cut), 0)
		whole.Output, got.Output = "", ""
		if diff := cmp.Diff(whole, got, cmp.AllowUnexported(compact.FileOps{})); diff != "" {
			t.Errorf("n=%d: the cut stream decides otherwise (-whole +cut):\n%.3000s", n, diff)
		}
	}
}
