package search

import (
	"github.com/agentutils/agentutils/lib/grep/regex"
	"strings"
	"testing"
)

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
		m, err := regex.Compile(regex.MatchOptions{Patterns: []string{c.pat}, IgnoreCase: c.fold, NoUnicode: c.noUni})
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
		_, err := regex.Compile(regex.MatchOptions{Patterns: []string{c.pat}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.pat, err, c.want)
		}
	}
	if _, err := regex.Compile(regex.MatchOptions{Patterns: []string{`é`}, NoUnicode: true}); err == nil ||
		!strings.Contains(err.Error(), "    é\n    ^\nerror: Unicode not allowed here") {
		t.Errorf("--no-unicode é: %v", err)
	}
	if _, err := regex.Compile(regex.MatchOptions{Patterns: []string{`a{1000}`}, RegexSizeLimit: 1000}); err == nil ||
		err.Error() != "Compiled regex exceeds size limit of 1000 bytes." {
		t.Errorf("--regex-size-limit 1000: %v", err)
	}
	// accepted as rg accepts them (rg 13's limit: \w{875}, a{3250000})
	for _, p := range []string{`\w{850}`, `a{3000000}`, `(?:a{1000}){1000}`, `\p{greek}`, `\p{sc=Greek}`, `\p{Uppercase_Letter}`, `\p{EPres}`} {
		if _, err := regex.Compile(regex.MatchOptions{Patterns: []string{p}}); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
