package compact

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/agentutils/agentutils/lib/session"
)

// A path cut by CutPath, its carried entries first (session.Rechain),
// resolves to the context and the decisions' model and usage of the whole
// path: random paths of messages, state changes and compactions keeping
// from an entry on the path, from the compaction's own id, or from no
// entry at all.
func TestCutPathResolvesAsThePath(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	cuts := 0
	for trial := range 400 {
		var lines []string
		parent := "null"
		for i := range 2 + rng.Intn(30) {
			id := fmt.Sprintf("e%d", i)
			var body string
			switch k := rng.Intn(10); {
			case k < 3:
				body = fmt.Sprintf(`"message":{"role":"user","content":"u%d","timestamp":1}`, i)
			case k < 5:
				usage := ""
				if rng.Intn(2) == 0 {
					usage = fmt.Sprintf(`,"usage":{"input":%d,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":%d}`, i, i+1)
				}
				model := ""
				if rng.Intn(2) == 0 {
					model = fmt.Sprintf(`,"provider":"p","model":"m%d"`, i)
				}
				body = fmt.Sprintf(`"message":{"role":"assistant","content":[{"type":"text","text":"a%d"}],"stopReason":"stop"%s%s,"timestamp":1}`, i, usage, model)
			case k == 5:
				body = fmt.Sprintf(`"provider":"p","modelId":"mc%d"`, i)
			case k == 6:
				body = `"thinkingLevel":"high"`
			case k == 7:
				body = fmt.Sprintf(`"injectedRules":["r%d"]`, i)
			default:
				kept := fmt.Sprintf("e%d", rng.Intn(i+2))
				if rng.Intn(5) == 0 {
					kept = ""
				}
				body = fmt.Sprintf(`"summary":"s%d","firstKeptEntryId":%q,"tokensBefore":5`, i, kept)
			}
			typ := map[bool]string{true: "message"}[len(body) > 10 && body[:10] == `"message":`]
			switch {
			case typ != "":
			case body[1] == 'p':
				typ = "model_change"
			case body[1] == 't':
				typ = "thinking_level_change"
			case body[1] == 'i':
				typ = "ttsr_injection"
			default:
				typ = "compaction"
			}
			lines = append(lines, fmt.Sprintf(`{"type":%q,"id":%q,"parentId":%s,%s}`, typ, id, parent, body))
			parent = fmt.Sprintf("%q", id)
		}
		recs := make([]session.Record, len(lines))
		for i, l := range lines {
			r, err := session.ParseRecord([]byte(l))
			if err != nil {
				t.Fatal(l, err)
			}
			recs[i] = r
		}
		entries := Index(recs)
		cut, err := CutPath(len(recs), func(i int) string { return recs[i].Type },
			func(i int) (Entry, error) { return ReadHead(recs[i].Raw) },
			func(id string) int { return slices.IndexFunc(recs, func(r session.Record) bool { return r.ID == id }) })
		if err != nil {
			t.Fatal(err)
		}
		if cut.From > 0 {
			cuts++
		}
		var kept []session.Record
		var keptEntries []Entry
		for _, i := range cut.Carried {
			kept, keptEntries = append(kept, recs[i]), append(keptEntries, entries[i])
		}
		kept = append(kept, recs[cut.From:]...)
		keptEntries = append(keptEntries, entries[cut.From:]...)
		want, err1 := session.BuildContext(recs, nil)
		got, err2 := session.BuildContext(session.Rechain(kept, len(cut.Carried)), nil)
		if err1 != nil || err2 != nil || fmt.Sprint(want) != fmt.Sprint(got) {
			t.Fatalf("trial %d: cut %+v\n%v\nresolves to\n%+v\nnot\n%+v", trial, cut, lines, got, want)
		}
		wu, wok := LastUsage(entries)
		gu, gok := LastUsage(keptEntries)
		if DefaultModel(entries) != DefaultModel(keptEntries) || wu != gu || wok != gok {
			t.Fatalf("trial %d: cut %+v: the decisions' model or usage differ\n%v", trial, cut, lines)
		}
	}
	if cuts < 100 {
		t.Errorf("only %d of 400 paths were cut", cuts)
	}
}
