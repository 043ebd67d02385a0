package subagent

import (
	"encoding/json"
	"time"
)

// Budget is what an agent may spend; a zero field is no limit. Turns is
// agent-chat's --max-turns; the others the task tool's limits, which
// reach a sub-agent in BudgetVar so that it carves its own sub-agents'
// from them.
type Budget struct {
	Turns    int       `json:"-"`
	Tokens   int       `json:"tokens,omitempty"`
	Cost     float64   `json:"cost,omitempty"`
	Deadline time.Time `json:"-"`
	// DeadlineMs is Deadline in Unix milliseconds, as BudgetVar holds it.
	DeadlineMs int64 `json:"deadline,omitempty"`
}

// BudgetVar is the variable that hands a sub-agent its budget (JSON:
// tokens, cost, deadline in Unix milliseconds).
const BudgetVar = "AGENT_TASK_BUDGET"

// ParseBudget reads BudgetVar's value ("" or a bad value: no limits).
func ParseBudget(s string, turns int) Budget {
	var b Budget
	if s != "" && json.Unmarshal([]byte(s), &b) != nil {
		b = Budget{}
	}
	if b.DeadlineMs > 0 {
		b.Deadline = time.UnixMilli(b.DeadlineMs)
	}
	b.Turns = turns
	return b
}

// Var is the budget as BudgetVar's value.
func (b Budget) Var() string {
	if !b.Deadline.IsZero() {
		b.DeadlineMs = b.Deadline.UnixMilli()
	}
	v, _ := json.Marshal(b)
	return string(v)
}

// Spent is what an agent has spent so far: its model calls, and the
// tokens and dollars of those and of its finished sub-agents.
type Spent struct {
	Turns  int
	Tokens int
	Cost   float64
}

// DefaultTurns is a sub-agent's --max-turns when neither the call nor
// the parent's remaining turns say less.
const DefaultTurns = 30

// Carve is a sub-agent's budget: what the call asks for, capped by what
// remains of the parent's (own less spent, at least 1 turn and 1 token);
// a limit the call leaves out is the parent's remainder. The deadline is
// the earlier of the call's timeout and the parent's.
func Carve(a Args, own Budget, spent Spent, now time.Time) Budget {
	var b Budget
	b.Turns = capInt(a.MaxTurns, own.Turns, spent.Turns, DefaultTurns)
	b.Tokens = capInt(a.MaxTokens, own.Tokens, spent.Tokens, 0)
	b.Cost = a.MaxCost
	if own.Cost > 0 {
		left := max(own.Cost-spent.Cost, 1e-6)
		if b.Cost == 0 || b.Cost > left {
			b.Cost = left
		}
	}
	if a.Timeout > 0 {
		b.Deadline = now.Add(time.Duration(a.Timeout * float64(time.Second)))
	}
	if !own.Deadline.IsZero() && (b.Deadline.IsZero() || own.Deadline.Before(b.Deadline)) {
		b.Deadline = own.Deadline
	}
	return b
}

// capInt is asked capped by own less spent (own 0: no cap), else def.
func capInt(asked, own, spent, def int) int {
	v := asked
	if v == 0 {
		v = def
	}
	if own > 0 {
		left := max(own-spent, 1)
		if v == 0 || v > left {
			v = left
		}
	}
	return v
}
