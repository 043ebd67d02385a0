package regex

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// -w with a literal is checked without the regexp; it must find what the
// regexp path (rg's (?:^|\W)(lit)(?:\W|$)) finds.
func FuzzWordLiteral(f *testing.F) {
	f.Add(0, false, []byte("Reader aReader Reader_ Reader.Reader\nReader"))
	f.Add(1, true, []byte("ab ab-ab AB_ab é ab ab\xff ab"))
	f.Add(2, false, []byte("aaa a a\ta"))
	pats := []string{"Reader", "ab", "a", "x9_y", "a-a"}
	f.Fuzz(func(t *testing.T, which int, fold bool, buf []byte) {
		mo := MatchOptions{Patterns: []string{pats[uint(which)%uint(len(pats))]}, Word: true, IgnoreCase: fold}
		m, err := Compile(mo)
		if err != nil {
			t.Fatal(err)
		}
		slow := *m
		slow.wordLit = false
		if d := cmp.Diff(slow.Find(buf, 0), m.Find(buf, 0)); d != "" {
			t.Errorf("%v fold=%v on %q (-regexp +literal):\n%s", mo.Patterns, fold, buf, d)
		}
	})
}

// TestWordExprWithoutNewline: -w's class written without the newline
// (wordExpr, not multiline) matches what the class with it matches once
// lineOnly has taken the newline out.
func TestWordExprWithoutNewline(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	alpha := []rune("ab _-é\u0300\u200c1.\t")
	for _, pat := range []string{"a", "ab", `\w+`, "a|b", `é\d*`, "x?"} {
		old, err := lineOnly("(?m)" + wordExpr(pat, true))
		if err != nil {
			t.Fatal(err)
		}
		want := regexp.MustCompile(old)
		got := regexp.MustCompile("(?m)" + wordExpr(pat, false))
		for i := 0; i < 2000; i++ {
			var b strings.Builder
			for k := r.IntN(12); k > 0; k-- {
				b.WriteRune(alpha[r.IntN(len(alpha))])
			}
			s := b.String()
			if w, g := want.FindAllStringSubmatchIndex(s, -1), got.FindAllStringSubmatchIndex(s, -1); !reflect.DeepEqual(w, g) {
				t.Fatalf("%q on %q: %v, want %v", pat, s, g, w)
			}
		}
	}
}
