package grep

import "strings"

// Rust's regex (rg) reads \w, \d and \s as Unicode classes; Go's regexp
// reads them as ASCII. unicodeClasses rewrites them to the Unicode
// classes Rust uses. The matcher keeps a second, Unicode-class matcher
// and uses it on buffers that are not pure ASCII (where both agree, the
// ASCII one is faster). Go's \b stays ASCII-only: RE2 has no way to say
// Unicode word boundary.
const (
	uniWord  = `\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}`
	uniSpace = `\t\n\v\f\r \x{85}\p{Z}`
)

// unicodeClasses returns the rewritten pattern, and whether it differs.
func unicodeClasses(p string) (string, bool) {
	if !strings.Contains(p, `\`) {
		return p, false
	}
	changed := false
	out := rewritePattern(p, func(tok string, inClass bool) string {
		if len(tok) != 2 || tok[0] != '\\' {
			return tok
		}
		rep := uniClass(tok[1], inClass)
		if rep == "" {
			return tok
		}
		changed = true
		return rep
	})
	return out, changed
}

// uniClass is the Unicode class for \w, \d, \s and their negations (""
// for any other escape); in a class, only the ones a class can hold.
func uniClass(e byte, inClass bool) string {
	if inClass {
		switch e {
		case 'w':
			return uniWord
		case 'd':
			return `\p{Nd}`
		case 'D':
			return `\P{Nd}`
		case 's':
			return uniSpace
		}
		return ""
	}
	switch e {
	case 'w':
		return "[" + uniWord + "]"
	case 'W':
		return "[^" + uniWord + "]"
	case 'd':
		return `\p{Nd}`
	case 'D':
		return `\P{Nd}`
	case 's':
		return "[" + uniSpace + "]"
	case 'S':
		return "[^" + uniSpace + "]"
	}
	return ""
}

func hasNonASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}
