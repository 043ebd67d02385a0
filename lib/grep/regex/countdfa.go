package regex

import (
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// A count of a line's matches (--count-matches) needs no match's start:
// where the leftmost-first match ends is where the next search begins,
// when no match is empty. The line DFA's program then finds the ends
// itself, RE2's way: a state is its threads in priority order (the order
// regexp's NFA keeps them in), a thread reaching the match cuts those
// after it, and no thread starts once a match has ended. Each character
// is one cached transition, where uniBoundary's NFA (the regexp of a
// pattern with Unicode \b on non-ASCII text) stepped every thread: the
// words of `\b\w+\b` over the bench's 100 MB of mixed scripts took 7.3 s
// of CPU in it (rg 13: 6.5 s).

// cstate is a state of the count DFA.
type cstate struct {
	pcs   []uint32 // the threads waiting to read a character, in priority order
	prev  uint8    // what came before (prevBegin, prevWord, prevOther)
	ended bool     // a match has ended since the search began: no new thread
	hit   bool     // the step into this state ended a match, before its character
	ascii [128]*cstate
	other map[rune]*cstate
	eol   int8 // a match ends at the line's end: 0 unknown, 1 yes, -1 no
}

// countMatches is the number of regexp's successive matches in line (as
// FindAllIndex finds them); ok is false where the DFA cannot tell (a
// pattern that may match empty, invalid UTF-8, text its program leaves to
// a twin, a full cache).
func (d *lineDFA) countMatches(line []byte) (n int, ok bool) {
	if !d.nonEmpty {
		return 0, false
	}
	if d.cfull {
		d.ccache, d.cfull = nil, false
	}
	for pos := 0; pos < len(line); {
		end, ok := d.matchEnd(line, pos)
		if !ok {
			return 0, false
		}
		if end < 0 {
			break
		}
		n++
		pos = end
	}
	return n, true
}

// matchEnd is where the leftmost-first match at or after pos ends (-1:
// none).
func (d *lineDFA) matchEnd(line []byte, pos int) (end int, ok bool) {
	prev := uint8(prevBegin)
	if pos > 0 {
		r, _ := utf8.DecodeLastRune(line[:pos])
		prev = d.class(r)
	}
	s := d.cstate(nil, prev, false, false)
	if s == nil {
		return 0, false
	}
	end = -1
	for i := pos; ; {
		if i == len(line) {
			if d.cEOL(s) {
				end = i
			}
			return end, true
		}
		c := line[i]
		var next *cstate
		w := 1
		if c < utf8.RuneSelf {
			if next = s.ascii[c]; next == nil {
				if next = d.cstep(s, rune(c)); next == nil {
					return 0, false
				}
				s.ascii[c] = next
			}
		} else {
			if !d.asciiOK {
				return 0, false
			}
			var r rune
			r, w = utf8.DecodeRune(line[i:])
			if r == utf8.RuneError && w <= 1 {
				return 0, false
			}
			if next = s.other[r]; next == nil {
				if next = d.cstep(s, r); next == nil {
					return 0, false
				}
				if s.other == nil {
					s.other = map[rune]*cstate{}
				}
				s.other[r] = next
			}
		}
		if next.hit {
			end = i
		}
		if next.ended && len(next.pcs) == 0 {
			return end, true
		}
		s = next
		i += w
	}
}

// class is the prev class of a character.
func (d *lineDFA) class(r rune) uint8 {
	if d.uniWord && isWordRune(r) || !d.uniWord && syntax.IsWordChar(r) {
		return prevWord
	}
	return prevOther
}

// cstate is the state of these threads (nil: the cache is full).
func (d *lineDFA) cstate(pcs []uint32, prev uint8, ended, hit bool) *cstate {
	d.key = d.key[:0]
	flags := prev
	if ended {
		flags |= 4
	}
	if hit {
		flags |= 8
	}
	d.key = append(d.key, flags)
	for _, pc := range pcs {
		d.key = append(d.key, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	if s, ok := d.ccache[string(d.key)]; ok {
		return s
	}
	if d.ccache == nil {
		d.ccache = map[string]*cstate{}
	}
	if len(d.ccache) >= d.states {
		d.cfull = true
		return nil
	}
	s := &cstate{pcs: slices.Clone(pcs), prev: prev, ended: ended, hit: hit}
	d.ccache[string(d.key)] = s
	return s
}

// orderedClosure follows the empty transitions of s's threads, then of a
// new thread at the program's start when one may start, depth first in
// priority order (regexp's machine.add), under the zero-width flags here:
// the rune-reading threads in that order, and whether a thread reached
// the match (those after it are cut).
func (d *lineDFA) orderedClosure(s *cstate, flags syntax.EmptyOp) (out []uint32, matched bool) {
	d.nextGen()
	roots := len(s.pcs)
	if !s.ended && (!d.anchored || s.prev == prevBegin) {
		roots++
	}
	for k := range roots {
		root := uint32(d.prog.Start)
		if k < len(s.pcs) {
			root = s.pcs[k]
		}
		d.stack = append(d.stack[:0], root)
		if out, matched = d.drain(flags, out, true); matched {
			return out, true
		}
	}
	return out, false
}

// cstep is the state after s reads r (nil: the cache is full).
func (d *lineDFA) cstep(s *cstate, r rune) *cstate {
	threads, matched := d.orderedClosure(s, d.emptyOp(s.prev, r))
	var next []uint32
	for _, pc := range threads {
		in := &d.prog.Inst[pc]
		if runeMatches(in, r) && !slices.Contains(next, in.Out) {
			next = append(next, in.Out)
		}
	}
	return d.cstate(next, d.class(r), s.ended || matched, matched)
}

// cEOL reports whether a match ends at the line's end from s.
func (d *lineDFA) cEOL(s *cstate) bool {
	if s.eol == 0 {
		_, matched := d.orderedClosure(s, d.emptyOp(s.prev, -1))
		s.eol = -1
		if matched {
			s.eol = 1
		}
	}
	return s.eol > 0
}

// minLen is the fewest bytes a match of re holds (0: it may be empty).
func minLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += utf8.RuneLen(r)
		}
		return max(n, 0)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture:
		return minLen(re.Sub[0])
	case syntax.OpPlus:
		return minLen(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minLen(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			n += minLen(s)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, s := range re.Sub {
			if k := minLen(s); n < 0 || k < n {
				n = k
			}
		}
		return max(n, 0)
	}
	return 0 // empty, star, quest, the zero-width assertions
}
