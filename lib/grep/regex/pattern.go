package regex

import "strings"

// rewritePattern calls f on each token of a regular expression p and
// writes what f returns in its place. A token is an escape (`\x`), a
// class's opening (`[` or `[^`, with a leading `]` that is a literal), a
// POSIX class inside a class (`[:alpha:]`), a class's closing `]`, or one
// other byte; inClass says whether the token is inside a class.
func rewritePattern(p string, f func(tok string, inClass bool) string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); {
		n := 1
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p):
			n = 2
		case !inClass && c == '[':
			if i+n < len(p) && p[i+n] == '^' {
				n++
			}
			if i+n < len(p) && p[i+n] == ']' {
				n++
			}
		case inClass && c == '[' && i+1 < len(p) && p[i+1] == ':':
			if j := strings.Index(p[i:], ":]"); j > 0 {
				n = j + 2
			}
		}
		tok := p[i : i+n]
		b.WriteString(f(tok, inClass))
		switch {
		case !inClass && tok[0] == '[':
			inClass = true
		case inClass && tok == "]":
			inClass = false
		}
		i += n
	}
	return b.String()
}

// CRLFPattern is rg 13's --crlf rewrite of a pattern: each '$' anchor
// becomes `(?:\r??$)`, so that it matches before "\r\n" too.
func CRLFPattern(p string) string {
	return rewritePattern(p, func(tok string, inClass bool) string {
		if tok == "$" && !inClass {
			return `(?:\r??$)`
		}
		return tok
	})
}
