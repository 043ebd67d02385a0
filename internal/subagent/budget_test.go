package subagent

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCarve(t *testing.T) {
	now := time.UnixMilli(1_000_000)
	later := now.Add(10 * time.Second)
	for _, tc := range []struct {
		name  string
		args  Args
		own   Budget
		spent Spent
		want  Budget
	}{
		{"no limits", Args{}, Budget{}, Spent{}, Budget{Turns: DefaultTurns}},
		{"asked, parent unlimited", Args{MaxTurns: 5, MaxTokens: 100, MaxCost: 0.5, Timeout: 2}, Budget{}, Spent{},
			Budget{Turns: 5, Tokens: 100, Cost: 0.5, Deadline: now.Add(2 * time.Second)}},
		{"capped by what remains", Args{MaxTurns: 40, MaxTokens: 1000, MaxCost: 2, Timeout: 60}, Budget{Turns: 50, Tokens: 500, Cost: 1, Deadline: later}, Spent{Turns: 20, Tokens: 100, Cost: 0.25},
			Budget{Turns: 30, Tokens: 400, Cost: 0.75, Deadline: later}},
		{"inherited when not asked", Args{}, Budget{Turns: 10, Tokens: 500, Cost: 1}, Spent{Turns: 3, Tokens: 600},
			Budget{Turns: 7, Tokens: 1, Cost: 1}},
		{"spent out: one turn", Args{MaxTurns: 3}, Budget{Turns: 4}, Spent{Turns: 4}, Budget{Turns: 1}},
	} {
		got := Carve(tc.args, tc.own, tc.spent, now)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	b := Budget{Tokens: 7, Cost: 0.5, Deadline: later}
	if got := ParseBudget(b.Var(), 3); !got.Deadline.Equal(later) || got.Tokens != 7 || got.Cost != 0.5 || got.Turns != 3 {
		t.Errorf("ParseBudget(Var()) = %+v", got)
	}
}
