package regex

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// Matcher finds matches in a buffer.
type Matcher struct {
	Re Regexp // Go's regexp, or Unicode word boundaries' (boundary.go)
	// lits is the prefilter: every match contains one of them (nil: none
	// known). Without -U the search runs the regexp only on lines holding one.
	Lits litSet
	// litAC finds Lits when they are more than maxLits (prefilterAC).
	litAC *ahoCorasick
	// exact: lits[0] is the whole pattern, so its occurrences are the
	// matches and the regexp is never run.
	exact bool
	// wordLit: -w with one literal that starts and ends with an ASCII
	// word character: its occurrences with non-word neighbours are the
	// matches, checked without the regexp.
	wordLit   bool
	Multiline bool
	Word      bool     // -w: the match is the regexp's group 1 (word.go)
	Uni       *Matcher // \w \d \s as Unicode classes, for non-ASCII text (unicode.go)
	// uniLines: uni has the same prefilter (candidate lines come from its
	// literals, not from the regexp), so it is used line by line,
	// on the candidate lines that are not ASCII; else buffer by buffer.
	UniLines bool
	// dfa answers whether a line matches (dfa.go); nil with -U or where
	// the program does not compile.
	dfa *dfaProg
	// ac: the pattern is more than maxLits literals (case-sensitive, no
	// -w/-x): their leftmost-first occurrences are the matches (aho.go).
	AC *ahoCorasick
	// rev: every match ends with the prefilter's one literal; the DFA of
	// what comes before it, reversed, checks each occurrence (reverse.go)
	rev *dfaProg
	// nonASCII: every match holds a non-ASCII character (\p{Greek},
	// [α-ω]): the line search skips the lines of ASCII alone by a scan for
	// a byte >= 0x80 (indexNonASCII) instead of running the DFA on them.
	nonASCII bool
	// anyChar: the pattern is `.` (any character but a newline): -c . counts
	// the lines holding one (dotLines).
	AnyChar bool
	// bytes: the pattern switches Unicode off ((?-u)) and is compiled for
	// the Latin-1 image of the haystack; bytes is this matcher without the
	// trip through the image (latin1.go).
	Bytes *Matcher
}

// oneByte is the pattern's one byte when it is that alone (case
// sensitive: e, -F ,) and the processor counts its lines in blocks.
func (m *Matcher) OneByte() (byte, bool) {
	if !hasAVX2 || !m.exact || m.Multiline || len(m.Lits) != 1 || len(m.Lits[0].s) != 1 || m.Lits[0].fold {
		return 0, false
	}
	return m.Lits[0].s[0], true
}

// MatchOptions are the pattern flags of rg.
type MatchOptions struct {
	Patterns   []string
	Fixed      bool // -F
	IgnoreCase bool // -i
	SmartCase  bool // -S: ignore case unless a pattern has an uppercase letter
	Word       bool // -w
	Line       bool // -x
	Multiline  bool // -U: a match may span lines
	DotAll     bool // --multiline-dotall
	// DFASizeLimit bounds the lazy DFA's cache, in bytes (rg's
	// --dfa-size-limit); 0 is the default bound. A search whose DFA fills
	// it goes on with the regexp, as rg's falls back to a slower engine.
	DFASizeLimit int64
	// RegexSizeLimit bounds the compiled pattern, in bytes as rg 13
	// estimates it (--regex-size-limit); 0 is rg's 100 MiB, a negative
	// value a limit of 0 bytes.
	RegexSizeLimit int64
	// NoUnicode: the patterns start with Unicode off, as if each began
	// with (?-u) (--no-unicode; rgsyntax.go).
	NoUnicode bool
}

// Compile builds the matcher. A bad pattern is an error that names it and
// the position, as rg does.
func Compile(o MatchOptions) (*Matcher, error) { return compile(o, false) }

