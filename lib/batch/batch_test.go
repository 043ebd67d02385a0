package batch

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParseTask(t *testing.T) {
	good := `{"id":"t1","repo":"/r","ref":"main","prompt":"fix it","check":"make test","model":"anthropic/claude-sonnet-4-5","thinking":"low","tools":{"allow":["read","edit"],"editMode":"replace"},"budgets":{"turns":5,"tokens":1000,"cost":0.5,"wallSeconds":60}}`
	task, err := ParseTask([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	want := Task{ID: "t1", Repo: "/r", Ref: "main", Prompt: "fix it", Check: "make test", Model: "anthropic/claude-sonnet-4-5",
		Thinking: "low", Tools: &Tools{Allow: []string{"read", "edit"}, EditMode: "replace"},
		Budgets: Budgets{Turns: 5, Tokens: 1000, Cost: 0.5, WallSeconds: 60}}
	if d := cmp.Diff(want, task); d != "" {
		t.Error(d)
	}
	bad := map[string]string{
		"  \t":                                   "the task line is empty",
		`{"id":"t1","repo":"/r"}`:                "prompt is empty",
		`{"id":"../x","repo":"/r","prompt":"p"}`: "id",
		`{"id":"t","repo":"/r","prompt":"p","budget":{}}`:              "unknown field",
		`{"id":"t","repo":"/r","prompt":"p","thinking":"max"}`:         "thinking",
		`{"id":"t","repo":"/r","prompt":"p","ref":"--upload"}`:         "ref",
		`{"id":"t","repo":"/r","prompt":"p","budgets":{"turns":-1}}`:   "negative",
		`{"id":"t","repo":"/r","prompt":"p"} {}`:                       "more than one",
		`{"id":"t","repo":"","prompt":"p"}`:                            "repo",
		`{"id":"t","repo":"r","prompt":"p","tools":{"allow":["a b"]}}`: "tool name",
	}
	for line, frag := range bad {
		if _, err := ParseTask([]byte(line)); err == nil || !strings.Contains(err.Error(), frag) {
			t.Errorf("%s: err %v, want it to mention %q", line, err, frag)
		}
	}
}

func TestTaskAt(t *testing.T) {
	file := "\n" + `{"id":"a","repo":"r","prompt":"p"}` + "\n\n" + `{"id":"b","repo":"r","prompt":"p"}` + "\n" + `{"id":"c"}` + "\n"
	task, line, err := TaskAt(strings.NewReader(file), 1)
	if err != nil || task.ID != "b" || line != 4 {
		t.Fatalf("TaskAt 1 = %v %d %v", task.ID, line, err)
	}
	if _, _, err := TaskAt(strings.NewReader(file), 2); err == nil || !strings.Contains(err.Error(), "line 5") {
		t.Errorf("bad line: %v", err)
	}
	if _, _, err := TaskAt(strings.NewReader(file), 3); err == nil || !strings.Contains(err.Error(), "has 3 tasks") {
		t.Errorf("past the end: %v", err)
	}
}

func TestTallyBudgetsClassify(t *testing.T) {
	var tl Tally
	lines := []string{
		`{"type":"message_end","message":{"role":"user","content":[]}}`,
		`{"type":"message_end","message":{"role":"assistant","provider":"anthropic","model":"m","stopReason":"toolUse","usage":{"input":100,"output":10,"cacheRead":5,"cacheWrite":1,"cost":{"total":0.01}}}}`,
		`{"type":"message_update","message":{"role":"assistant"}}`,
		`{"type":"message_end","message":{"role":"assistant","provider":"anthropic","model":"m","stopReason":"stop","usage":{"input":200,"output":20,"cost":{"total":0.02}}}}`,
	}
	for _, l := range lines {
		tl.Add([]byte(l))
	}
	want := Tally{Turns: 2, Input: 300, Output: 30, CacheRead: 5, CacheWrite: 1, Cost: 0.03, Model: "anthropic/m", LastStop: "stop"}
	if d := cmp.Diff(want, tl, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })); d != "" {
		t.Error(d)
	}
	for _, tt := range []struct {
		b    Budgets
		secs float64
		want string
	}{
		{Budgets{}, 1e9, ""},
		{Budgets{Tokens: 336}, 0, ""},
		{Budgets{Tokens: 335}, 0, "tokens"},
		{Budgets{Cost: 0.01}, 0, "cost"},
		{Budgets{WallSeconds: 2}, 2, "wall"},
	} {
		if got := tt.b.Exceeded(tl, tt.secs); got != tt.want {
			t.Errorf("%+v at %vs: %q, want %q", tt.b, tt.secs, got, tt.want)
		}
	}
	stopped := Tally{Turns: 3, LastStop: "stop"}
	looping := Tally{Turns: 3, LastStop: "toolUse"}
	for _, tt := range []struct {
		r    Run
		want string
	}{
		{Run{SetupError: "clone failed"}, Error},
		{Run{Interrupted: true, Tally: stopped}, Error},
		{Run{BudgetHit: "wall"}, Budget},
		{Run{TurnsBudget: 3, Tally: looping, Check: "x"}, Budget},
		{Run{TurnsBudget: 3, Tally: stopped}, Passed},
		{Run{ChatExit: 1, Tally: stopped}, Error},
		{Run{ChatExit: 3, Tally: stopped}, Error},
		{Run{Tally: Tally{Turns: 1, LastStop: "error"}}, Error},
		{Run{Tally: stopped, Check: "x", CheckExit: 0}, Passed},
		{Run{Tally: stopped, Check: "x", CheckExit: 1}, Failed},
	} {
		if got, _ := Classify(tt.r); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.r, got, tt.want)
		}
	}
}

