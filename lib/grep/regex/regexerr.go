package regex

import (
	"fmt"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

// rgRegexError words a pattern error as rg does: the pattern, a caret
// line under the offending part, and the reason in Rust regex's words.
//
//	regex parse error:
//	    a(
//	     ^
//	error: unclosed group
func rgRegexError(p string, se *syntax.Error) error {
	pos, n := -1, 1
	msg := string(se.Code)
	note := ""
	at := func(expr string) {
		if i := strings.Index(p, expr); i >= 0 && expr != "" {
			pos, n = i, utf8.RuneCountInString(expr)
		}
	}
	switch se.Code {
	case syntax.ErrMissingParen:
		msg, pos = "unclosed group", unmatchedParen(p, true)
	case syntax.ErrUnexpectedParen:
		msg, pos = "unopened group", unmatchedParen(p, false)
	case syntax.ErrMissingBracket:
		msg = "unclosed character class"
		if i := strings.LastIndex(p, se.Expr); i >= 0 {
			pos = i
		}
	case syntax.ErrInvalidRepeatSize:
		at(se.Expr)
		msg = "invalid repetition count range, the start must be <= the end"
		if lo, hi, ok := repeatRange(se.Expr); ok && lo <= hi {
			msg = "repetition count above 1000 (the limit of agent-grep's RE2 engine)"
		}
	case syntax.ErrInvalidEscape:
		at(se.Expr)
		msg = "unrecognized escape sequence"
		if len(se.Expr) == 2 && se.Expr[1] >= '0' && se.Expr[1] <= '9' {
			msg, note = "backreferences are not supported", noRE2
		}
	case syntax.ErrInvalidCharRange:
		at(se.Expr)
		msg = "invalid character class range, the start must be <= the end"
	case syntax.ErrMissingRepeatArgument:
		at(se.Expr)
		n = 1
		msg = "repetition operator missing expression"
	case syntax.ErrInvalidPerlOp:
		at(se.Expr)
		for _, la := range []string{"(?=", "(?!", "(?<=", "(?<!"} {
			if strings.HasPrefix(se.Expr, la) {
				msg, note = "look-around, including look-ahead and look-behind, is not supported", noRE2
			}
		}
	case syntax.ErrTrailingBackslash:
		pos, msg = len(p)-1, "incomplete escape sequence, reached end of pattern prematurely"
	default:
		at(se.Expr)
	}
	return rgErrorAt(p, pos, n, msg, note)
}

// rgErrorAt is rg's regex error with n carets under p from byte pos (-1:
// no caret line).
func rgErrorAt(p string, pos, n int, msg, note string) error {
	if pos < 0 || strings.Contains(p, "\n") {
		return fmt.Errorf("regex parse error:\n    %s\nerror: %s%s", p, msg, note)
	}
	col := utf8.RuneCountInString(p[:pos])
	return fmt.Errorf("regex parse error:\n    %s\n    %s%s\nerror: %s%s", p, strings.Repeat(" ", col), strings.Repeat("^", n), msg, note)
}

const noRE2 = "\n\nagent-grep's regex engine is RE2: it has no backreferences or look-around."

// unmatchedParen is the position of the last unclosed '(' (open) or the
// first unopened ')'.
func unmatchedParen(p string, open bool) int {
	var stack []int
	inClass := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == '^' {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
		case c == '(':
			stack = append(stack, i)
		case c == ')':
			if len(stack) == 0 {
				if !open {
					return i
				}
				continue
			}
			stack = stack[:len(stack)-1]
		}
	}
	if open && len(stack) > 0 {
		return stack[len(stack)-1]
	}
	return -1
}

func repeatRange(expr string) (lo, hi int, ok bool) {
	i := strings.IndexByte(expr, '{')
	j := strings.IndexByte(expr, '}')
	if i < 0 || j < i {
		return 0, 0, false
	}
	a, b, comma := strings.Cut(expr[i+1:j], ",")
	lo, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, false
	}
	if !comma {
		return lo, lo, true
	}
	if b == "" {
		return lo, lo, true
	}
	hi, err = strconv.Atoi(b)
	return lo, hi, err == nil
}
