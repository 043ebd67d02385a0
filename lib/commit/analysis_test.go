package commit

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseAnalysisText: a model that answers with the message itself
// instead of the JSON object gets it read as a message; prose is not.
func TestParseAnalysisText(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       Analysis
		err        bool
	}{
		{"header only", "fix(parser): accept empty input", Analysis{Type: "fix", Scope: "parser", Summary: "accept empty input"}, false},
		{"fenced, bullets, wrapped", "```\nfeat(api): add a --json flag\n\n- Print one object per line\n  for scripts.\n- Document it.\n```\n",
			Analysis{Type: "feat", Scope: "api", Summary: "add a --json flag", Details: []string{"Print one object per line for scripts.", "Document it."}}, false},
		{"breaking footer", "refactor!: drop v1\n\nThe old API goes.\n\nBREAKING CHANGE: v1 clients\nmust move.",
			Analysis{Type: "refactor", Summary: "drop v1", Details: []string{"The old API goes."}, Breaking: "v1 clients must move."}, false},
		{"bang without footer", "feat!: new wire format", Analysis{Type: "feat", Summary: "new wire format", Breaking: "new wire format"}, false},
		{"prose first", "Here it is:\n\nfix: a thing\n\n- why.", Analysis{Type: "fix", Summary: "a thing", Details: []string{"why."}}, false},
		{"prose", "Here is a commit message for your change.", Analysis{}, true},
		{"no type", ": nothing", Analysis{}, true},
	} {
		got, err := ParseAnalysis(c.text)
		if (err != nil) != c.err {
			t.Errorf("%s: err %v", c.name, err)
			continue
		}
		if d := cmp.Diff(c.want, got); d != "" && !c.err {
			t.Errorf("%s (-want +got)\n%s", c.name, d)
		}
	}
	// The error says what would have been read: a model that answers
	// prose is told both forms.
	if _, err := ParseAnalysis("Hello from the fake model."); err == nil || !strings.Contains(err.Error(), "conventional commit message") {
		t.Errorf("prose: %v", err)
	}
}
