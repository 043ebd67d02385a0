package regex

import (
	"strings"
	"testing"
	"unicode"
)

// TestSmartFold: -S as rg 13 decides it (each row checked against rg 13
// by hand: `rg -S -c PATTERN` over lines of both cases).
func TestSmartFold(t *testing.T) {
	for _, c := range []struct {
		pattern string
		fold    bool
	}{
		{"foo", true}, {"Foo", false}, {`foo\W`, true}, {`\Sbc`, true}, {`\Bbc`, true}, {`\pL+`, false},
		{`\p{Lu}`, false}, {`\W`, false}, {"", false}, {`[a-z]+`, true}, {`[A-Z]+`, false}, {`[[:upper:]]`, false},
		{`[a-c[:upper:]]`, true}, {`\x41`, false}, {`a\x42`, false}, {`\x{42}c`, false}, {`(?P<Name>abc)`, true},
		{`(?i)abc`, true}, {`b{1,2}c`, true}, {`a.c`, true}, {"É", false}, {"é", true}, {`\.`, true},
		// truncated input: no panic
		{`\`, false}, {`\x`, false}, {`\x{`, false}, {`[`, false}, {`(?`, false}, {`\p{`, false}, {`[[:`, true}, {`(?P<`, false},
	} {
		if got := smartFold([]string{c.pattern}, false); got != c.fold {
			t.Errorf("smartFold(%q) = %v, want %v", c.pattern, got, c.fold)
		}
	}
	if smartFold([]string{`a\W`, "B"}, false) || smartFold([]string{`\W`}, true) || !smartFold([]string{"a.b"}, true) {
		t.Error("smartFold over several patterns or -F")
	}
}

// FuzzSmartFold: any pattern scans without a panic; with -F every
// character is a literal.
func FuzzSmartFold(f *testing.F) {
	for _, s := range []string{`foo\W`, `[a-c[:upper:]]`, `\x{42}`, `(?P<N>a)`, `\p{Lu}`, `b{1,2}`, `[`, `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		smartFold([]string{p}, false)
		want := p != "" && !strings.ContainsFunc(p, unicode.IsUpper)
		if got := smartFold([]string{p}, true); got != want {
			t.Errorf("-F %q: fold %v, want %v", p, got, want)
		}
	})
}
