package regex

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// lineDFA answers one question fast: does a line hold a match? It is a
// lazy DFA built from the same program Go's regexp runs (regexp/syntax),
// its states made as the input asks for them and cached: each byte of
// ASCII text costs one table look-up, where Go's regexp runs a
// backtracker or an NFA. It gives no positions: the lines it finds are
// handed to the regexp when the output needs them (-o, colour, --json,
// the printed spans), and not at all when it does not (-c, -l, -q, -v).
//
// Each line is searched as its own text (^ $ \A \z at its edges), as the
// regexp is run on a line. Word boundaries (\b \B) are ASCII, as Go's,
// or Unicode's in a twin (dfaProg.uniWord).
// Where it cannot answer as the regexp would, it says so (sure false):
// invalid UTF-8 (the regexp reads U+FFFD there, rg never matches it),
// non-ASCII text when the matcher has a Unicode twin (unicode.go), or a
// cache grown past its bound.
type lineDFA struct {
	*dfaProg
	start *dstate
	cache map[string]*dstate
	full  bool // the cache reached maxStates
	stack []uint32
	seen  []uint32 // generation marks per pc
	gen   uint32
	key   []byte
	// the count DFA's states (countdfa.go), made when a count first asks
	ccache map[string]*cstate
	cfull  bool
}

// dfaProg is what the DFAs of one matcher share (each search goroutine
// has a DFA of its own: the cache is not safe to share).
type dfaProg struct {
	prog     *syntax.Prog
	anchored bool // every match starts at the line's start
	asciiOK  bool // false: non-ASCII text is unsure (a Unicode twin exists)
	uniWord  bool // \b and \B are Unicode's (boundary.go), not ASCII's
	nonEmpty bool // no match is empty (countdfa.go)
	states   int  // the cache's bound, in states
	pool     sync.Pool
	expr     string    // the pattern prog is compiled from, when first needed
	once     sync.Once // (compiled)
}

// maxStates bounds the cache by default (each state holds a 128-entry
// table: about 1 KiB, so about 4 MiB in all).
const maxStates = 4096

// statesFor is the bound of a cache of limit bytes (0: the default), at
// least a few states so that a search can start.
func statesFor(limit int64) int {
	if limit <= 0 {
		return maxStates
	}
	return int(max(8, min(limit/int64(unsafe.Sizeof(dstate{})), 1<<20)))
}

// prev classes: what came before the position (for ^ and \b).
const (
	prevBegin = iota
	prevWord
	prevOther
)

type dstate struct {
	pcs   []uint32 // the threads waiting to read a rune (Rune* instructions)
	prev  uint8
	dead  bool // no thread and none can start: no match on the rest of the line
	ascii [128]*dstate
	other map[rune]*dstate
	// near caches other's transitions by the rune's low bits: a script's
	// letters (Greek, Cyrillic) are a run of code points, read without a
	// map look-up (64: a letter and its capital, 0x20 apart in both
	// scripts, have a slot each, which -i reads in turn)
	near [64]runeEdge
	eol  int8 // a match at the line's end: 0 unknown, 1 yes, -1 no
}

type runeEdge struct {
	r rune
	s *dstate
}

// matchState is the target of a transition that found a match.
var matchState = &dstate{}

// newDFAProg is expr's program for line DFAs, compiled when a search
// first needs one (get): a search the literals settle never does, and a
// pattern such as a{3000000} is not compiled twice up front (regexp's
// program and this one), each a few hundred MB to build and scan.
// asciiOnly: the text outside ASCII is left to a Unicode twin.
func newDFAProg(expr string, asciiOnly, uniWord bool, limit int64) *dfaProg {
	return &dfaProg{expr: expr, asciiOK: !asciiOnly, uniWord: uniWord, states: statesFor(limit)}
}

// compiled reports whether p has its program, compiling it from p.expr
// the first time.
func (p *dfaProg) compiled() bool {
	p.once.Do(func() {
		if p.prog != nil {
			return
		}
		re, err := syntax.Parse(p.expr, syntax.Perl)
		if err != nil {
			return
		}
		prog, err := syntax.Compile(re.Simplify())
		if err != nil {
			return
		}
		p.prog = prog
		p.nonEmpty = minLen(re) > 0
		p.anchored = prog.StartCond()&(syntax.EmptyBeginLine|syntax.EmptyBeginText) != 0
	})
	return p.prog != nil
}