func TestResultAndAggregate(t *testing.T) {
	r := NewResult(Task{ID: "a", Model: "x/y"}, Run{Tally: Tally{Turns: 2, Input: 10, Output: 5, Cost: 0.5, LastStop: "stop"}}, 3)
	r.SetDiff(strings.Repeat("d", MaxDiff+1))
	if r.Outcome != Passed || r.Tokens != 15 || r.Model != "x/y" || !r.DiffTruncated || len(r.Diff) != MaxDiff {
		t.Fatalf("%+v", r)
	}
	rs := []Result{
		{ID: "a", Outcome: Passed, Model: "m1", Turns: 2, Tokens: 10, Cost: 1, WallSeconds: 2},
		{ID: "a", Outcome: Failed, Model: "m2", Turns: 4, Tokens: 30, Cost: 3, WallSeconds: 4},
		{ID: "b", Outcome: Budget, Model: "m1", Turns: 6, Tokens: 20, Cost: 2, WallSeconds: 6},
		{ID: "c", Outcome: Error},
	}
	rep := Aggregate(rs)
	if rep.Total.Runs != 4 || rep.Total.Passed != 1 || rep.Total.PassRate != 0.25 || rep.Total.Tokens != 60 || rep.Total.MeanTurns != 3 {
		t.Errorf("total %+v", rep.Total)
	}
	var keys []string
	for _, g := range rep.ByModel {
		keys = append(keys, g.Key)
	}
	if d := cmp.Diff([]string{"(unknown)", "m1", "m2"}, keys); d != "" {
		t.Error(d)
	}
	if a := rep.ByTask[0]; a.Key != "a" || a.Runs != 2 || a.PassRate != 0.5 || a.MeanCost != 2 {
		t.Errorf("task a %+v", a)
	}
}

func FuzzParseTask(f *testing.F) {
	f.Add([]byte(`{"id":"t1","repo":"/r","prompt":"p","budgets":{"turns":5}}`))
	f.Add([]byte(`{"id":"t1"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		task, err := ParseTask(b)
		if err == nil && task.Validate() != nil {
			t.Fatal("accepted an invalid task")
		}
		ParseResult(b)
	})
}

func TestWithCause(t *testing.T) {
	log := []byte("agent-tool: serving\nagent-chat: first\nagent-chat: no model: pass --model provider/id\nagent-session: appended 0\n")
	for _, c := range []struct{ outcome, reason, want string }{
		{Error, "agent-chat exit 2", "agent-chat exit 2: no model: pass --model provider/id"},
		{Error, "interrupted", "interrupted"},
		{Failed, "check exit 1", "check exit 1"},
	} {
		r := Result{Outcome: c.outcome, Reason: c.reason}
		r.WithCause(log)
		if r.Reason != c.want {
			t.Errorf("%s: %q, want %q", c.reason, r.Reason, c.want)
		}
	}
	r := Result{Outcome: Error, Reason: "agent-chat exit 1"}
	r.WithCause([]byte("agent-chat: " + strings.Repeat("é", 150)))
	if !strings.HasSuffix(r.Reason, "…") || len(r.Reason) > 240 || !utf8.ValidString(r.Reason) {
		t.Errorf("a long complaint is cut: %q", r.Reason)
	}
}
