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
	var b strings.Builder
	changed := false
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' && i+1 < len(p) {
			e := p[i+1]
			rep := ""
			if inClass {
				switch e {
				case 'w':
					rep = uniWord
				case 'd':
					rep = `\p{Nd}`
				case 'D':
					rep = `\P{Nd}`
				case 's':
					rep = uniSpace
				}
			} else {
				switch e {
				case 'w':
					rep = "[" + uniWord + "]"
				case 'W':
					rep = "[^" + uniWord + "]"
				case 'd':
					rep = `\p{Nd}`
				case 'D':
					rep = `\P{Nd}`
				case 's':
					rep = "[" + uniSpace + "]"
				case 'S':
					rep = "[^" + uniSpace + "]"
				}
			}
			if rep != "" {
				b.WriteString(rep)
				changed = true
			} else {
				b.WriteByte(c)
				b.WriteByte(e)
			}
			i++
			continue
		}
		switch {
		case !inClass && c == '[':
			inClass = true
			b.WriteByte(c)
			// a leading ']' (after an optional '^') is a literal
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
			continue
		case inClass && c == '[' && i+1 < len(p) && p[i+1] == ':':
			if j := strings.Index(p[i:], ":]"); j > 0 {
				b.WriteString(p[i : i+j+2])
				i += j + 1
				continue
			}
		case inClass && c == ']':
			inClass = false
		}
		b.WriteByte(c)
	}
	return b.String(), changed
}

func hasNonASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}
