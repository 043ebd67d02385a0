package commit

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The hand-written matchers must agree with the patterns they replace.

func FuzzWords(f *testing.F) {
	re := regexp.MustCompile(wordPattern)
	for _, s := range []string{"Add HTTPServer support", "fooBar baz_qux", "ÉtéÀ 42abc", "XMLHttpRequest", "a\xffb", "ÀB Cé", "ǅemal"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d := cmp.Diff(re.FindAllString(s, -1), words(s)); d != "" {
			t.Fatalf("words(%q):\n%s", s, d)
		}
	})
}

func FuzzMatchHeader(f *testing.F) {
	re := regexp.MustCompile(headerPattern)
	for _, s := range []string{"feat: x", "feat(api): x", "feat(a)(b)!: x): y", "fix!: x", "(x): y", ": y", "feat(a): b): c", "feat(: x", "a\xff(\xfe): \xfd", "feat!:x", "x\r: y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g := re.FindStringSubmatch(s)
		typ, scope, bang, subject, ok := matchHeader(s)
		if (g != nil) != ok {
			t.Fatalf("%q: regexp match %v, matchHeader %v", s, g != nil, ok)
		}
		if ok && (g[1] != typ || g[2] != scope || (g[3] == "!") != bang || g[4] != subject) {
			t.Fatalf("%q: regexp %q, matchHeader %q %q %v %q", s, g, typ, scope, bang, subject)
		}
	})
}
