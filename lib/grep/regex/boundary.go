package regex

import (
	"regexp"
	"regexp/syntax"
	"sync"
	"unicode/utf8"
)

// Rust's regex (rg) reads \b and \B as Unicode word boundaries: a word
// character is one of \w's Unicode class (uniWord), so é, 世 and ñ are
// word characters, and `\b\w+\b` finds héllo, 世界 and ñandú whole. Go's
// regexp has ASCII word boundaries only, and no way to change them. A
// pattern with \b or \B (Unicode on) therefore runs, on text that is not
// ASCII alone, in uniBoundary: Go's own NFA simulation (regexp's
// machine: leftmost-first, the same program, the same matches) with the
// word-boundary test swapped for Unicode's. On ASCII text both agree, so
// the main matcher keeps Go's faster regexp there (the twin of
// unicode.go). (?-u:\b) stays ASCII: a pattern that switches Unicode off
// is searched on its Latin-1 image (latin1.go), where every boundary is
// ASCII.

// Regexp is what a Matcher asks of its regular expression engine: Go's
// *regexp.Regexp, or uniBoundary.
type Regexp interface {
	Match(b []byte) bool
	FindIndex(b []byte) []int
	FindAllIndex(b []byte, n int) [][]int
	FindSubmatchIndex(b []byte) []int
	Expand(dst []byte, template []byte, src []byte, match []int) []byte
}

// emptyOpUnicode is syntax.EmptyOpContext with Unicode word boundaries.
func emptyOpUnicode(r1, r2 rune) syntax.EmptyOp {
	op := syntax.EmptyOpContext(r1, r2) &^ (syntax.EmptyWordBoundary | syntax.EmptyNoWordBoundary)
	if isWordRune(r1) != isWordRune(r2) {
		return op | syntax.EmptyWordBoundary
	}
	return op | syntax.EmptyNoWordBoundary
}

// hasWordBoundary: re holds \b or \B.
func hasWordBoundary(re *syntax.Regexp) bool {
	if re.Op == syntax.OpWordBoundary || re.Op == syntax.OpNoWordBoundary {
		return true
	}
	for _, s := range re.Sub {
		if hasWordBoundary(s) {
			return true
		}
	}
	return false
}

// uniBoundary is a pattern run with Unicode word boundaries (see above).
type uniBoundary struct {
	prog *syntax.Prog
	ncap int            // the capture slots of a submatch (2 per group, group 0 included)
	cond syntax.EmptyOp // the program's start condition
	re   *regexp.Regexp // the same pattern in Go's regexp: Expand's names
	pool sync.Pool      // *pikeVM
}

// newUniBoundary compiles expr (which re was compiled from) as regexp
// does: Perl syntax, simplified.
func newUniBoundary(expr string, re *regexp.Regexp) (*uniBoundary, error) {
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	ncap := 2 * (parsed.MaxCap() + 1)
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, err
	}
	return &uniBoundary{prog: prog, ncap: ncap, cond: prog.StartCond(), re: re}, nil
}

// run is the leftmost-first match at or after pos in b (nil: none), its
// capture slots when caps, else group 0.
func (u *uniBoundary) run(b []byte, pos int, caps bool) []int {
	vm, _ := u.pool.Get().(*pikeVM)
	if vm == nil {
		n := len(u.prog.Inst)
		vm = &pikeVM{q0: newPikeQueue(n), q1: newPikeQueue(n)}
	}
	ncap := 2
	if caps {
		ncap = u.ncap
	}
	got := vm.match(u, b, pos, ncap)
	u.pool.Put(vm)
	return got
}

// Match reports whether b holds a match.
func (u *uniBoundary) Match(b []byte) bool { return u.run(b, 0, false) != nil }

// FindIndex is the leftmost match's span (nil: none).
func (u *uniBoundary) FindIndex(b []byte) []int { return u.run(b, 0, false) }

