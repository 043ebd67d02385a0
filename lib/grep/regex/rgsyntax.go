package regex

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// rg reads patterns with Rust's regex syntax, a superset of what Go's
// RE2 parser takes in the places that matter here. translateRg rewrites a
// pattern into Go's syntax:
//
//   - a repetition of a repetition (x**, x+*, x*?+) nests, as in Rust:
//     x** is (?:x*)*;
//   - a count above 1000 (Go's limit, per repetition and for nested ones
//     together) is spelled as a concatenation of counts of at most 1000:
//     a{2500} is (?:a){1000}(?:a){1000}(?:a){500};
//   - the compiled size is estimated as Rust's (32 bytes an instruction, a
//     class as its UTF-8 byte automaton) and a pattern above the limit is
//     refused in rg's words, before anything large is built;
//   - \p{...} names Go lacks (binary properties such as White_Space,
//     Alphabetic, Emoji_Presentation; loose spellings such as greek or
//     Uppercase_Letter) become explicit classes (uniprops.go);
//   - (?-u) switches Unicode off: the pattern is then translated for the
//     Latin-1 image of the haystack, where each byte is one character
//     (latin1.go), so \xFF, '.', [^a] and \W match single bytes as in rg.
//
// A pattern the translator does not follow (look-around, \Q, an unclosed
// group) is returned as it is, for Go's parser to report.

// rgInstBytes is the size of one instruction of Rust's compiled program,
// the unit of --regex-size-limit.
const rgInstBytes = 32

// DefaultRegexSizeLimit is rg 13's limit on a compiled pattern (its help
// says 10M; the code uses 100 MiB).
const DefaultRegexSizeLimit = 100 << 20

type rgFlags struct {
	fold  bool // i
	noUni bool // -u
	dotNL bool // s
}

// rgItem is a translated piece of a pattern.
type rgItem struct {
	text     string
	size     int64 // estimated bytes of Rust's compiled program
	reps     int64 // the largest product of nested counted repetitions in it
	repeated bool  // ends in a repetition operator: another one nests
	atom     bool  // may take a repetition operator
}

type rgTranslator struct {
	p        string
	i        int
	latin1   bool  // translate for the Latin-1 image of the haystack
	limit    int64 // bytes; 0: none
	sawNoUni bool  // some group switched Unicode off
}

// errRgFallback: the translator leaves the pattern to Go's parser.
var errRgFallback = errors.New("not translated")

// rgTranslation is one pattern, translated.
type rgTranslation struct {
	expr   string
	noUni  bool // the pattern switches Unicode off somewhere
	latin1 bool // expr is for the Latin-1 image of the haystack
}

// translateRg translates p (see above). fl are the flags the whole
// expression starts with (-i, --multiline-dotall, --no-unicode).
func translateRg(p string, limit int64, fl rgFlags, latin1 bool) (rgTranslation, error) {
	t := &rgTranslator{p: p, latin1: latin1, limit: limit, sawNoUni: fl.noUni}
	it, err := t.seq(fl, 0)
	if err == errRgFallback {
		return rgTranslation{expr: p, noUni: fl.noUni && t.sawNoUni}, nil
	}
	if err != nil {
		return rgTranslation{}, err
	}
	if err := t.checkSize(it.size); err != nil {
		return rgTranslation{}, err
	}
	return rgTranslation{expr: it.text, noUni: t.sawNoUni, latin1: latin1}, nil
}

func (t *rgTranslator) checkSize(size int64) error {
	if t.limit >= 0 && (size > t.limit || t.limit == 0) { // (rg's smallest program is over 0 bytes)
		//lint:ignore ST1005 ripgrep's message, word for word
		return fmt.Errorf("Compiled regex exceeds size limit of %d bytes.", t.limit)
	}
	return nil
}

// errAt is an rg-worded error pointing at p[pos:pos+n].
func (t *rgTranslator) errAt(pos, n int, msg string) error {
	return rgErrorAt(t.p, pos, utf8.RuneCountInString(t.p[pos:pos+n]), msg, "")
}