// compile builds the matcher, or (twin) its Unicode twin (unicode.go).
func compile(o MatchOptions, twin bool) (*Matcher, error) {
	if len(o.Patterns) == 0 {
		return nil, fmt.Errorf("no pattern given")
	}
	fold := o.IgnoreCase || o.SmartCase && smartFold(o.Patterns, o.Fixed) // (smartcase.go)
	alts, latin1, err := goPatterns(o, fold)                              // rgsyntax.go
	if err != nil {
		return nil, err
	}
	expr := strings.Join(alts, "|")
	if len(alts) > 1 {
		expr = "(?:" + expr + ")"
	}
	if o.Word && !o.Line {
		if latin1 {
			expr = wordExprLatin1(expr) // latin1.go
		} else {
			expr = wordExpr(expr, o.Multiline) // rg's -w: the match is group 1 (word.go)
		}
	}
	if o.Line {
		expr = "^(?:" + expr + ")$"
	}
	flags := "(?m"
	if fold {
		flags += "i"
	}
	if o.DotAll {
		flags += "s"
	}
	expr = flags + ")" + expr
	if !o.Multiline {
		if expr, err = lineOnly(expr); err != nil { // newline.go
			return nil, err
		}
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, regexError(strings.Join(o.Patterns, "|"), err)
	}
	m := &Matcher{Re: re, Multiline: o.Multiline || o.DotAll, Word: o.Word && !o.Line}
	boundary := false // \b or \B, Unicode's (boundary.go)
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err == nil {
		boundary = !latin1 && hasWordBoundary(parsed)
		simple := parsed.Simplify()
		m.Lits = requiredLits(simple)
		if len(m.Lits) > maxLits {
			if m.litAC = prefilterAC(m.Lits); m.litAC == nil {
				m.Lits = nil
			}
		} else if len(m.Lits) > 1 && hasNonASCIILit(m.Lits) {
			// spellings of one length (ος: 6) sharing a pair: one
			// scan for them all rather than one each
			if ac := prefilterAC(m.Lits); ac != nil && ac.hasPair {
				m.litAC = ac
			}
		}
		m.nonASCII = !m.Multiline && !latin1 && needsNonASCII(simple)
		m.AnyChar = !m.Multiline && !latin1 && !o.Word && !o.Line && simple.Op == syntax.OpAnyCharNotNL
		// A pattern that is one literal (-F, a plain word, (?i)word) is
		// found by the literal scan alone: the regexp never runs, which
		// matters on long lines.
		if !o.Word && !o.Line && simple.Op == syntax.OpLiteral && len(m.Lits) == 1 {
			want, folded := string(simple.Rune), simple.Flags&syntax.FoldCase != 0
			if folded {
				want = strings.ToLower(want)
			}
			m.exact = m.Lits[0].fold == folded && string(m.Lits[0].s) == want
		}
		m.wordLit = o.Word && !o.Line && len(o.Patterns) == 1 && len(m.Lits) == 1 && !latin1 && wordLiteral(o.Patterns[0], o.Fixed, fold, m.Lits[0])
		if !m.Multiline && !m.exact && !m.Word && len(m.Lits) == 1 && !(twin && boundary) {
			m.rev = reverseSuffix(simple, m.Lits[0], o.DFASizeLimit)
		}
	}
	if twin && boundary {
		if m.Re, err = newUniBoundary(expr, re); err != nil {
			return nil, regexError(strings.Join(o.Patterns, "|"), err)
		}
	}
	if !o.Fixed && !latin1 {
		uo, changed := o, false
		uo.Patterns = nil
		for _, p := range o.Patterns {
			u, c := unicodeClasses(p)
			uo.Patterns, changed = append(uo.Patterns, u), changed || c
		}
		if !twin && (changed || boundary) {
			if u, err := compile(uo, true); err == nil {
				m.Uni = u
				m.UniLines = !m.Multiline && m.Lits != nil && reflect.DeepEqual(m.Lits, u.Lits)
			}
		}
	}
	if !m.Multiline {
		m.dfa = newDFAProg(expr, m.Uni != nil, twin && boundary, o.DFASizeLimit)
		if (m.Lits == nil || m.litAC != nil) && !o.Word && !o.Line && !latin1 {
			if len(o.Patterns) > maxLits && !fold {
				m.AC = literalSet(o.Patterns, o.Fixed)
			} else if fold && parsed != nil {
				m.AC = foldLiteralSet(parsed.Simplify())
			}
			if m.AC != nil {
				m.Lits, m.litAC, m.UniLines = nil, nil, false // its matches are the pattern's
			}
		}
	}
	if latin1 {
		img := *m
		m.Bytes = &img // the search goes through the Latin-1 image (latin1.go)
	}
	return m, nil
}