// FindSubmatchIndex is the leftmost match's span and its groups'.
func (u *uniBoundary) FindSubmatchIndex(b []byte) []int { return u.run(b, 0, true) }

// FindAllIndex is the successive non-overlapping matches (at most n when
// n >= 0), an empty match next to the one before dropped, as regexp's.
func (u *uniBoundary) FindAllIndex(b []byte, n int) [][]int {
	if n < 0 {
		n = len(b) + 1
	}
	var out [][]int
	for pos, prevEnd := 0, -1; len(out) < n && pos <= len(b); {
		m := u.run(b, pos, false)
		if m == nil {
			break
		}
		accept := true
		if m[1] == pos { // empty: on to the next character
			if m[0] == prevEnd {
				accept = false
			}
			if pos < len(b) {
				_, w := utf8.DecodeRune(b[pos:])
				pos += w
			} else {
				pos++
			}
		} else {
			pos = m[1]
		}
		prevEnd = m[1]
		if accept {
			out = append(out, m)
		}
	}
	return out
}

// Expand is regexp's Expand (the template's $names are the pattern's).
func (u *uniBoundary) Expand(dst []byte, template []byte, src []byte, match []int) []byte {
	return u.re.Expand(dst, template, src, match)
}

// pikeVM is one search's state: regexp's machine (exec.go), its threads
// the program counters of each position in priority order.
type pikeVM struct {
	q0, q1   pikeQueue
	free     []*pikeThread
	matched  bool
	matchcap []int
}

type pikeThread struct {
	inst *syntax.Inst
	cap  []int
}

// pikeQueue is a sparse set of program counters, in insertion order.
type pikeQueue struct {
	sparse []uint32
	dense  []pikeEntry
}

type pikeEntry struct {
	pc uint32
	t  *pikeThread
}

func newPikeQueue(n int) pikeQueue {
	return pikeQueue{sparse: make([]uint32, n), dense: make([]pikeEntry, 0, n)}
}

// runeAt is the character at pos (-1 at the end) and its width.
func runeAt(b []byte, pos int) (rune, int) {
	if pos >= len(b) {
		return -1, 0
	}
	if c := b[pos]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRune(b[pos:])
}

// runeBefore is the character before pos (-1 at the start).
func runeBefore(b []byte, pos int) rune {
	if pos <= 0 {
		return -1
	}
	if c := b[pos-1]; c < utf8.RuneSelf {
		return rune(c)
	}
	r, _ := utf8.DecodeLastRune(b[:pos])
	return r
}

func (vm *pikeVM) alloc(in *syntax.Inst, ncap int) *pikeThread {
	var t *pikeThread
	if n := len(vm.free); n > 0 {
		t = vm.free[n-1]
		vm.free = vm.free[:n-1]
	} else {
		t = &pikeThread{}
	}
	if cap(t.cap) < ncap {
		t.cap = make([]int, ncap)
	}
	t.cap = t.cap[:ncap]
	t.inst = in
	return t
}

// match runs the program over b from pos (regexp's machine.match).
func (vm *pikeVM) match(u *uniBoundary, b []byte, pos, ncap int) []int {
	if u.cond == ^syntax.EmptyOp(0) {
		return nil
	}
	if cap(vm.matchcap) < ncap {
		vm.matchcap = make([]int, ncap)
	}
	vm.matchcap = vm.matchcap[:ncap]
	for i := range vm.matchcap {
		vm.matchcap[i] = -1
	}
	vm.matched = false
	runq, nextq := &vm.q0, &vm.q1
	r, width := runeAt(b, pos)
	flag := emptyOpUnicode(runeBefore(b, pos), r)
	for {
		if len(runq.dense) == 0 {
			if u.cond&syntax.EmptyBeginText != 0 && pos != 0 {
				break // anchored, past the start
			}
			if vm.matched {
				break
			}
		}
		if !vm.matched && (pos == 0 || u.cond&syntax.EmptyBeginText == 0) {
			vm.matchcap[0] = pos
			vm.add(u, runq, uint32(u.prog.Start), pos, vm.matchcap, flag, nil)
		}
		r1, width1 := runeAt(b, pos+width)
		next := emptyOpUnicode(r, r1)
		if width == 0 {
			next = 0
		}
		vm.step(u, runq, nextq, pos, pos+width, r, next)
		if width == 0 {
			break
		}
		pos += width
		r, width, flag = r1, width1, next
		runq, nextq = nextq, runq
	}
	vm.clear(nextq)
	if !vm.matched {
		return nil
	}
	return append([]int(nil), vm.matchcap...)
}

