package compact

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/session"
)

func compactionRec(t testing.TB, id, firstKept string) session.Record {
	t.Helper()
	r, err := session.ParseRecord([]byte(fmt.Sprintf(`{"type":"compaction","id":%q,"parentId":null,"timestamp":"t","summary":"s","firstKeptEntryId":%q,"tokensBefore":1}`, id, firstKept)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func usageRec(t testing.TB, id string, total int) session.Record {
	t.Helper()
	r, err := session.ParseRecord([]byte(fmt.Sprintf(`{"type":"message","id":%q,"parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"stopReason":"stop","usage":{"input":%d,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":%d},"timestamp":1}}`, id, total, total)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Tool results before the latest compaction's kept entries are not in the
// context: Prune leaves them alone and counts nothing for them.
func TestPruneOnlyTheContext(t *testing.T) {
	var path []session.Record
	for i := 0; i < 4; i++ { // summarised: never sent again
		path = append(path, entry(t, fmt.Sprint("u", i), "user", 10), entry(t, fmt.Sprint("t", i), "toolResult", 15000))
	}
	path = append(path, entry(t, "k", "user", 10), entry(t, "tk", "toolResult", 15000)) // kept
	path = append(path, compactionRec(t, "c", "k"))
	for i := 4; i < 8; i++ {
		path = append(path, entry(t, fmt.Sprint("u", i), "user", 10), entry(t, fmt.Sprint("t", i), "toolResult", 15000))
	}
	es := Index(path)
	out, saved := Prune(es, Defaults, 99)
	var ids []string
	want := 0
	for _, p := range out {
		r, _ := session.ParseRecord(p.Raw)
		ids = append(ids, r.ID)
		want += es[p.Index].Tokens - 9 // the notice is 9 tokens
	}
	// newest first: t7, t6, t5 (crossing 40k) protected; t4 and the kept tk pruned
	if d := cmp.Diff([]string{"tk", "t4"}, ids); d != "" {
		t.Errorf("pruned %v: %s", ids, d)
	}
	if saved != want {
		t.Errorf("saved %d, want %d", saved, want)
	}

	// a compaction whose kept entry is gone keeps nothing before it
	path[len(path)-9] = compactionRec(t, "c", "gone")
	out, _ = Prune(Index(path), Settings{ProtectTokens: 40000}, 99)
	if len(out) != 1 || out[0].Index != len(path)-7 {
		t.Errorf("pruned %+v, want t4 only", out)
	}
}

// The usage the threshold counts can be smaller than the estimate of what
// pruning saves: the count is floored at 0, never negative.
func TestContextAfterPruneNotNegative(t *testing.T) {
	var path []session.Record
	for i := 0; i < 6; i++ {
		path = append(path, entry(t, fmt.Sprint("u", i), "user", 10), entry(t, fmt.Sprint("t", i), "toolResult", 15000))
	}
	path = append(path, usageRec(t, "a", 1000))
	es := Index(path)
	_, saved := Prune(es, Defaults, 99)
	if saved <= 1000 {
		t.Fatalf("saved %d: the test needs more than the usage", saved)
	}
	if got := ContextAfterPrune(es, saved); got != 0 {
		t.Errorf("ContextAfterPrune = %d, want 0", got)
	}
}

// Whatever the path: saved is not negative, every pruned entry is a tool
// result of the context that will be sent, and the count after pruning is
// not negative.
func FuzzPrune(f *testing.F) {
	f.Add([]byte{0, 2, 0, 2, 3, 0, 2, 4, 2}, uint8(3), uint16(500))
	f.Add([]byte{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 2}, uint8(1), uint16(0))
	f.Fuzz(func(t *testing.T, kinds []byte, keptAt uint8, total uint16) {
		if len(kinds) > 48 {
			kinds = kinds[:48]
		}
		var path []session.Record
		for i, k := range kinds {
			id := fmt.Sprint("e", i)
			switch k % 5 {
			case 3:
				path = append(path, compactionRec(t, id, fmt.Sprint("e", keptAt)))
			case 4:
				path = append(path, usageRec(t, id, int(total)))
			default:
				path = append(path, entry(t, id, []string{"user", "assistant", "toolResult"}[k%5], int(k)*40))
			}
		}
		es := Index(path)
		out, saved := Prune(es, Settings{ProtectTokens: 1000, MinimumSavings: 100}, 1)
		if saved < 0 {
			t.Fatalf("saved %d", saved)
		}
		c, kept, _ := lastCompaction(es)
		for _, p := range out {
			e := es[p.Index]
			if e.Role != "toolResult" {
				t.Fatalf("pruned a %s", e.Role)
			}
			if c >= 0 && p.Index < c && (kept < 0 || p.Index < kept) {
				t.Fatalf("pruned entry %d, summarised by the compaction at %d (kept from %d)", p.Index, c, kept)
			}
		}
		if n := ContextAfterPrune(es, saved); n < 0 {
			t.Fatalf("ContextAfterPrune = %d", n)
		}
	})
}