// seq translates alternatives up to a ')' (not consumed) or the end.
func (t *rgTranslator) seq(fl rgFlags, depth int) (rgItem, error) {
	var alts, cur []rgItem
	for t.i < len(t.p) {
		c := t.p[t.i]
		if c == ')' {
			if depth == 0 {
				return rgItem{}, errRgFallback // unopened group: Go's error
			}
			break
		}
		if c == '|' {
			alts, cur = append(alts, joinItems(cur)), nil
			t.i++
			continue
		}
		if c == '*' || c == '+' || c == '?' || c == '{' {
			if len(cur) == 0 || !cur[len(cur)-1].atom {
				if c == '{' { // (Go would take it as text)
					return rgItem{}, t.errAt(t.i, 1, "repetition operator missing expression")
				}
				return rgItem{}, errRgFallback // nothing to repeat: Go's error
			}
			it, err := t.repeat(cur[len(cur)-1])
			if err != nil {
				return rgItem{}, err
			}
			cur[len(cur)-1] = it
			continue
		}
		it, nfl, err := t.atom(fl, depth)
		if err != nil {
			return rgItem{}, err
		}
		fl = nfl
		cur = append(cur, it)
	}
	alts = append(alts, joinItems(cur))
	if len(alts) == 1 {
		return alts[0], nil
	}
	var out rgItem
	texts := make([]string, len(alts))
	for i, a := range alts {
		texts[i] = a.text
		out.size = satAdd(out.size, a.size+rgInstBytes)
		out.reps = max(out.reps, a.reps)
	}
	out.size -= rgInstBytes
	out.text = strings.Join(texts, "|")
	return out, nil
}

func joinItems(items []rgItem) rgItem {
	var out rgItem
	var b strings.Builder
	for _, it := range items {
		b.WriteString(it.text)
		out.size = satAdd(out.size, it.size)
		out.reps = max(out.reps, it.reps)
	}
	out.text = b.String()
	return out
}

const satMax = int64(1) << 60

func satAdd(a, b int64) int64 { return min(a+b, satMax) }

func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > satMax/b {
		return satMax
	}
	return a * b
}

// rgCount is a counted repetition {n}, {n,} or {n,m} as rg reads it:
// '{' always opens one (there is no literal '{' outside a class or an
// escape), and whitespace around each number is allowed.
type rgCount struct {
	end        int    // just past '}'
	lo, hi     string // the digits (hi "" with comma: no upper bound)
	loAt, hiAt int
	comma      bool
}

// countAt reads the counted repetition whose '{' is at i, or returns
// rg's error for it.
func (t *rgTranslator) countAt(i int) (rgCount, error) {
	j := i + 1
	space := func() {
		for j < len(t.p) {
			r, n := utf8.DecodeRuneInString(t.p[j:])
			if !unicode.IsSpace(r) {
				return
			}
			j += n
		}
	}
	decimal := func() (string, int, error) {
		space()
		k := j
		for j < len(t.p) && t.p[j] >= '0' && t.p[j] <= '9' {
			j++
		}
		if j == k {
			if j >= len(t.p) {
				return "", k, t.errAt(i, len(t.p)-i, "unclosed counted repetition")
			}
			_, n := utf8.DecodeRuneInString(t.p[j:])
			return "", k, t.errAt(j, n, "repetition quantifier expects a valid decimal")
		}
		d := t.p[k:j]
		space()
		return d, k, nil
	}
	var c rgCount
	if j >= len(t.p) {
		return c, t.errAt(i, len(t.p)-i, "unclosed counted repetition")
	}
	var err error
	if c.lo, c.loAt, err = decimal(); err != nil {
		return c, err
	}
	if j < len(t.p) && t.p[j] == ',' {
		c.comma = true
		j++
		if j >= len(t.p) {
			return c, t.errAt(i, len(t.p)-i, "unclosed counted repetition")
		}
		if t.p[j] != '}' {
			if c.hi, c.hiAt, err = decimal(); err != nil {
				return c, err
			}
		}
	}
	if j >= len(t.p) || t.p[j] != '}' {
		return c, t.errAt(i, j-i, "unclosed counted repetition")
	}
	c.end = j + 1
	return c, nil
}

