package regex

import (
	"encoding/binary"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rust's regex (rg) reads \w, \d and \s as Unicode classes; Go's regexp
// reads them as ASCII. unicodeClasses rewrites them to the Unicode
// classes Rust uses. The matcher keeps a second, Unicode-class matcher
// and uses it on buffers that are not pure ASCII (where both agree, the
// ASCII one is faster). Its \b and \B are Unicode's too (boundary.go).
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

func HasNonASCII(b []byte) bool { return IndexNonASCII(b) >= 0 }

// needsNonASCII reports whether every match of re holds a character
// outside ASCII (each such character is bytes >= 0x80 in UTF-8, and so is
// an invalid byte, which matches only as U+FFFD).
func needsNonASCII(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r < utf8.RuneSelf {
				continue
			}
			if re.Flags&syntax.FoldCase == 0 {
				return true
			}
			ascii := false // (K folds to the Kelvin sign, s to the long s)
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				ascii = ascii || f < utf8.RuneSelf
			}
			if !ascii {
				return true
			}
		}
		return false
	case syntax.OpCharClass:
		for i := 0; i < len(re.Rune); i += 2 {
			if re.Rune[i] < utf8.RuneSelf {
				return false
			}
		}
		return len(re.Rune) > 0
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if needsNonASCII(sub) {
				return true
			}
		}
		return false
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !needsNonASCII(sub) {
				return false
			}
		}
		return len(re.Sub) > 0
	case syntax.OpCapture, syntax.OpPlus:
		return needsNonASCII(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min >= 1 && needsNonASCII(re.Sub[0])
	}
	return false
}

// indexNonASCII is the index of the first byte >= 0x80 of p, or -1; eight
// bytes a step.
func IndexNonASCII(p []byte) int {
	i := 0
	for ; i+32 <= len(p); i += 32 {
		a := binary.LittleEndian.Uint64(p[i:])
		b := binary.LittleEndian.Uint64(p[i+8:])
		c := binary.LittleEndian.Uint64(p[i+16:])
		d := binary.LittleEndian.Uint64(p[i+24:])
		if (a|b|c|d)&0x8080808080808080 != 0 {
			break
		}
	}
	for ; i < len(p); i++ {
		if p[i] >= 0x80 {
			return i
		}
	}
	return -1
}
