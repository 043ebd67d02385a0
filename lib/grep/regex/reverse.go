package regex

import (
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// Reverse suffix (one of ripgrep's regex strategies): when every match
// is P·L with L the prefilter's literal at its end (`[A-Z][a-z]+ing`,
// `\d+px`), an occurrence of L is a match's end exactly when P matches
// the text just before it. A DFA of P reversed, anchored where L
// starts, reads that text backwards and stops as soon as P has matched
// or cannot: a few bytes ("string" in `s := string(b)` is rejected after
// "rts "), where the forward DFA read the line from its start. The text
// it reads is ASCII (a non-ASCII byte leaves the line to the forward
// path), where ASCII \w \d \s and rg's Unicode ones agree: a pattern with
// a Unicode twin (unicode.go) uses it too.

// reverseSuffix is the DFA program of \A·reverse(P) when expr (the
// simplified pattern) is P·L with l its literal L, P not empty and with
// no assertion but ^ and \A (nil otherwise: \b, $ and \z look at text
// the reversed scan does not see).
func reverseSuffix(re *syntax.Regexp, l lit, limit int64) *dfaProg {
	if re.Op != syntax.OpConcat {
		return nil
	}
	k := len(re.Sub)
	var tail []rune
	fold := false
	for k > 0 && re.Sub[k-1].Op == syntax.OpLiteral {
		s := re.Sub[k-1]
		f := s.Flags&syntax.FoldCase != 0
		if len(tail) > 0 && f != fold {
			break
		}
		tail, fold = append(slices.Clone(s.Rune), tail...), f
		k--
	}
	if k == 0 || len(tail) == 0 || fold != l.fold {
		return nil
	}
	want := []byte(string(tail))
	if fold {
		for _, r := range tail {
			if r >= utf8.RuneSelf {
				return nil
			}
		}
		want = []byte(lowerASCII(string(tail)))
	}
	if string(want) != string(l.s) {
		return nil
	}
	p := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: re.Sub[:k]}
	if !assertionFree(p) {
		return nil
	}
	rev := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags,
		Sub: []*syntax.Regexp{{Op: syntax.OpBeginText, Flags: re.Flags}, reverseRegexp(p)}}
	prog, err := syntax.Compile(rev)
	if err != nil {
		return nil
	}
	d := &dfaProg{prog: prog, asciiOK: true, states: statesFor(limit)}
	d.anchored = prog.StartCond()&(syntax.EmptyBeginLine|syntax.EmptyBeginText) != 0
	return d
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// assertionFree reports whether re has no empty-width assertion but ^
// and \A.
func assertionFree(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEndLine, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return false
	}
	for _, s := range re.Sub {
		if !assertionFree(s) {
			return false
		}
	}
	return true
}

// reverseRegexp matches the reversed texts of re's matches (for whether
// there is one, not which: greediness is kept but means nothing here).
func reverseRegexp(re *syntax.Regexp) *syntax.Regexp {
	r := *re
	switch re.Op {
	case syntax.OpLiteral:
		r.Rune = slices.Clone(re.Rune)
		slices.Reverse(r.Rune)
	case syntax.OpBeginLine:
		r.Op = syntax.OpEndLine
	case syntax.OpBeginText:
		r.Op = syntax.OpEndText
	}
	if len(re.Sub) > 0 {
		r.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, s := range re.Sub {
			r.Sub[i] = reverseRegexp(s)
		}
		if re.Op == syntax.OpConcat {
			slices.Reverse(r.Sub)
		}
	}
	return &r
}

// scanBack runs the DFA over the bytes of buf before end, last first,
// back to the line's start (a '\n' or lo): whether that reversed text
// holds a match (sure false: a non-ASCII byte, or the cache filled).
// nl is the position of the '\n' it stopped at (-1: it did not reach
// the line's start, or lo was the start).
func (d *lineDFA) scanBack(buf []byte, lo, end int) (match, sure bool, nl int) {
	s := d.start
	for i := end - 1; i >= lo; i-- {
		if s.dead {
			return false, true, -1
		}
		c := buf[i]
		if c == '\n' {
			return d.atEOL(s), true, i
		}
		if c >= utf8.RuneSelf {
			return false, false, -1
		}
		next := s.ascii[c]
		if next == nil {
			if next = d.step(s, rune(c)); next == nil {
				d.reset()
				return false, false, -1
			}
			s.ascii[c] = next
		}
		if next == matchState {
			return true, true, -1
		}
		s = next
	}
	return !s.dead && d.atEOL(s), true, -1
}