// foldLiteralSet is the Aho-Corasick automaton of a case-insensitive
// pattern that is one literal or an alternation of them (σοφία,
// straße|привет|kelvin): each one's spellings in every case (foldForms),
// in the pattern's order, so that the automaton's leftmost-first
// occurrences are the pattern's matches; nil for another pattern or
// more than maxACLits spellings of one literal.
func foldLiteralSet(re *syntax.Regexp) *ahoCorasick {
	alts := []*syntax.Regexp{re}
	if re.Op == syntax.OpAlternate {
		alts = re.Sub
	}
	var lits [][]byte
	for _, a := range alts {
		if a.Op != syntax.OpLiteral || a.Flags&syntax.FoldCase == 0 || slices.Contains(a.Rune, utf8.RuneError) || slices.Contains(a.Rune, '\n') {
			return nil
		}
		n := 1
		for _, r := range a.Rune {
			if n *= len(foldForms(r)); n > maxACLits {
				return nil
			}
		}
		for _, l := range spellings(a.Rune) {
			lits = append(lits, l.s) // (lowered: the automaton folds ASCII case)
		}
	}
	a := newAhoCorasick(lits, true)
	if a.setPair(true); !a.hasPair {
		a.setGroups(true)
	}
	return a
}

// literalSet is the Aho-Corasick automaton of patterns when each is a
// non-empty literal of valid UTF-8 (nil otherwise).
func literalSet(patterns []string, fixed bool) *ahoCorasick {
	lits := make([][]byte, 0, len(patterns))
	for _, p := range patterns {
		if !fixed {
			re, err := syntax.Parse(p, syntax.Perl)
			if err != nil {
				return nil
			}
			if re = re.Simplify(); re.Op != syntax.OpLiteral || re.Flags&syntax.FoldCase != 0 {
				return nil
			}
			p = string(re.Rune)
		}
		if p == "" || !utf8.ValidString(p) {
			return nil
		}
		lits = append(lits, []byte(p))
	}
	return newAhoCorasick(lits, false)
}

func regexError(p string, err error) error {
	if se, ok := err.(*syntax.Error); ok {
		return rgRegexError(p, se)
	}
	return fmt.Errorf("regex parse error: %v", err)
}

// Span is a match: byte offsets in the searched buffer.
type Span struct{ Start, End int }

// SpanNeed says which match spans of a matching line (Line.Subs) the
// output uses.
type SpanNeed int

const (
	// SpansAll: every match (colour, -o, --json, -r, --vimgrep, and the
	// counts of matches: --stats, --count-matches, the output budgets).
	SpansAll SpanNeed = iota
	// SpansFirst: the first match only (--column).
	SpansFirst
	// SpansNone: none, the line is printed as it is (Subs is nil).
	SpansNone
)

// Find returns the matches in buf, at most limit (0: all). Without -U
// matches never span lines, as in rg.
func (m *Matcher) Find(buf []byte, limit int) []Span { return m.AppendFind(nil, buf, limit) }

// appendFind appends the matches in buf (Find) to dst: a search that
// finds them file after file reuses one slice.
func (m *Matcher) AppendFind(dst []Span, buf []byte, limit int) []Span {
	if m.Bytes != nil {
		var spans []Span
		if !HasNonASCII(buf) {
			spans = m.Bytes.Find(buf, limit)
		} else {
			img := ToLatin1(buf)
			spans = latin1Spans(img, m.Bytes.Find(img, limit))
		}
		if len(dst) == 0 {
			return spans
		}
		return append(dst, spans...)
	}
	if m.Uni != nil && !m.UniLines && HasNonASCII(buf) {
		return m.Uni.AppendFind(dst, buf, limit)
	}
	out := dst
	if m.Multiline {
		n := -1
		if limit > 0 {
			n = limit
		}
		for _, loc := range m.Re.FindAllIndex(buf, n) {
			out = append(out, Span{loc[0], loc[1]})
		}
		return out
	}
	var ls LineSearch
	ls.Reset(m)
	defer ls.Release()
	var subs []Span // (reused from line to line)
	for off := 0; ; {
		start, end, got := ls.Next(buf, off, subs[:0])
		if start < 0 {
			return out
		}
		subs = got
		for _, s := range subs {
			out = append(out, Span{start + s.Start, start + s.End})
			if limit > 0 && len(out)-len(dst) >= limit {
				return out
			}
		}
		off = end
	}
}

