package regex

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// smartFold is -S (--smart-case) as rg 13 decides it: the search ignores
// case when the patterns hold a literal and no literal is an uppercase
// letter. Only literals count, in a class too ([A-Z]'s ends) and written
// as an escape (\x41 is 'A'); the letters of \W, \S, \pL, \B, [[:upper:]],
// flags and group names do not.
func smartFold(patterns []string, fixed bool) bool {
	var s caseScan
	for _, p := range patterns {
		if fixed {
			s.text(p)
		} else {
			s.pattern(p)
		}
	}
	return s.literal && !s.upper
}

// caseScan notes the literals of patterns (smartFold).
type caseScan struct{ literal, upper bool }

func (s *caseScan) lit(r rune) {
	s.literal = true
	s.upper = s.upper || unicode.IsUpper(r)
}

func (s *caseScan) text(p string) {
	for _, r := range p {
		s.lit(r)
	}
}

// pattern scans one regex: escapes, classes, groups' flags and names,
// repetition counts, literals.
func (s *caseScan) pattern(p string) {
	for i := 0; i < len(p); {
		switch {
		case p[i] == '\\':
			i = s.escape(p, i)
		case p[i] == '[':
			i = s.class(p, i+1)
		case strings.HasPrefix(p[i:], "(?"):
			i = skipGroupHead(p, i+2)
		case p[i] == '{' && isCount(p[i:]):
			i += strings.IndexByte(p[i:], '}') + 1
		default:
			r, n := utf8.DecodeRuneInString(p[i:])
			if !strings.ContainsRune("()|*+?.^$", r) {
				s.lit(r)
			}
			i += n
		}
	}
}

// escape scans the escape at p[i] ('\'): a class, an assertion, or a
// literal (hex or a character); it returns where the escape ends.
func (s *caseScan) escape(p string, i int) int {
	if i+1 >= len(p) {
		return len(p)
	}
	c := p[i+1]
	switch {
	case c == 'p' || c == 'P':
		if i+2 < len(p) && p[i+2] == '{' {
			if j := strings.IndexByte(p[i:], '}'); j > 0 {
				return i + j + 1
			}
			return len(p)
		}
		_, n := utf8.DecodeRuneInString(p[min(i+2, len(p)):])
		return i + 2 + n
	case strings.IndexByte("dDwWsSbBAzZ", c) >= 0:
		return i + 2
	case c == 'x':
		return s.hex(p, i+2)
	}
	r, n := utf8.DecodeRuneInString(p[i+1:])
	s.lit(r)
	return i + 1 + n
}

// hex scans \xHH or \x{H...} from p[i] (after "\x").
func (s *caseScan) hex(p string, i int) int {
	end, digits := i+2, p[i:min(i+2, len(p))]
	if i < len(p) && p[i] == '{' {
		j := strings.IndexByte(p[i:], '}')
		if j < 0 {
			return len(p)
		}
		end, digits = i+j+1, p[i+1:i+j]
	}
	if v, err := strconv.ParseUint(digits, 16, 32); err == nil {
		s.lit(rune(v))
	}
	return min(end, len(p))
}

// class scans a bracketed class from p[i] (after '['): its literals and
// ranges' ends count, [:name:] does not; it returns where the class ends.
func (s *caseScan) class(p string, i int) int {
	if i < len(p) && p[i] == '^' {
		i++
	}
	for first := true; i < len(p); first = false {
		switch {
		case p[i] == ']' && !first:
			return i + 1
		case strings.HasPrefix(p[i:], "[:"):
			if j := strings.Index(p[i:], ":]"); j > 0 {
				i += j + 2
				continue
			}
			s.lit('[')
			i++
		case p[i] == '[':
			i = s.class(p, i+1) // (a nested class)
		case p[i] == '\\':
			i = s.escape(p, i)
		default:
			r, n := utf8.DecodeRuneInString(p[i:])
			if r != '-' && r != '&' && r != '~' {
				s.lit(r)
			}
			i += n
		}
	}
	return i
}

// skipGroupHead skips a group's flags or name from p[i] (after "(?"):
// "i)", "i:", "P<name>", "<name>".
func skipGroupHead(p string, i int) int {
	if strings.HasPrefix(p[i:], "P<") || strings.HasPrefix(p[i:], "<") {
		if j := strings.IndexByte(p[i:], '>'); j >= 0 {
			return i + j + 1
		}
		return len(p)
	}
	for i < len(p) && p[i] != ')' && p[i] != ':' {
		i++
	}
	return min(i+1, len(p))
}

// isCount: p starts a counted repetition ({2}, {2,}, {2,5}).
func isCount(p string) bool {
	j := strings.IndexByte(p, '}')
	if j < 2 {
		return false
	}
	for _, c := range p[1:j] {
		if (c < '0' || c > '9') && c != ',' {
			return false
		}
	}
	return true
}
