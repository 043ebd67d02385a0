package grep

import (
	"regexp"
	"regexp/syntax"
	"strings"
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

// TestRgSyntaxMatches: the translated patterns match as rg's do (the
// expected matches were taken from rg 13).
func TestRgSyntaxMatches(t *testing.T) {
	text := "a\xffb\nplain\n\xe9t\xc3\xa9\nK k \xe2\x84\xaa\n\xf0\x9f\x98\x80 smile \xe2\x98\x95\n" + strings.Repeat("a", 1001) + "\n"
	for _, c := range []struct {
		pat         string
		fold, noUni bool
		want        string // the -o matches, one per line
	}{
		{pat: `(?-u)\xFF`, want: "\xff"},
		{pat: `(?-u)a\xffb`, want: "a\xffb"},
		{pat: `(?-u)\W`, want: "\xff|\xe9|\xc3|\xa9| | |\xe2|\x84|\xaa|\xf0|\x9f|\x98|\x80| | |\xe2|\x98|\x95"},
		{pat: `(?-u)[^\x00-\x7F]+`, want: "\xff|\xe9|\xc3\xa9|\xe2\x84\xaa|\xf0\x9f\x98\x80|\xe2\x98\x95"},
		{pat: `(?-u:\xE9)|é`, want: "\xe9|\xc3\xa9"},
		{pat: `(?-u:\xFF)|k`, fold: true, want: "\xff|K|k|\xe2\x84\xaa"},
		{pat: `(?i-u)[\xC3]`, want: "\xc3"},
		{pat: `(?-u:\xFF)|\w+`, want: "a|\xff|b|plain|t\xc3\xa9|K|k|\xe2\x84\xaa|smile|" + strings.Repeat("a", 1001)},
		{pat: `\p{Emoji_Presentation}`, want: "\xf0\x9f\x98\x80|\xe2\x98\x95"},
		{pat: `\p{Extended_Pictographic}`, want: "\xf0\x9f\x98\x80|\xe2\x98\x95"},
		{pat: `\p{Emoji}+`, want: "\xf0\x9f\x98\x80|\xe2\x98\x95"},
		{pat: `a{1001}`, want: strings.Repeat("a", 1001)},
		{pat: `^a{1000,}$`, want: strings.Repeat("a", 1001)},
		{pat: `plai**n`, want: "plain"},
		{pat: `\xE9|\W`, noUni: true, want: "\xff|\xe9|\xc3|\xa9| | |\xe2|\x84|\xaa|\xf0|\x9f|\x98|\x80| | |\xe2|\x98|\x95"},
	} {
		m, err := Compile(MatchOptions{Patterns: []string{c.pat}, IgnoreCase: c.fold, NoUnicode: c.noUni})
		if err != nil {
			t.Fatalf("%s: %v", c.pat, err)
		}
		buf := []byte(text)
		var got []string
		for _, s := range m.Find(buf, 0) {
			got = append(got, string(buf[s.Start:s.End]))
		}
		if g := strings.Join(got, "|"); g != c.want {
			t.Errorf("%s: Find %q, want %q", c.pat, g, c.want)
		}
		r := SearchBuffer(m, "f", buf, SearchOptions{Text: true})
		got = got[:0]
		for _, l := range r.Lines {
			if string(buf[l.Offset:int(l.Offset)+len(l.Text)]) != string(l.Text) {
				t.Fatalf("%s: line %d text not at its offset", c.pat, l.Number)
			}
			for _, s := range l.Subs {
				got = append(got, string(l.Text[s.Start:s.End]))
			}
		}
		if g := strings.Join(got, "|"); g != c.want {
			t.Errorf("%s: SearchBuffer %q, want %q", c.pat, g, c.want)
		}
	}
}

// TestRgSyntaxErrors: what rg refuses, in its words.
func TestRgSyntaxErrors(t *testing.T) {
	for _, c := range []struct{ pat, want string }{
		{`(?-u)é`, "    (?-u)é\n         ^\nerror: Unicode not allowed here"},
		{`(?-u)\x{FF}`, "         ^^^^^^\nerror: Unicode not allowed here"},
		{`(?-u)\pL`, "         ^^^\nerror: Unicode not allowed here"},
		{`(?-u)[é]`, "          ^\nerror: Unicode not allowed here"},
		{`(?-u)\xFF|é`, "              ^\nerror: Unicode not allowed here"},
		{`\p{Foo}`, "    ^^^^^^^\nerror: Unicode property not found"},
		{`[a\p{Foo}]`, "     ^^^^^^^\nerror: Unicode property not found"},
		{`\p{XID_Start}`, "error: Unicode property XID_Start is not supported by agent-grep"},
		{`a{4294967296}`, "      ^^^^^^^^^^\nerror: decimal literal invalid"},
		{`a{4000000}`, "Compiled regex exceeds size limit of 104857600 bytes."},
		{`\w{900}`, "Compiled regex exceeds size limit of 104857600 bytes."},
		{`(?:a{1000}){1000}{1000}`, "Compiled regex exceeds size limit"},
		{`x{2,1}`, "invalid repetition count range"},
		// '{' always opens a count in rg (Go takes these as text)
		{`{a}`, "    {a}\n    ^\nerror: repetition operator missing expression"},
		{`a{,3}`, "    a{,3}\n      ^\nerror: repetition quantifier expects a valid decimal"},
		{`x{}`, "      ^\nerror: repetition quantifier expects a valid decimal"},
		{`x{1,2`, "    x{1,2\n     ^^^^\nerror: unclosed counted repetition"},
		{`a{`, "     ^\nerror: unclosed counted repetition"},
		{`a{1a}`, "unclosed counted repetition"},
		{`a(`, "unclosed group"},
	} {
		_, err := Compile(MatchOptions{Patterns: []string{c.pat}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.pat, err, c.want)
		}
	}
	if _, err := Compile(MatchOptions{Patterns: []string{`é`}, NoUnicode: true}); err == nil ||
		!strings.Contains(err.Error(), "    é\n    ^\nerror: Unicode not allowed here") {
		t.Errorf("--no-unicode é: %v", err)
	}
	if _, err := Compile(MatchOptions{Patterns: []string{`a{1000}`}, RegexSizeLimit: 1000}); err == nil ||
		err.Error() != "Compiled regex exceeds size limit of 1000 bytes." {
		t.Errorf("--regex-size-limit 1000: %v", err)
	}
	// accepted as rg accepts them (rg 13's limit: \w{875}, a{3250000})
	for _, p := range []string{`\w{850}`, `a{3000000}`, `(?:a{1000}){1000}`, `\p{greek}`, `\p{sc=Greek}`, `\p{Uppercase_Letter}`, `\p{EPres}`} {
		if _, err := Compile(MatchOptions{Patterns: []string{p}}); err != nil {
			t.Errorf("%s: %v", p, err)
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
