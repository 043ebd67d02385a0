package editdist

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"sonet", "sonnet", 1}, {"flaw", "lawn", 2}, {"héllo", "hello", 1}, {"same", "same", 0},
	} {
		if got := Strings(tt.a, tt.b); got != tt.want {
			t.Errorf("Strings(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Strings(tt.b, tt.a); got != tt.want {
			t.Errorf("not symmetric: Strings(%q, %q) = %d", tt.b, tt.a, got)
		}
	}
}

func TestRowAnywhere(t *testing.T) {
	for _, tt := range []struct {
		p, s string
		want int
	}{
		{"sonet", "claude-sonnet-4-5", 1}, {"opus", "claude-opus-4-6", 0}, {"xyz", "abc", 3},
	} {
		if got := slices.Min(Row([]rune(tt.p), []rune(tt.s), true)); got != tt.want {
			t.Errorf("nearest part of %q in %q: %d, want %d", tt.p, tt.s, got, tt.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	for _, tt := range []struct {
		name  string
		known []string
		want  []string
	}{
		{"githb", []string{"github", "gitlab", "jira", "git"}, []string{"github", "git"}},
		{"colr", []string{"color", "colors", "crlf", "count", "c"}, []string{"color"}},
		{"htm", []string{"h", "html", "help"}, []string{"html"}},
		{"dry", []string{"dry-run", "d"}, []string{"dry-run"}},
		{"zzzz", []string{"color"}, nil},
		{"lst", []string{"list", "ls", "open", "last"}, []string{"list", "ls", "last"}},
		{"x", []string{"y", "xy"}, nil},
		{"OPEN", []string{"open"}, []string{"open"}},
	} {
		if got := Suggest(tt.name, tt.known); !slices.Equal(got, tt.want) {
			t.Errorf("Suggest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
