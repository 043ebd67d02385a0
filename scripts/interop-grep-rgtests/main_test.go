package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCase(t *testing.T) {
	for _, tc := range []struct {
		line string
		want rgCase
		ok   bool
	}{
		{"misc::single_file | Sherlock sherlock\n", rgCase{"misc::single_file", []string{"Sherlock", "sherlock"}}, true},
		{"a::b | -e Sherlock@SP@Holmes  -g @EMPTY@ x", rgCase{"a::b", []string{"-e", "Sherlock Holmes", "-g", "", "x"}}, true},
		{"a::c | ", rgCase{"a::c", []string{}}, true},
		{"# a comment | not a case\n", rgCase{}, false},
		{"\n", rgCase{}, false},
		{"no separator", rgCase{}, false},
	} {
		got, ok := parseCase(tc.line)
		if ok != tc.ok {
			t.Errorf("parseCase(%q): ok %v, want %v", tc.line, ok, tc.ok)
		}
		if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(rgCase{})); d != "" {
			t.Errorf("parseCase(%q) (-want +got):\n%s", tc.line, d)
		}
	}
}