// repeat applies the repetition operator at t.i to it.
func (t *rgTranslator) repeat(it rgItem) (rgItem, error) {
	start := t.i
	lo, hi := int64(0), int64(-1)
	counted, comma := false, false
	switch t.p[t.i] {
	case '*':
		t.i++
	case '+':
		lo = 1
		t.i++
	case '?':
		hi = 1
		t.i++
	default:
		rc, err := t.countAt(t.i)
		if err != nil {
			return it, err
		}
		if lo, err = strconv.ParseInt(rc.lo, 10, 64); err != nil || lo > 1<<32-1 {
			return it, t.errAt(rc.loAt, len(rc.lo), "decimal literal invalid")
		}
		hi = lo
		if rc.comma {
			hi = -1
			if rc.hi != "" {
				if hi, err = strconv.ParseInt(rc.hi, 10, 64); err != nil || hi > 1<<32-1 {
					return it, t.errAt(rc.hiAt, len(rc.hi), "decimal literal invalid")
				}
			}
		}
		if hi >= 0 && lo > hi {
			return it, errRgFallback // Go reports it
		}
		t.i = rc.end
		counted, comma = true, rc.comma
	}
	lazy := t.i < len(t.p) && t.p[t.i] == '?'
	if lazy {
		t.i++
	}
	op := t.p[start:t.i]
	if counted {
		// written anew: rg reads a{01} as a{1} and a{ 2 } as a{2}; Go as text
		op = fmt.Sprintf("{%d}", lo)
		if comma {
			op = fmt.Sprintf("{%d,}", lo)
			if hi >= 0 {
				op = fmt.Sprintf("{%d,%d}", lo, hi)
			}
		}
		if lazy {
			op += "?"
		}
	}
	if it.repeated {
		it.text = "(?:" + it.text + ")"
	}
	if hi < 0 {
		it.size = satAdd(satMul(it.size, lo), it.size+rgInstBytes)
	} else {
		it.size = satAdd(satMul(it.size, lo), satMul(hi-lo, it.size+rgInstBytes))
	}
	if err := t.checkSize(it.size); err != nil {
		return it, err
	}
	it.repeated, it.atom = true, true
	k := max(it.reps, 1)
	m := hi
	if m < 0 {
		m = lo
	}
	if !counted || m <= 1 {
		it.text += op
		if counted {
			it.reps = k * max(m, 1)
		}
		return it, nil
	}
	if m <= 1000 && k <= 1000/m {
		it.text += op
		it.reps = k * m
		return it, nil
	}
	// Go takes at most 1000 copies per repetition, nested ones together:
	// a concatenation of chunks of c copies each.
	c := 1000 / k
	g := "(?:" + it.text + ")"
	lz := ""
	if lazy {
		lz = "?"
	}
	var b strings.Builder
	b.WriteString("(?:")
	chunks := func(n int64, optional bool) {
		for n > 0 {
			step := min(n, c)
			switch {
			case optional:
				fmt.Fprintf(&b, "%s{0,%d}%s", g, step, lz)
			case step == 1:
				b.WriteString(g)
			default:
				fmt.Fprintf(&b, "%s{%d}", g, step)
			}
			n -= step
		}
	}
	chunks(lo, false)
	if hi < 0 {
		b.WriteString(g + "*" + lz)
	} else {
		chunks(hi-lo, true)
	}
	b.WriteString(")")
	it.text = b.String()
	it.reps = c * k
	return it, nil
}

// atom translates one atom at t.i, or a flag group (which changes the
// flags that follow it).
func (t *rgTranslator) atom(fl rgFlags, depth int) (rgItem, rgFlags, error) {
	start := t.i
	switch c := t.p[t.i]; c {
	case '(':
		return t.group(fl, depth)
	case '[':
		it, err := t.class(fl)
		return it, fl, err
	case '\\':
		it, err := t.escape(fl)
		return it, fl, err
	case '.':
		t.i++
		it, err := t.dot(fl)
		return it, fl, err
	case '^', '$':
		t.i++
		return rgItem{text: string(c), size: rgInstBytes, atom: true}, fl, nil
	}
	r, n := utf8.DecodeRuneInString(t.p[t.i:])
	t.i += n
	it, err := t.literal(r, t.p[start:t.i], fl, start)
	return it, fl, err
}

