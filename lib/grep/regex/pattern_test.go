package regex

import "testing"

func TestCRLFPattern(t *testing.T) {
	for in, want := range map[string]string{
		`a$`:             `a(?:\r??$)`,
		`\$x$|y$`:        `\$x(?:\r??$)|y(?:\r??$)`,
		`[$]$`:           `[$](?:\r??$)`,
		`[]$]$`:          `[]$](?:\r??$)`,
		`[^]$]`:          `[^]$]`,
		`[[:alpha:]$]x$`: `[[:alpha:]$]x(?:\r??$)`,
		`(?m:^a$)`:       `(?m:^a(?:\r??$))`,
		`no anchor`:      `no anchor`,
		`trailing\`:      `trailing\`,
	} {
		if got := CRLFPattern(in); got != want {
			t.Errorf("CRLFPattern(%q) = %q, want %q", in, got, want)
		}
	}
}
