package hooks

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		matcher, tool string
		want          bool
	}{
		{"", "bash", true},
		{"*", "read", true},
		{"Bash", "bash", true},
		{"bash", "bash", true},
		{"Edit|Write", "edit", true},
		{"Edit|Write", "write", true},
		{"Edit", "apply_patch", true},
		{"Glob", "find", true},
		{"Bash", "bashful", false},
		{"Read", "bash", false},
		{"mcp__.*", "mcp__gh__list", true},
	} {
		if got := (Hook{Matcher: tc.matcher}).Matches(tc.tool); got != tc.want {
			t.Errorf("%q ~ %q = %v, want %v", tc.matcher, tc.tool, got, tc.want)
		}
	}
}

func TestApplyJSON(t *testing.T) {
	yes := true
	for _, tc := range []struct {
		name, stdout string
		want         Verdict
	}{
		{"plain text ignored", "hello", Verdict{}},
		{"empty object", "{}", Verdict{}},
		{"block", `{"decision":"block","reason":"no"}`, Verdict{Block: true, Reason: "no"}},
		{"claude deny", `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"nope"}}`, Verdict{Block: true, Reason: "nope"}},
		{"ask without a person is deny", `{"decision":"ask"}`, Verdict{Block: true, Reason: "blocked by hook"}},
		{"approve", `{"decision":"approve"}`, Verdict{}},
		{"updated input", `{"updatedInput":{"command":"ls"}}`, Verdict{UpdatedInput: json.RawMessage(`{"command":"ls"}`)}},
		{"context", `{"hookSpecificOutput":{"additionalContext":"note"}}`, Verdict{AdditionalContext: []string{"note"}}},
		{"result rewrite", `{"content":[{"type":"text","text":"x"}],"is_error":true}`, Verdict{Content: json.RawMessage(`[{"type":"text","text":"x"}]`), IsError: &yes}},
		{"broken json ignored", `{"decision":`, Verdict{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v Verdict
			applyJSON(&v, tc.stdout)
			if diff := cmp.Diff(tc.want, v); diff != "" {
				t.Error(diff)
			}
		})
	}
}