// group translates a group, or applies a flag group.
func (t *rgTranslator) group(fl rgFlags, depth int) (rgItem, rgFlags, error) {
	rest := t.p[t.i:]
	prefix, inner := "(", fl
	save := int64(2 * rgInstBytes) // a capture's two slots
	switch {
	case strings.HasPrefix(rest, "(?P<") || strings.HasPrefix(rest, "(?<") && !strings.HasPrefix(rest, "(?<=") && !strings.HasPrefix(rest, "(?<!"):
		j := strings.IndexByte(rest, '>')
		if j < 0 {
			return rgItem{}, fl, errRgFallback
		}
		prefix = rest[:j+1]
		t.i += j + 1
	case strings.HasPrefix(rest, "(?:"):
		prefix, save = "(?:", 0
		t.i += 3
	case strings.HasPrefix(rest, "(?"):
		j := strings.IndexAny(rest, ":)")
		if j < 0 {
			return rgItem{}, fl, errRgFallback
		}
		nfl, kept, ok := t.flags(fl, rest[2:j])
		if !ok {
			return rgItem{}, fl, errRgFallback // look-around, (?x) and the like: Go's error
		}
		t.i += j + 1
		if rest[j] == ')' {
			text := ""
			if kept != "" {
				text = "(?" + kept + ")"
			}
			return rgItem{text: text}, nfl, nil
		}
		prefix, inner, save = "(?"+kept+":", nfl, 0
	default:
		t.i++
	}
	it, err := t.seq(inner, depth+1)
	if err != nil {
		return rgItem{}, fl, err
	}
	if t.i >= len(t.p) {
		return rgItem{}, fl, errRgFallback // unclosed: Go's error
	}
	t.i++
	return rgItem{text: prefix + it.text + ")", size: it.size + save, reps: it.reps, atom: true}, fl, nil
}

// flags applies a flag group's letters to fl; kept is them without 'u',
// which Go does not know.
func (t *rgTranslator) flags(fl rgFlags, s string) (out rgFlags, kept string, ok bool) {
	if s == "" {
		return fl, "", false
	}
	on := true
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '-':
			on = false
			b.WriteByte(c)
		case 'i':
			fl.fold = on
			b.WriteByte(c)
		case 's':
			fl.dotNL = on
			b.WriteByte(c)
		case 'm', 'U':
			b.WriteByte(c)
		case 'u':
			fl.noUni = !on
			if !on {
				t.sawNoUni = true
			}
		default:
			return fl, "", false
		}
	}
	kept = strings.TrimSuffix(b.String(), "-")
	if kept == s {
		return fl, s, true
	}
	return fl, kept, true
}

// escape translates a backslash escape.
func (t *rgTranslator) escape(fl rgFlags) (rgItem, error) {
	start := t.i
	if t.i+1 >= len(t.p) {
		return rgItem{}, errRgFallback // trailing backslash: Go's error
	}
	c := t.p[t.i+1]
	t.i += 2
	switch c {
	case 'Q':
		return rgItem{}, errRgFallback
	case 'x':
		if t.i < len(t.p) && t.p[t.i] == '{' {
			j := strings.IndexByte(t.p[t.i:], '}')
			if j < 0 {
				return rgItem{}, errRgFallback
			}
			t.i += j + 1
		} else {
			t.i = min(t.i+2, len(t.p))
		}
		text := t.p[start:t.i]
		r, ok := escapedRune(text)
		if !ok {
			return rgItem{}, errRgFallback
		}
		if fl.noUni {
			if r > 0xFF || r >= utf8.RuneSelf && strings.HasPrefix(text, `\x{`) {
				return rgItem{}, t.errAt(start, t.i-start, "Unicode not allowed here")
			}
			if r >= utf8.RuneSelf {
				return rgItem{text: fmt.Sprintf(`(?-i:\x{%X})`, r), size: rgInstBytes, atom: true}, nil
			}
		}
		return t.literal(r, text, fl, start)
	case 'p', 'P':
		if t.i < len(t.p) && t.p[t.i] == '{' {
			j := strings.IndexByte(t.p[t.i:], '}')
			if j < 0 {
				return rgItem{}, errRgFallback
			}
			t.i += j + 1
		} else if t.i < len(t.p) {
			_, n := utf8.DecodeRuneInString(t.p[t.i:])
			t.i += n
		}
		if fl.noUni {
			return rgItem{}, t.errAt(start, t.i-start, "Unicode not allowed here")
		}
		return t.property(start, fl)
	case 'd', 'D', 'w', 'W', 's', 'S':
		text := t.p[start:t.i]
		if fl.noUni {
			return t.classItem(text, text, fl, true)
		}
		// rg's are Unicode: sized so, and spelled so on the Latin-1 image
		it, err := t.classItem(text, uniClass(c, false), fl, !t.latin1)
		if !t.latin1 {
			it.text = text
		}
		return it, err
	}
	if c >= utf8.RuneSelf {
		return rgItem{}, errRgFallback
	}
	return rgItem{text: t.p[start:t.i], size: rgInstBytes, atom: true}, nil
}

