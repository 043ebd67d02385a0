package jsonw

import (
	"strings"
	"testing"
)

// PlainPrefix agrees with a byte-at-a-time scan at every length and offset.
func FuzzPlainPrefix(f *testing.F) {
	for _, s := range []string{"", "abc", "hello, world: a plain run", "0123456789\"abc", "a<b>&c\\d", "héllo", "tab\there", strings.Repeat("x", 40) + "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{false, true} {
			want := 0
			for want < len(s) {
				c := s[want]
				if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || html && (c == '<' || c == '>' || c == '&') {
					break
				}
				want++
			}
			if got := plainPrefixString(s, html); got != want {
				t.Fatalf("plainPrefix(%q, %v) = %d, want %d", s, html, got, want)
			}
		}
	})
}
