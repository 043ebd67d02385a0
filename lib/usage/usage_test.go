package usage

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/llm"
)

func at(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }

func TestFromEntries(t *testing.T) {
	lines := [][]byte{
		[]byte(`{"type":"session","version":3,"id":"s","cwd":"/p"}`),
		[]byte(`{"type":"message","id":"a","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}`),
		[]byte(`{"type":"message","id":"b","timestamp":"2026-01-01T00:00:01Z","message":{"role":"assistant","provider":"anthropic","model":"m","responseId":"msg_1","timestamp":1767225601000,"usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"cost":{"total":0.5}}}}`),
		[]byte(`{"type":"message","id":"c","timestamp":"2026-01-01T00:00:02Z","message":{"role":"assistant","model":"m","usage":{"input":0,"output":0}}}`),
		[]byte(`{"type":"message","id":"d","timestamp":"2026-01-01T00:00:03Z","message":{"role":"assistant","model":"m","usage":{"input":5}}}`),
		[]byte(`not json`),
	}
	got := FromEntries("pi", "/p", lines)
	want := []Entry{
		{Agent: "pi", Project: "/p", Provider: "anthropic", Model: "m", Key: "anthropic/msg_1", Time: at("2026-01-01T00:00:01Z"), Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4, Cost: 0.5},
		{Agent: "pi", Project: "/p", Model: "m", Time: at("2026-01-01T00:00:03Z"), Input: 5},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatal(d)
	}
}

func TestAggregate(t *testing.T) {
	price := PriceFrom([]llm.Model{{Provider: "anthropic", ID: "claude-x", Cost: llm.Prices{Input: 1, Output: 2}}})
	es := []Entry{
		{Agent: "claude", Project: "/a", Provider: "anthropic", Model: "claude-x-20250101", Key: "k1", Time: at("2026-01-01T23:30:00Z"), Input: 1e6},
		{Agent: "claude", Project: "/a", Provider: "anthropic", Model: "claude-x-20250101", Key: "k1", Time: at("2026-01-01T23:30:00Z"), Input: 1e6},
		{Agent: "codex", Project: "/b", Model: "gpt-y", Time: at("2026-01-02T10:00:00Z"), Output: 10},
		{Agent: "pi", Project: "/b", Model: "claude-x", Time: at("2026-02-01T10:00:00Z"), Output: 1e6, Cost: 7},
	}
	rep, err := Aggregate(es, Options{Price: price})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 3 || rep.Rows[0].Key != "2026-01-01" || rep.Rows[0].Cost != 1 || rep.Duplicates != 1 {
		t.Fatalf("by day: %+v", rep)
	}
	if rep.Total.Cost != 8 || rep.Total.Responses != 3 || !cmp.Equal(rep.Unpriced, []string{"gpt-y"}) {
		t.Fatalf("total: %+v", rep)
	}
	// a time zone moves the late message to the next day
	tz := time.FixedZone("+1", 3600)
	rep, _ = Aggregate(es, Options{Loc: tz, Since: "2026-01-02", Until: "2026-01-31"})
	if len(rep.Rows) != 1 || rep.Rows[0].Key != "2026-01-02" || rep.Rows[0].Responses != 2 {
		t.Fatalf("since/until in +1: %+v", rep.Rows)
	}
	rep, _ = Aggregate(es, Options{By: "project", Price: price})
	if rep.Rows[0].Key != "/b" || rep.Rows[0].Cost != 7 || rep.Rows[1].Key != "/a" {
		t.Fatalf("by project, costliest first: %+v", rep.Rows)
	}
	rep, _ = Aggregate(es, Options{By: "month"})
	if len(rep.Rows) != 2 || rep.Rows[1].Key != "2026-02" {
		t.Fatalf("by month: %+v", rep.Rows)
	}
	for _, bad := range []Options{{By: "week"}, {Since: "2026-1-1"}, {Until: "2026-02-30"}} {
		if _, err := Aggregate(nil, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestPriceFrom(t *testing.T) {
	ms := []llm.Model{{Provider: "openrouter", ID: "gpt-z"}, {Provider: "openai", ID: "gpt-z"}, {Provider: "anthropic", ID: "claude-sonnet-4-5"}}
	p := PriceFrom(ms)
	if m, ok := p("openai", "gpt-z"); !ok || m.Provider != "openai" {
		t.Errorf("provider's own model first: %+v", m)
	}
	if m, ok := p("", "GPT-Z"); !ok || m.Provider != "openrouter" {
		t.Errorf("any provider: %+v", m)
	}
	if _, ok := p("anthropic", "claude-sonnet-4-5-20250929"); !ok {
		t.Error("dated id")
	}
	if _, ok := p("anthropic", "claude-sonnet-4"); ok {
		t.Error("a near name priced")
	}
}

func FuzzFromEntries(f *testing.F) {
	f.Add([]byte(`{"type":"message","message":{"role":"assistant","model":"m","usage":{"input":1,"cost":{"total":1}}}}`))
	f.Add([]byte(`{"type":"message","message":{"role":"assistant","usage":null}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		es := FromEntries("pi", "", [][]byte{line})
		if _, err := Aggregate(es, Options{By: "model"}); err != nil {
			t.Fatal(err)
		}
	})
}
