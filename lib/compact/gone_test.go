package compact

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goneEntries is a random never-compacted chain: users, assistants (some
// naming their model, some with usage, some all zeros, now and then an
// error), tool results of bash (prunable), read (protected) and some
// already pruned, and model changes.
func goneEntries(t *testing.T, n int, seed int64) []Entry {
	rng := rand.New(rand.NewSource(seed))
	var out []Entry
	parent := "null"
	for i := range n {
		id := fmt.Sprintf("e%05d", i)
		text := strings.Repeat("w", rng.Intn(8000))
		var line string
		switch k := rng.Intn(10); {
		case k < 2:
			line = fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"t","message":{"role":"user","content":%q,"timestamp":1}}`, id, parent, text)
		case k < 5:
			usage := ""
			switch rng.Intn(3) {
			case 0:
				usage = fmt.Sprintf(`,"usage":{"input":%d,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":0}`, rng.Intn(300000))
			case 1:
				usage = `,"usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0}`
			}
			stop := []string{"toolUse", "stop", "error"}[rng.Intn(3)]
			line = fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":%q}],"provider":"p%d","model":"m"%s,"stopReason":%q,"timestamp":1}}`, id, parent, text, rng.Intn(3), usage, stop)
		case k < 9:
			tool, pruned := []string{"bash", "bash", "read"}[rng.Intn(3)], ""
			if rng.Intn(5) == 0 {
				pruned = `,"prunedAt":1`
			}
			line = fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"t","message":{"role":"toolResult","toolCallId":"c","toolName":%q,"content":[{"type":"text","text":%q}],"isError":false%s,"timestamp":1}}`, id, parent, tool, text, pruned)
		default:
			line = fmt.Sprintf(`{"type":"model_change","id":%q,"parentId":%s,"timestamp":"t","provider":"q%d","modelId":"x"}`, id, parent, rng.Intn(3))
		}
		e, err := ReadEntry([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
		parent = fmt.Sprintf("%q", id)
	}
	return out
}

// Letting go of a path's first entries into a Gone, in batches, decides
// as the whole path does: pruning (the held entries replaced and the
// lines of those let go of), the context's tokens, the last assistant
// message and the default model.
func TestGoneDecidesAsWhole(t *testing.T) {
	s := Settings{ReserveTokens: 16384, KeepRecentTokens: 20000, ProtectTokens: 10000, MinimumSavings: 1000}
	goneCands := 0 // cases where tool results let go of are pruned
	for seed := range int64(40) {
		path := goneEntries(t, 20+int(seed)*7, seed)
		wholePruned, wholeSaved := Prune(path, s, 5)
		var want []string
		for _, p := range wholePruned {
			want = append(want, fmt.Sprintf("%d %s", p.Index, p.Raw))
		}
		for _, k := range []int{1, len(path) / 3, len(path) - 1} {
			g := NewGone(s)
			lines := make([]int, k)
			for i := range lines {
				lines[i] = i
			}
			for from := 0; from < k; from += 3 { // in batches
				to := min(k, from+3)
				g.Add(path[from:to], lines[from:to])
			}
			p, tail := g.Path(nil, path[k:])
			pruned, saved := g.Prune(p, tail, 5)
			var got []string
			goneCands += len(g.Cands)
			for _, c := range g.Cands {
				got = append(got, fmt.Sprintf("%d %s", c.Line, PruneEntry(path[c.Line].Raw, c.Tokens, 5)))
			}
			for _, q := range pruned {
				got = append(got, fmt.Sprintf("%d %s", q.Index-tail+k, q.Raw))
			}
			if diff := cmp.Diff(want, got); diff != "" || saved != wholeSaved {
				t.Errorf("seed %d k %d: pruning differs (saved %d, want %d):\n%s", seed, k, saved, wholeSaved, diff)
			}
			if a, b := g.ContextAfterPrune(p, tail, saved), ContextAfterPrune(path, wholeSaved); a != b {
				t.Errorf("seed %d k %d: tokens %d, want %d", seed, k, a, b)
			}
			if a, b := string(g.LastAssistant(p, tail)), string(LastAssistant(path)); a != b {
				t.Errorf("seed %d k %d: last assistant %.80s, want %.80s", seed, k, a, b)
			}
			if a, b := DefaultModel(p), DefaultModel(path); a != b {
				t.Errorf("seed %d k %d: model %s, want %s", seed, k, a, b)
			}
		}
	}
	if goneCands == 0 {
		t.Fatal("no tool result let go of was pruned: the cases test nothing of Gone's pruning")
	}
}
