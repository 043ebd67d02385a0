package regex

import (
	"regexp"
	"regexp/syntax"
	"testing"
)

// TestTranslateRg: rg's syntax that Go's parser refuses becomes Go's.
func TestTranslateRg(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`x**`, `(?:x*)*`},
		{`x+*`, `(?:x+)*`},
		{`x*?*`, `(?:x*?)*`},
		{`x*??`, `(?:x*?)?`},
		{`x{2}{3}`, `(?:x{2}){3}`},
		{`a{01,02}`, `a{1,2}`},
		{`a{ 2 }`, `a{2}`},
		{`a{1 , 2}?`, `a{1,2}?`},
		{`(ab)+*`, `(?:(ab)+)*`},
		{`a{1001}`, `(?:(?:a){1000}(?:a))`},
		{`a{2000,}`, `(?:(?:a){1000}(?:a){1000}(?:a)*)`},
		{`a{1,1500}?`, `(?:(?:a)(?:a){0,1000}?(?:a){0,499}?)`},
		{`(?:a{10}){200}`, `(?:(?:(?:a{10})){100}(?:(?:a{10})){100})`},
		{`(?-u)a`, `a`},
		{`(?i-u:a)`, `(?i:a)`},
		{`(?u)a`, `a`},
		{`\p{White_Space}`, `[\x{9}-\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}-\x{2029}\x{202F}\x{205F}\x{3000}]`},
		{`[a\p{ASCII_Hex_Digit}]`, `[a\x{30}-\x{39}\x{41}-\x{46}\x{61}-\x{66}]`},
		{`\P{ASCII_Hex_Digit}`, `[^\x{30}-\x{39}\x{41}-\x{46}\x{61}-\x{66}]`},
	} {
		tr, err := translateRg(c.in, DefaultRegexSizeLimit, rgFlags{}, false)
		if err != nil || tr.expr != c.want {
			t.Errorf("%s: got %s, %v; want %s", c.in, tr.expr, err, c.want)
		}
		if _, err := syntax.Parse(tr.expr, syntax.Perl); err != nil {
			t.Errorf("%s: Go refuses %s: %v", c.in, tr.expr, err)
		}
	}
}

// rgOnlyCount: rg reads a{01} and a{ 1 } as counts, Go as text.
var rgOnlyCount = regexp.MustCompile(`[{,]\s*0[0-9]|\{[^}]*\s[^}]*\}`)

// FuzzTranslateRg: the translator ends on any input, leaves a pattern
// Go's parser reads (and rg reads the same way) as it is, and its Latin-1
// spelling of such a pattern is one Go's parser reads too.
func FuzzTranslateRg(f *testing.F) {
	for _, s := range []string{`x**`, `a{1001}`, `(?-u)\xFF.`, `\p{Emoji_Presentation}`, `[a-z\p{White_Space}]+`, `(?i)k|(?-u:[^a])`, `x{2,1}`, `a(`, `(?P<n>a)\1`, `\Q*\E`} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, p string, fold bool) {
		if len(p) > 200 {
			return
		}
		for _, latin1 := range []bool{false, true} {
			tr, err := translateRg(p, 1<<20, rgFlags{fold: fold}, latin1)
			if err != nil {
				continue
			}
			if _, perr := syntax.Parse(p, syntax.Perl); perr != nil {
				continue
			}
			if !latin1 && tr.expr != p && !rgOnlyCount.MatchString(p) {
				t.Fatalf("%q: Go reads it, yet it became %q", p, tr.expr)
			}
			if _, err := regexp.Compile(tr.expr); err != nil {
				t.Fatalf("%q became %q, which Go refuses: %v", p, tr.expr, err)
			}
		}
	})
}
