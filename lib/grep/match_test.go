package grep

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func lines(r FileResult) []string {
	var out []string
	for _, l := range r.Lines {
		k := ":"
		if !l.Match {
			k = "-"
		}
		if l.Gap {
			out = append(out, "--")
		}
		out = append(out, strings.TrimRight(string(l.Text), "\n")+k)
	}
	return out
}

func TestSearchBuffer(t *testing.T) {
	buf := []byte("alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\n")
	tests := []struct {
		name string
		mo   MatchOptions
		so   SearchOptions
		want []string
		n    int
	}{
		{"literal", MatchOptions{Patterns: []string{"eta"}}, SearchOptions{}, []string{"beta:", "zeta:"}, 2},
		{"ignore case", MatchOptions{Patterns: []string{"ALPHA"}, IgnoreCase: true}, SearchOptions{}, []string{"alpha:"}, 1},
		{"smart case lower", MatchOptions{Patterns: []string{"delta"}, SmartCase: true}, SearchOptions{}, []string{"delta:"}, 1},
		{"smart case upper", MatchOptions{Patterns: []string{"Delta"}, SmartCase: true}, SearchOptions{}, nil, 0},
		{"word", MatchOptions{Patterns: []string{"eta"}, Word: true}, SearchOptions{}, nil, 0},
		{"line", MatchOptions{Patterns: []string{"gam+a"}, Line: true}, SearchOptions{}, []string{"gamma:"}, 1},
		{"invert", MatchOptions{Patterns: []string{"a$"}}, SearchOptions{Invert: true}, []string{"epsilon:"}, 1},
		{"max count", MatchOptions{Patterns: []string{"a"}}, SearchOptions{MaxCount: 2}, []string{"alpha:", "beta:"}, 2},
		{"context", MatchOptions{Patterns: []string{"^gamma", "^zeta"}}, SearchOptions{Before: 1, After: 1},
			[]string{"beta-", "gamma:", "delta-", "epsilon-", "zeta:"}, 2},
		{"fixed", MatchOptions{Patterns: []string{"a.b"}, Fixed: true}, SearchOptions{}, nil, 0},
	}
	for _, tt := range tests {
		m, err := Compile(tt.mo)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		r := SearchBuffer(m, "f", buf, tt.so)
		if d := cmp.Diff(tt.want, lines(r)); d != "" || r.MatchedLines != tt.n {
			t.Errorf("%s: matched %d (-want +got):\n%s", tt.name, r.MatchedLines, d)
		}
	}
	bin := SearchBuffer(mustCompile(t, "x"), "b", []byte("x\n\x00x\n"), SearchOptions{})
	if bin.BinaryOffset != 2 || bin.MatchedLines != 1 {
		t.Errorf("binary: %+v", bin)
	}
	if _, err := Compile(MatchOptions{Patterns: []string{"a(b"}}); err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Errorf("bad regex error: %v", err)
	}
}

func mustCompile(t *testing.T, p string) *Matcher {
	m, err := Compile(MatchOptions{Patterns: []string{p}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func FuzzSearchBuffer(f *testing.F) {
	f.Add("a.c", []byte("abc\nxyz\n\x00"), 1, 1)
	f.Fuzz(func(t *testing.T, pat string, buf []byte, b, a int) {
		m, err := Compile(MatchOptions{Patterns: []string{pat}})
		if err != nil {
			return
		}
		SearchBuffer(m, "f", buf, SearchOptions{Before: b % 4, After: a % 4})
	})
}
