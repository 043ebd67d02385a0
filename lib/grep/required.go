package grep

import (
	"bytes"
	"regexp/syntax"
	"strings"
)

// requiredLiteral is the longest string every match of re must contain
// (empty when there is none worth using). Lines without it cannot match,
// so the search looks for it first and runs the regexp only on the lines
// where it occurs.
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return strings.ToLower(string(re.Rune))
		}
		return string(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best, run := "", ""
		for _, s := range re.Sub {
			if s.Op == syntax.OpLiteral {
				run += requiredLiteral(s)
			} else {
				if len(run) > len(best) {
					best = run
				}
				run = ""
				if r := requiredLiteral(s); len(r) > len(best) {
					best = r
				}
			}
		}
		if len(run) > len(best) {
			best = run
		}
		return best
	}
	return ""
}

// asciiLower lowers ASCII letters into dst (same length, so offsets map).
func asciiLower(dst, src []byte) []byte {
	dst = append(dst[:0], src...)
	for i, c := range dst {
		if c >= 'A' && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	return dst
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// findByLines runs the regexp line by line, only on lines that contain the
// required literal (found in hay: buf itself, or its ASCII-lowered copy).
func (m *Matcher) findByLines(buf []byte, limit int) []Span {
	hay := buf
	if m.reqFold {
		hay = asciiLower(nil, buf)
	}
	var out []Span
	off := 0
	for off < len(hay) {
		i := bytes.Index(hay[off:], m.required)
		if i < 0 {
			break
		}
		at := off + i
		start := bytes.LastIndexByte(buf[:at], '\n') + 1
		end := bytes.IndexByte(buf[at:], '\n')
		if end < 0 {
			end = len(buf)
		} else {
			end += at
		}
		for _, loc := range m.re.FindAllIndex(buf[start:end], -1) {
			out = append(out, Span{start + loc[0], start + loc[1]})
			if limit > 0 && len(out) >= limit {
				return out
			}
		}
		off = end + 1
	}
	return out
}
