package tui

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// editor is the prompt's multi-line text: runes by line and a cursor. It
// keeps what was typed or pasted as it is (tabs too); view shows a tab as
// spaces.
type editor struct {
	lines [][]rune
	row   int
	col   int
	// history: older prompts first; hpos == len(hist) is the draft.
	hist  []string
	hpos  int
	draft string
}

func newEditor(hist []string) *editor {
	return &editor{lines: [][]rune{nil}, hist: hist, hpos: len(hist)}
}

func (e *editor) String() string {
	s := make([]string, len(e.lines))
	for i, l := range e.lines {
		s[i] = string(l)
	}
	return strings.Join(s, "\n")
}

func (e *editor) Empty() bool { return len(e.lines) == 1 && len(e.lines[0]) == 0 }

// Set replaces the text and puts the cursor at its end.
func (e *editor) Set(s string) {
	e.lines = nil
	for _, l := range strings.Split(s, "\n") {
		e.lines = append(e.lines, []rune(l))
	}
	e.row = len(e.lines) - 1
	e.col = len(e.lines[e.row])
}

func (e *editor) Reset() { e.Set(""); e.hpos = len(e.hist) }

// Insert puts text at the cursor; "\r\n" and "\r" count as newlines.
func (e *editor) Insert(s string) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	for i, part := range strings.Split(s, "\n") {
		if i > 0 {
			e.Newline()
		}
		rs := []rune(part)
		l := e.lines[e.row]
		nl := make([]rune, 0, len(l)+len(rs))
		nl = append(append(append(nl, l[:e.col]...), rs...), l[e.col:]...)
		e.lines[e.row] = nl
		e.col += len(rs)
	}
}

func (e *editor) Newline() {
	l := e.lines[e.row]
	rest := append([]rune(nil), l[e.col:]...)
	e.lines[e.row] = l[:e.col]
	e.lines = append(e.lines[:e.row+1], append([][]rune{rest}, e.lines[e.row+1:]...)...)
	e.row++
	e.col = 0
}

func (e *editor) Backspace() {
	switch {
	case e.col > 0:
		l := e.lines[e.row]
		e.lines[e.row] = append(l[:e.col-1], l[e.col:]...)
		e.col--
	case e.row > 0:
		prev := e.lines[e.row-1]
		e.col = len(prev)
		e.lines[e.row-1] = append(prev, e.lines[e.row]...)
		e.lines = append(e.lines[:e.row], e.lines[e.row+1:]...)
		e.row--
	}
}

func (e *editor) Delete() {
	l := e.lines[e.row]
	switch {
	case e.col < len(l):
		e.lines[e.row] = append(l[:e.col], l[e.col+1:]...)
	case e.row < len(e.lines)-1:
		e.lines[e.row] = append(l, e.lines[e.row+1]...)
		e.lines = append(e.lines[:e.row+1], e.lines[e.row+2:]...)
	}
}

// DeleteWord removes the word before the cursor (^W).
func (e *editor) DeleteWord() {
	l := e.lines[e.row]
	i := e.col
	for i > 0 && unicode.IsSpace(l[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(l[i-1]) {
		i--
	}
	e.lines[e.row] = append(l[:i], l[e.col:]...)
	e.col = i
}

// KillLine removes from the cursor to the end of the line (^K).
func (e *editor) KillLine() { e.lines[e.row] = e.lines[e.row][:e.col] }

// KillStart removes from the start of the line to the cursor (^U).
func (e *editor) KillStart() {
	e.lines[e.row] = append([]rune(nil), e.lines[e.row][e.col:]...)
	e.col = 0
}

func (e *editor) Left() {
	if e.col > 0 {
		e.col--
	} else if e.row > 0 {
		e.row--
		e.col = len(e.lines[e.row])
	}
}

func (e *editor) Right() {
	if e.col < len(e.lines[e.row]) {
		e.col++
	} else if e.row < len(e.lines)-1 {
		e.row++
		e.col = 0
	}
}

func (e *editor) Home() { e.col = 0 }
func (e *editor) End()  { e.col = len(e.lines[e.row]) }

// Up moves a line up, or at the first line to the previous prompt of the
// history; Down the other way.
func (e *editor) Up() {
	if e.row > 0 {
		e.row--
		e.col = min(e.col, len(e.lines[e.row]))
		return
	}
	if e.hpos > 0 {
		if e.hpos == len(e.hist) {
			e.draft = e.String()
		}
		e.hpos--
		e.Set(e.hist[e.hpos])
	}
}

func (e *editor) Down() {
	if e.row < len(e.lines)-1 {
		e.row++
		e.col = min(e.col, len(e.lines[e.row]))
		return
	}
	if e.hpos < len(e.hist) {
		e.hpos++
		if e.hpos == len(e.hist) {
			e.Set(e.draft)
		} else {
			e.Set(e.hist[e.hpos])
		}
	}
}

// Remember adds a submitted prompt to the history (not a repeat of the last).
func (e *editor) Remember(s string) {
	if len(e.hist) == 0 || e.hist[len(e.hist)-1] != s {
		e.hist = append(e.hist, s)
	}
	e.hpos = len(e.hist)
}

// WordBeforeCursor is the whitespace-delimited word ending at the cursor
// (what completion completes).
func (e *editor) WordBeforeCursor() string {
	l := e.lines[e.row]
	i := e.col
	for i > 0 && !unicode.IsSpace(l[i-1]) {
		i--
	}
	return string(l[i:e.col])
}

// ReplaceWordBeforeCursor swaps that word for s.
func (e *editor) ReplaceWordBeforeCursor(s string) {
	w := []rune(e.WordBeforeCursor())
	l := e.lines[e.row]
	start := e.col - len(w)
	nl := append(append(append([]rune(nil), l[:start]...), []rune(s)...), l[e.col:]...)
	e.lines[e.row] = nl
	e.col = start + len([]rune(s))
}

// View draws the text with prompt marks, wrapped at width, the cursor shown
// as a reversed cell.
func (e *editor) View(width int, focus bool) string {
	var b strings.Builder
	for i, l := range e.lines {
		mark := "> "
		if i > 0 {
			mark = "  "
		}
		var line strings.Builder
		for j, r := range l {
			s := string(r)
			if r == '\t' {
				s = "    "
			}
			if focus && i == e.row && j == e.col {
				s = "\x1b[7m" + s[:len(string([]rune(s)[0]))] + "\x1b[27m" + s[len(string([]rune(s)[0])):]
			}
			line.WriteString(s)
		}
		if focus && i == e.row && e.col == len(l) {
			line.WriteString("\x1b[7m \x1b[27m")
		}
		text := ansi.Hardwrap(line.String(), max(width-2, 10), false)
		for k, wl := range strings.Split(text, "\n") {
			if i > 0 || k > 0 {
				b.WriteByte('\n')
			}
			if k == 0 {
				b.WriteString(accent.Render(mark))
			} else {
				b.WriteString("  ")
			}
			b.WriteString(wl)
		}
	}
	return b.String()
}