// escapedRune is the character of a \xHH or \x{H...} escape.
func escapedRune(text string) (rune, bool) {
	h := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(text, `\x`), "{"), "}")
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil || v > unicode.MaxRune {
		return 0, false
	}
	return rune(v), true
}

// property translates \pX, \p{Name} and their negations.
func (t *rgTranslator) property(start int, fl rgFlags) (rgItem, error) {
	text := t.p[start:t.i]
	name := strings.TrimSuffix(strings.TrimPrefix(text[2:], "{"), "}")
	neg := text[1] == 'P'
	if strings.HasPrefix(name, "^") {
		name, neg = name[1:], !neg
	}
	if goKnowsProperty(name) && !strings.HasPrefix(text[2:], "{^") {
		return t.classItem(text, text, fl, !t.latin1)
	}
	rs, err := unicodeProperty(name)
	if err != nil {
		return rgItem{}, t.errAt(start, t.i-start, err.Error())
	}
	cls := rangesClass(rs, neg)
	return t.classItem(cls, cls, fl, !t.latin1)
}

// dot translates '.'.
func (t *rgTranslator) dot(fl rgFlags) (rgItem, error) {
	if !t.latin1 || fl.noUni {
		size := int64(rgInstBytes)
		if !fl.noUni {
			size = utf8Size(anyRanges(fl.dotNL))
		}
		return rgItem{text: ".", size: size, atom: true}, nil
	}
	return t.encoded(anyRanges(fl.dotNL)), nil
}

func anyRanges(nl bool) []rune {
	if nl {
		return []rune{0, unicode.MaxRune}
	}
	return []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}
}

// literal translates one character (text is how the pattern spells it).
func (t *rgTranslator) literal(r rune, text string, fl rgFlags, pos int) (rgItem, error) {
	if r < utf8.RuneSelf {
		size := int64(rgInstBytes)
		if fl.fold && unicode.SimpleFold(r) != r {
			size = 3 * rgInstBytes
		}
		if t.latin1 && fl.fold && !fl.noUni && (r|0x20 == 'k' || r|0x20 == 's') {
			// Unicode folding adds the Kelvin sign and the long s
			return t.encoded(foldRanges(r)), nil
		}
		return rgItem{text: text, size: size, atom: true}, nil
	}
	if fl.noUni {
		return rgItem{}, t.errAt(pos, len(text), "Unicode not allowed here")
	}
	rs := []rune{r, r}
	if fl.fold {
		rs = foldRanges(r)
	}
	if t.latin1 {
		return t.encoded(rs), nil
	}
	return rgItem{text: text, size: utf8Size(rs), atom: true}, nil
}

// foldRanges is the class of r and the characters it folds to.
func foldRanges(r rune) []rune {
	rs := []rune{r, r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		rs = append(rs, f, f)
	}
	return normRanges(rs)
}

// class translates a bracketed class.
func (t *rgTranslator) class(fl rgFlags) (rgItem, error) {
	start := t.i
	j := t.i + 1
	if j < len(t.p) && t.p[j] == '^' {
		j++
	}
	if j < len(t.p) && t.p[j] == ']' {
		j++
	}
	for j < len(t.p) && t.p[j] != ']' {
		switch {
		case t.p[j] == '\\':
			j += 2
			if j < len(t.p) && (t.p[j-1] == 'p' || t.p[j-1] == 'P' || t.p[j-1] == 'x') && t.p[j] == '{' {
				if k := strings.IndexByte(t.p[j:], '}'); k >= 0 {
					j += k + 1
				}
			}
		case t.p[j] == '[' && j+1 < len(t.p) && t.p[j+1] == ':':
			if k := strings.Index(t.p[j:], ":]"); k > 0 {
				j += k + 2
			} else {
				j++
			}
		default:
			j++
		}
	}
	if j >= len(t.p) {
		return rgItem{}, errRgFallback // unclosed: Go's error
	}
	t.i = j + 1
	text := t.p[start:t.i]
	goText, err := t.classProperties(text, start, fl)
	if err != nil {
		return rgItem{}, err
	}
	if fl.noUni {
		return t.classItem(text, goText, fl, true)
	}
	u, _ := unicodeClasses(goText) // rg's \w \d \s are Unicode
	it, err := t.classItem(goText, u, fl, !t.latin1)
	if !t.latin1 {
		it.text = goText
	}
	return it, err
}