// HasMatch reports whether buf contains a match.
func (m *Matcher) HasMatch(buf []byte) bool {
	if m.Bytes != nil {
		if !HasNonASCII(buf) {
			return m.Bytes.HasMatch(buf)
		}
		return m.Bytes.HasMatch(ToLatin1(buf))
	}
	if m.Uni != nil && !m.UniLines && HasNonASCII(buf) {
		return m.Uni.HasMatch(buf)
	}
	var ls LineSearch
	ls.Reset(m)
	defer ls.Release()
	ls.Exist = true
	if m.Multiline {
		// the literals still rule out a file that holds none of them
		return (m.Lits == nil || ls.pf.find(buf, 0) >= 0) && m.Re.Match(buf)
	}
	start, _, _ := ls.Next(buf, 0, nil)
	return start >= 0
}

// lineSearch finds the lines of one buffer that hold a match, in order.
type LineSearch struct {
	m  *Matcher
	pf prefilter
	// exist: only whether a line matches is wanted, not its matches; a
	// matching line then has one span, and not necessarily a true one.
	Exist bool
	// need: the spans the output uses (SearchOptions.Spans); fewer than
	// all lets a line's first match do, or its DFA answer.
	Need SpanNeed
	// Count: only the number of a line's matches is wanted (--count-
	// matches); its spans may be placeholders.
	Count bool
	d, du *lineDFA  // the DFAs of m and of m.uni, taken when first needed
	dr    *lineDFA  // the reversed DFA of m.rev
	gs    groupScan // m.AC's groups in this buffer
}

func (ls *LineSearch) Reset(m *Matcher) {
	ls.m = m
	ls.gs.reset()
	if m.Lits != nil {
		ls.pf.reset(m.Lits, m.litAC)
	}
}

// release gives the DFAs back.
func (ls *LineSearch) Release() {
	if ls.d != nil {
		ls.m.dfa.put(ls.d)
	}
	if ls.du != nil {
		ls.m.Uni.dfa.put(ls.du)
	}
	if ls.dr != nil {
		ls.m.rev.put(ls.dr)
	}
	ls.d, ls.du, ls.dr = nil, nil, nil
}

// dfaOf is the line DFA of mm (ls.m or its Unicode twin), nil if none.
func (ls *LineSearch) dfaOf(mm *Matcher) *lineDFA {
	if mm == ls.m {
		if ls.d == nil {
			ls.d = mm.dfa.get()
		}
		return ls.d
	}
	if ls.du == nil {
		ls.du = mm.dfa.get()
	}
	return ls.du
}