// get is a DFA of p for one goroutine (nil: p does not compile); put it
// back when done.
func (p *dfaProg) get() *lineDFA {
	if p == nil || !p.compiled() {
		return nil
	}
	if d, ok := p.pool.Get().(*lineDFA); ok {
		return d
	}
	d := &lineDFA{dfaProg: p, cache: map[string]*dstate{}, seen: make([]uint32, len(p.prog.Inst))}
	d.start = d.state(nil, prevBegin)
	return d
}

func (p *dfaProg) put(d *lineDFA) {
	if d != nil {
		p.pool.Put(d)
	}
}

func (d *lineDFA) state(pcs []uint32, prev uint8) *dstate {
	d.key = d.key[:0]
	d.key = append(d.key, prev)
	for _, pc := range pcs {
		d.key = append(d.key, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	if s, ok := d.cache[string(d.key)]; ok {
		return s
	}
	if len(d.cache) >= d.states {
		d.full = true
		return nil
	}
	s := &dstate{pcs: slices.Clone(pcs), prev: prev}
	s.dead = len(pcs) == 0 && d.anchored && prev != prevBegin
	d.cache[string(d.key)] = s
	return s
}

// closure follows the empty transitions from s's threads (and a new
// thread at the program's start, where one may start) under the
// zero-width flags at this position; it returns the rune-reading threads
// and whether a match is reached.
func (d *lineDFA) closure(s *dstate, flags syntax.EmptyOp, out []uint32) ([]uint32, bool) {
	d.nextGen()
	d.stack = d.stack[:0]
	// threads in the order of s (their order does not matter for a yes or no)
	d.stack = append(d.stack, s.pcs...)
	if !d.anchored || s.prev == prevBegin {
		d.stack = append(d.stack, uint32(d.prog.Start))
	}
	return d.drain(flags, out, false)
}

// drain follows the stack's instructions and what they lead to, depth
// first, appending the rune-reading threads to out; matched: one led to
// the match (with stop, the drain ends there: what is left has a lower
// priority).
func (d *lineDFA) drain(flags syntax.EmptyOp, out []uint32, stop bool) (_ []uint32, matched bool) {
	for len(d.stack) > 0 {
		pc, fresh := d.pop()
		if !fresh {
			continue
		}
		switch d.follow(pc, flags) {
		case followMatch:
			if stop {
				return out, true
			}
			matched = true
		case followRune:
			out = append(out, pc)
		}
	}
	return out, matched
}

// pop takes the stack's top instruction, marked seen; fresh is false
// when the closure had seen it already.
func (d *lineDFA) pop() (pc uint32, fresh bool) {
	pc = d.stack[len(d.stack)-1]
	d.stack = d.stack[:len(d.stack)-1]
	if d.seen[pc] == d.gen {
		return pc, false
	}
	d.seen[pc] = d.gen
	return pc, true
}

// nextGen starts a new closure's marks.
func (d *lineDFA) nextGen() {
	d.gen++
	if d.gen == 0 {
		clear(d.seen)
		d.gen = 1
	}
}

// What follow found at an instruction.
const (
	followOn    = iota // its empty transitions, if any, are on the stack
	followMatch        // the match
	followRune         // a thread waiting to read a character
)

// follow pushes the empty transitions of instruction pc under the
// zero-width flags onto d.stack (Out last: taken first, regexp's
// priority order) and says what pc is.
func (d *lineDFA) follow(pc uint32, flags syntax.EmptyOp) int {
	in := &d.prog.Inst[pc]
	switch in.Op {
	case syntax.InstAlt, syntax.InstAltMatch:
		d.stack = append(d.stack, in.Arg, in.Out)
	case syntax.InstCapture, syntax.InstNop:
		d.stack = append(d.stack, in.Out)
	case syntax.InstEmptyWidth:
		if syntax.EmptyOp(in.Arg)&^flags == 0 {
			d.stack = append(d.stack, in.Out)
		}
	case syntax.InstMatch:
		return followMatch
	case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
		return followRune
	}
	return followOn
}

func prevRune(class uint8) rune {
	switch class {
	case prevBegin:
		return -1
	case prevWord:
		return 'a'
	}
	return ' '
}

func runeMatches(in *syntax.Inst, r rune) bool {
	switch in.Op {
	case syntax.InstRune1:
		return in.Rune[0] == r
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	}
	return in.MatchRune(r)
}

// emptyOp is the empty-width context between a character of class prev
// and r.
func (p *dfaProg) emptyOp(prev uint8, r rune) syntax.EmptyOp {
	if p.uniWord {
		return emptyOpUnicode(prevRune(prev), r)
	}
	return syntax.EmptyOpContext(prevRune(prev), r)
}

// step is the state after s reads r (matchState: a match ends before or
// at r; nil: the cache is full).
func (d *lineDFA) step(s *dstate, r rune) *dstate {
	flags := d.emptyOp(s.prev, r)
	threads, matched := d.closure(s, flags, nil)
	if matched {
		return matchState
	}
	var next []uint32
	for _, pc := range threads {
		in := &d.prog.Inst[pc]
		if runeMatches(in, r) {
			next = append(next, in.Out)
		}
	}
	slices.Sort(next)
	next = slices.Compact(next)
	prev := uint8(prevOther)
	if d.uniWord && isWordRune(r) || !d.uniWord && syntax.IsWordChar(r) {
		prev = prevWord
	}
	return d.state(next, prev)
}

// atEOL reports whether a match ends at the line's end from s.
func (d *lineDFA) atEOL(s *dstate) bool {
	if s.eol == 0 {
		_, matched := d.closure(s, d.emptyOp(s.prev, -1), nil)
		s.eol = -1
		if matched {
			s.eol = 1
		}
	}
	return s.eol > 0
}

// matchLine reports whether line (without its newline) holds a match;
// sure is false where the DFA cannot tell.
func (d *lineDFA) matchLine(line []byte) (match, sure bool) {
	match, sure = d.scanLine(line)
	if !sure && d.full {
		// the cache is full: empty it and try the line once more (RE2's
		// way); a line that fills it alone is left to the regexp
		d.reset()
		match, sure = d.scanLine(line)
	}
	return match, sure
}

// reset empties the cache.
func (d *lineDFA) reset() {
	d.cache = map[string]*dstate{}
	d.full = false
	d.start = d.state(nil, prevBegin)
}

func (d *lineDFA) scanLine(line []byte) (match, sure bool) {
	s := d.start
	for i := 0; i < len(line); {
		if s.dead {
			return false, true
		}
		c := line[i]
		var next *dstate
		if c < utf8.RuneSelf {
			next = s.ascii[c]
			if next == nil {
				if next = d.step(s, rune(c)); next == nil {
					return false, false
				}
				s.ascii[c] = next
			}
			i++
		} else {
			if !d.asciiOK {
				return false, false
			}
			var r rune
			n := 2
			if c >= 0xC2 && c < 0xE0 && i+1 < len(line) && line[i+1]&0xC0 == 0x80 {
				r = rune(c&0x1F)<<6 | rune(line[i+1]&0x3F) // (two bytes, Greek, Cyrillic, Latin-1: no call)
			} else if r, n = utf8.DecodeRune(line[i:]); r == utf8.RuneError && n <= 1 {
				return false, false
			}
			if e := &s.near[r&63]; e.s != nil && e.r == r {
				next = e.s
			} else {
				if next = s.other[r]; next == nil {
					if next = d.step(s, r); next == nil {
						return false, false
					}
					if s.other == nil {
						s.other = map[rune]*dstate{}
					}
					s.other[r] = next
				}
				*e = runeEdge{r, next}
			}
			i += n
		}
		if next == matchState {
			return true, true
		}
		s = next
	}
	return d.atEOL(s), true
}

// nextLine finds the first line of buf starting at or after off (a line
// start) that holds a match or that the DFA cannot decide: its start, or
// -1. sure says which.
func (d *lineDFA) nextLine(buf []byte, off int) (start int, sure bool) {
	for off < len(buf) {
		end := bytes.IndexByte(buf[off:], '\n')
		if end < 0 {
			end = len(buf)
		} else {
			end += off
		}
		match, ok := d.matchLine(buf[off:end])
		if !ok || match {
			return off, ok
		}
		off = end + 1
	}
	return -1, true
}