// classProperties replaces the \p{...} in a class that Go does not know
// with their ranges; under (?-u) any non-ASCII member is an error.
func (t *rgTranslator) classProperties(text string, start int, fl rgFlags) (string, error) {
	var err error
	off := 0
	out := rewritePattern(text, func(tok string, inClass bool) string {
		pos := start + off
		off += len(tok)
		if err != nil {
			return tok
		}
		if fl.noUni && (tok[0] >= utf8.RuneSelf || tok == `\p` || tok == `\P`) {
			n := len(tok)
			if tok[0] >= utf8.RuneSelf {
				_, n = utf8.DecodeRuneInString(text[pos-start:])
			}
			err = t.errAt(pos, n, "Unicode not allowed here")
		}
		return tok
	})
	if err != nil || !strings.Contains(text, `\p`) && !strings.Contains(text, `\P`) {
		return out, err
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		if text[i] != '\\' || i+1 >= len(text) {
			b.WriteByte(text[i])
			i++
			continue
		}
		if text[i+1] != 'p' && text[i+1] != 'P' {
			b.WriteString(text[i : i+2])
			i += 2
			continue
		}
		j := i + 2
		if j < len(text) && text[j] == '{' {
			if k := strings.IndexByte(text[j:], '}'); k >= 0 {
				j += k + 1
			}
		} else if j < len(text) {
			_, n := utf8.DecodeRuneInString(text[j:])
			j += n
		}
		esc := text[i:j]
		name := strings.TrimSuffix(strings.TrimPrefix(esc[2:], "{"), "}")
		if goKnowsProperty(name) {
			b.WriteString(esc)
		} else {
			rs, perr := unicodeProperty(name)
			if perr != nil {
				return "", t.errAt(start+i, j-i, perr.Error())
			}
			cls := rangesClass(rs, esc[1] == 'P')
			b.WriteString(strings.TrimSuffix(strings.TrimPrefix(cls, "["), "]"))
		}
		i = j
	}
	return b.String(), nil
}

// classItem is a class (goText, in Go's syntax, rg's \w \d \s already
// Unicode where they are meant so) emitted as text (keep) or, for the
// Latin-1 image, as its bytes (under (?-u)) or its UTF-8 sequences.
func (t *rgTranslator) classItem(text, goText string, fl rgFlags, keep bool) (rgItem, error) {
	rs, ok := classRanges(goText, fl.fold && !fl.noUni)
	if !ok {
		return rgItem{}, errRgFallback
	}
	if fl.noUni {
		if t.latin1 {
			return t.byteClass(goText, fl), nil
		}
		return rgItem{text: text, size: rgInstBytes * max(1, int64(len(rs)/2)), atom: true}, nil
	}
	if keep {
		return rgItem{text: text, size: utf8Size(rs), atom: true}, nil
	}
	return t.encoded(rs), nil
}

// classRanges parses a class (or escape, or '.') with Go's parser.
func classRanges(goText string, fold bool) ([]rune, bool) {
	f := syntax.Perl
	if fold {
		f |= syntax.FoldCase
	}
	re, err := syntax.Parse(goText, f)
	if err != nil {
		return nil, false
	}
	switch re.Op {
	case syntax.OpCharClass:
		return re.Rune, true
	case syntax.OpLiteral:
		if len(re.Rune) == 1 {
			if re.Flags&syntax.FoldCase != 0 {
				return foldRanges(re.Rune[0]), true
			}
			return []rune{re.Rune[0], re.Rune[0]}, true
		}
	case syntax.OpAnyChar:
		return anyRanges(true), true
	case syntax.OpAnyCharNotNL:
		return anyRanges(false), true
	case syntax.OpNoMatch:
		return nil, true
	}
	return nil, false
}