// next finds the first line starting at or after off (a line start) that
// holds a match. It returns the line's start, its end (past the newline,
// if any) and the match spans relative to the line appended to subs;
// start is -1 when no line matches.
func (ls *LineSearch) Next(buf []byte, off int, subs []Span) (start, end int, out []Span) {
	m := ls.m
	from := off   // where the prefilter looks from (off: a line start at or before it)
	lineEnd := -1 // the '\n' ending the line of the last occurrence m.rev ruled out
	// revWork bounds the reversed scans on one line (of off): past twice
	// the line read so far (a long line with many occurrences, each
	// scanned back to its start), the forward DFA decides the line in one
	// pass
	revWork, revOff := 0, -1
	for off < len(buf) {
		var at int
		sure := false // the DFA found that the line at matches
		if m.Lits != nil {
			from = max(from, off)
			at = ls.pf.find(buf, from)
			if lineEnd >= 0 && at > lineEnd {
				off = lineEnd + 1 // the occurrence is on a later line
			}
			if off != revOff {
				revWork, revOff = 0, off
			}
			if revWork += at - off; m.rev != nil && at >= 0 && revWork <= 2*(at-off)+4096 {
				if ls.dr == nil {
					ls.dr = m.rev.get()
				}
				match, ok, nl := ls.dr.scanBack(buf, off, at)
				if nl >= 0 {
					off = nl + 1
					revWork, revOff = 0, off
				}
				if ok && !match {
					// no match ends with this occurrence: the next one
					if lineEnd < at {
						lineEnd = len(buf)
						if i := bytes.IndexByte(buf[at:], '\n'); i >= 0 {
							lineEnd = at + i
						}
					}
					from = at + 1
					continue
				}
				sure = ok
			}
		} else if m.AC != nil {
			if at = m.AC.firstEndIn(buf, off, &ls.gs); at > 0 {
				at--
			}
		} else if d := ls.dfaOf(m); d != nil {
			lim := len(buf)
			if m.nonASCII {
				// the lines of ASCII alone hold no match: to the next
				// non-ASCII byte's line, the DFA on it alone
				i := IndexNonASCII(buf[off:])
				if i < 0 {
					return -1, 0, subs
				}
				i += off
				off += bytes.LastIndexByte(buf[off:i], '\n') + 1
				if j := bytes.IndexByte(buf[i:], '\n'); j >= 0 {
					lim = i + j
				}
			}
			if at, sure = d.nextLine(buf[:lim], off); at < 0 && lim < len(buf) {
				off = lim + 1
				continue
			}
		} else if loc := m.Re.FindIndex(buf[off:]); loc != nil {
			at = off + loc[0]
		} else {
			at = -1
		}
		if at < 0 {
			return -1, 0, subs
		}
		start = off + bytes.LastIndexByte(buf[off:at], '\n') + 1
		if start >= len(buf) {
			return -1, 0, subs // an empty match after the last newline: no line there
		}
		textEnd := len(buf)
		end = len(buf)
		if i := bytes.IndexByte(buf[at:], '\n'); i >= 0 {
			textEnd, end = at+i, at+i+1
		}
		line := buf[start:textEnd]
		n := len(subs)
		fast := m.exact
		if m.wordLit {
			subs, fast = ls.wordSpans(line, subs, at-start)
		}
		if (ls.Exist || ls.Need == SpansNone) && (m.exact || m.AC != nil) {
			return start, end, append(subs, Span{at - start, at - start})
		}
		if ls.Need == SpansFirst && m.exact {
			return start, end, append(subs, Span{at - start, at - start + len(m.Lits[0].s)})
		}
		if ls.Need == SpansFirst && m.AC != nil {
			s, e := m.AC.leftmost(line, 0)
			return start, end, append(subs, Span{s, e})
		}
		if m.exact {
			subs = ls.literalSpans(line, subs, at-start)
		} else if m.AC != nil {
			for p := 0; ; {
				s, e := m.AC.leftmost(line, p)
				if s < 0 {
					break
				}
				subs = append(subs, Span{s, e})
				p = e
			}
		} else if !fast {
			mm := m
			if m.UniLines && HasNonASCII(line) {
				mm = m.Uni // Unicode \w \d \s (unicode.go)
			}
			if !sure || mm != m {
				if d := ls.dfaOf(mm); d != nil {
					var known bool
					if sure, known = d.matchLine(line); known && !sure {
						off = end // the DFA is sure: no match on the line
						continue
					}
				}
			}
			if sure && (ls.Exist || ls.Need == SpansNone) {
				// (-w too: rg's first word match on a line is the regexp's
				// leftmost, WordsIn)
				return start, end, append(subs, Span{at - start, at - start})
			}
			if ls.Need == SpansFirst && !m.Word && utf8.Valid(line) {
				if loc := mm.Re.FindIndex(line); loc != nil {
					return start, end, append(subs, Span{loc[0], loc[1]})
				}
				off = end
				continue
			}
			counted := false
			if ls.Count && !mm.Word {
				if d := ls.dfaOf(mm); d != nil {
					var k int
					if k, counted = d.countMatches(line); counted {
						subs = slices.Grow(subs, k)
						for range k {
							subs = append(subs, Span{}) // (a count's placeholders)
						}
					}
				}
			}
			if !mm.Word && !counted { // (-w: adjustLine finds the words itself)
				for _, loc := range mm.Re.FindAllIndex(line, -1) {
					subs = append(subs, Span{loc[0], loc[1]})
				}
			}
			subs = mm.adjustLine(buf, start, textEnd, subs, n) // -w, invalid UTF-8 (word.go, utf8.go)
		}
		if len(subs) > n {
			return start, end, subs
		}
		off = end
	}
	return -1, 0, subs
}