func (vm *pikeVM) clear(q *pikeQueue) {
	for _, d := range q.dense {
		if d.t != nil {
			vm.free = append(vm.free, d.t)
		}
	}
	q.dense = q.dense[:0]
}

// step moves runq's threads (at pos) over c into nextq (at nextPos, with
// the empty-width context next).
func (vm *pikeVM) step(u *uniBoundary, runq, nextq *pikeQueue, pos, nextPos int, c rune, next syntax.EmptyOp) {
	for j := 0; j < len(runq.dense); j++ {
		t := runq.dense[j].t
		if t == nil {
			continue
		}
		in := t.inst
		add := false
		switch in.Op {
		case syntax.InstMatch:
			t.cap[1] = pos
			copy(vm.matchcap, t.cap)
			// first match: the threads after this one have lower priority
			for _, d := range runq.dense[j+1:] {
				if d.t != nil {
					vm.free = append(vm.free, d.t)
				}
			}
			runq.dense = runq.dense[:0]
			vm.matched = true
		case syntax.InstRune:
			add = in.MatchRune(c)
		case syntax.InstRune1:
			add = c == in.Rune[0]
		case syntax.InstRuneAny:
			add = true
		case syntax.InstRuneAnyNotNL:
			add = c != '\n'
		}
		if add {
			t = vm.add(u, nextq, in.Out, nextPos, t.cap, next, t)
		}
		if t != nil {
			vm.free = append(vm.free, t)
		}
	}
	runq.dense = runq.dense[:0]
}

// add follows pc's empty transitions at pos into q (regexp's
// machine.add); t is a thread to reuse.
func (vm *pikeVM) add(u *uniBoundary, q *pikeQueue, pc uint32, pos int, cap []int, cond syntax.EmptyOp, t *pikeThread) *pikeThread {
again:
	if pc == 0 {
		return t
	}
	if j := q.sparse[pc]; j < uint32(len(q.dense)) && q.dense[j].pc == pc {
		return t
	}
	j := len(q.dense)
	q.dense = q.dense[:j+1]
	d := &q.dense[j]
	d.t, d.pc = nil, pc
	q.sparse[pc] = uint32(j)
	in := &u.prog.Inst[pc]
	switch in.Op {
	case syntax.InstFail:
	case syntax.InstAlt, syntax.InstAltMatch:
		t = vm.add(u, q, in.Out, pos, cap, cond, t)
		pc = in.Arg
		goto again
	case syntax.InstEmptyWidth:
		if syntax.EmptyOp(in.Arg)&^cond == 0 {
			pc = in.Out
			goto again
		}
	case syntax.InstNop:
		pc = in.Out
		goto again
	case syntax.InstCapture:
		if int(in.Arg) < len(cap) {
			old := cap[in.Arg]
			cap[in.Arg] = pos
			vm.add(u, q, in.Out, pos, cap, cond, nil)
			cap[in.Arg] = old
		} else {
			pc = in.Out
			goto again
		}
	default: // InstMatch, InstRune*
		if t == nil {
			t = vm.alloc(in, len(cap))
		} else {
			t.inst = in
		}
		if len(cap) > 0 && &t.cap[0] != &cap[0] {
			copy(t.cap, cap)
		}
		d.t = t
		t = nil
	}
	return t
}