// byteClass is a class under (?-u) on the Latin-1 image: its members are
// bytes, and only ASCII letters fold.
func (t *rgTranslator) byteClass(goText string, fl rgFlags) rgItem {
	neg := strings.HasPrefix(goText, "[^")
	pos := goText
	switch {
	case neg:
		pos = "[" + goText[2:]
	case !strings.HasPrefix(goText, "["):
		// \w \W \d \D \s \S: Go's are ASCII
		return rgItem{text: goText, size: rgInstBytes, atom: true}
	}
	rs, _ := classRanges(pos, false)
	var bs []rune
	for i := 0; i+1 < len(rs); i += 2 {
		if rs[i] > 0xFF {
			break
		}
		bs = append(bs, rs[i], min(rs[i+1], 0xFF))
	}
	if fl.fold {
		for i, n := 0, len(bs); i+1 < n; i += 2 {
			for c := max(bs[i], 'A'); c <= min(bs[i+1], 'z'); c++ {
				if c|0x20 >= 'a' && c|0x20 <= 'z' {
					bs = append(bs, c^0x20, c^0x20)
				}
			}
		}
		bs = normRanges(bs)
	}
	if neg {
		bs = complementRanges(bs, 0xFF)
	}
	return rgItem{text: "(?-i:" + rangesClass(bs, false) + ")", size: rgInstBytes * max(1, int64(len(bs)/2)), atom: true}
}

// encoded is the class rs as the UTF-8 byte sequences of its members, on
// the Latin-1 image of the haystack.
func (t *rgTranslator) encoded(rs []rune) rgItem {
	seqs := utf8Sequences(rs)
	if len(seqs) == 0 {
		return rgItem{text: `[^\x00-\x{10FFFF}]`, size: rgInstBytes, atom: true}
	}
	var b strings.Builder
	b.WriteString("(?-i:(?:")
	for i, s := range seqs {
		if i > 0 {
			b.WriteByte('|')
		}
		for _, r := range s {
			if r.lo == r.hi {
				fmt.Fprintf(&b, `\x{%X}`, r.lo)
			} else {
				fmt.Fprintf(&b, `[\x{%X}-\x{%X}]`, r.lo, r.hi)
			}
		}
	}
	b.WriteString("))")
	return rgItem{text: b.String(), size: utf8Size(rs), atom: true}
}

// rangesClass spells ranges (lo, hi pairs) as a Go class.
func rangesClass(rs []rune, neg bool) string {
	var b strings.Builder
	b.WriteByte('[')
	if neg {
		b.WriteByte('^')
	}
	if len(rs) == 0 {
		if neg {
			return `[\x00-\x{10FFFF}]`
		}
		return `[^\x00-\x{10FFFF}]`
	}
	for i := 0; i+1 < len(rs); i += 2 {
		if rs[i] == rs[i+1] {
			fmt.Fprintf(&b, `\x{%X}`, rs[i])
		} else {
			fmt.Fprintf(&b, `\x{%X}-\x{%X}`, rs[i], rs[i+1])
		}
	}
	b.WriteByte(']')
	return b.String()
}

// goPatterns translates each pattern of o to Go's syntax (rg's
// -F patterns are quoted); latin1: they are for the Latin-1 image of the
// haystack, because one switches Unicode off.
func goPatterns(o MatchOptions, fold bool) (alts []string, latin1 bool, err error) {
	limit := o.RegexSizeLimit
	if limit == 0 {
		limit = DefaultRegexSizeLimit
	}
	limit = max(limit, 0) // (negative: --regex-size-limit 0)
	if o.Fixed {
		for _, p := range o.Patterns {
			alts = append(alts, regexp.QuoteMeta(p))
		}
		return alts, false, nil
	}
	for pass := 0; pass < 2; pass++ {
		alts = alts[:0]
		for _, p := range o.Patterns {
			tr, err := translateRg(p, limit, rgFlags{fold: fold, dotNL: o.DotAll, noUni: o.NoUnicode}, latin1)
			if err != nil {
				return nil, false, err
			}
			if _, err := syntax.Parse(tr.expr, syntax.Perl); err != nil {
				return nil, false, regexError(p, err)
			}
			latin1 = latin1 || tr.noUni
			alts = append(alts, tr.expr)
		}
		if !latin1 || pass == 1 {
			break
		}
	}
	return alts, latin1, nil
}