// literalSpans appends the occurrences of the exact literal in line, the
// first of which is known to start at first.
func (ls *LineSearch) literalSpans(line []byte, subs []Span, first int) []Span {
	l := &ls.m.Lits[0]
	st := litScan{next: -2, lo: -2, up: -2} // one scan state for the line: the positions only grow
	for at := first; at >= 0; {
		subs = append(subs, Span{at, at + len(l.s)})
		at = l.index(line, at+len(l.s), &st)
	}
	return subs
}

// wordSpans appends the -w matches of the literal in line, the first
// occurrence of which starts at first: the occurrences whose neighbours
// are line edges or non-word characters, left to right, not overlapping.
// A neighbour outside ASCII leaves the line to the regexp (ok false).
func (ls *LineSearch) wordSpans(line []byte, subs []Span, first int) (out []Span, ok bool) {
	l := &ls.m.Lits[0]
	n := len(subs)
	st := litScan{next: -2, lo: -2, up: -2} // one scan state for the line: the positions only grow
	for at := first; at >= 0; {
		end := at + len(l.s)
		if (at > 0 && line[at-1] >= utf8.RuneSelf) || (end < len(line) && line[end] >= utf8.RuneSelf) {
			return subs[:n], false
		}
		next := at + 1
		if (at == 0 || !isASCIIWord(line[at-1])) && (end == len(line) || !isASCIIWord(line[end])) {
			subs = append(subs, Span{at, end})
			next = end
		}
		at = l.index(line, next, &st)
	}
	return subs, true
}

func isASCIIWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

// wordLiteral reports whether the -w pattern p is the literal lit, one
// that starts and ends with an ASCII word character.
func wordLiteral(p string, fixed, fold bool, lit lit) bool {
	if fixed {
		p = regexp.QuoteMeta(p)
	}
	if fold {
		p = "(?i)" + p
	}
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return false
	}
	re = re.Simplify()
	if re.Op != syntax.OpLiteral || len(re.Rune) == 0 {
		return false
	}
	first, last := re.Rune[0], re.Rune[len(re.Rune)-1]
	if first >= utf8.RuneSelf || last >= utf8.RuneSelf || !isASCIIWord(byte(first)) || !isASCIIWord(byte(last)) {
		return false
	}
	want, folded := string(re.Rune), re.Flags&syntax.FoldCase != 0
	if folded {
		want = strings.ToLower(want)
	}
	return lit.fold == folded && string(lit.s) == want
}

// ExpandMatch is the replacement for one match span of text.
func (m *Matcher) ExpandMatch(text []byte, s Span, tmpl string) []byte {
	var sub []int
	if m.Bytes != nil && HasNonASCII(text) {
		img := ToLatin1(text)
		at := imageOffset(text, s.Start)
		sub = m.Re.FindSubmatchIndex(img[at:])
		c := Latin1Offsets{Img: img}
		for i := range sub {
			if sub[i] >= 0 {
				sub[i] = c.Orig(at + sub[i])
			}
		}
	} else if sub = m.Re.FindSubmatchIndex(text[s.Start:]); sub != nil {
		for i := range sub {
			if sub[i] >= 0 {
				sub[i] += s.Start
			}
		}
	}
	if sub == nil {
		return []byte(tmpl)
	}
	return m.Re.Expand(nil, []byte(tmpl), text, sub)
}
