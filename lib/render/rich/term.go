package rich

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Terminal is lib/render's Styler: markdown parsed by goldmark and drawn
// with ANSI styles, paragraphs wrapped to the width, code highlighted.
type Terminal struct{}

var _ interface {
	Markdown(string, int) string
	Code(string, string) string
} = Terminal{}

var termMD = newMarkdown()

// Code highlights one line of code.
func (Terminal) Code(line, lang string) string { return highlightTerm(line, lang) }

// Markdown renders complete lines of markdown for the terminal.
func (Terminal) Markdown(src string, width int) string {
	if width <= 0 {
		width = 80
	}
	// lib/render sends a line at a time: keep its indentation (a nested
	// list item) that goldmark, seeing the line alone, would drop.
	lead := ""
	if !strings.Contains(src, "\n") {
		lead = src[:len(src)-len(strings.TrimLeft(src, " \t"))]
		if len(lead) >= 4 { // not an indented code block: a continuation line
			src = strings.TrimLeft(src, " \t")
		}
	}
	s := []byte(src)
	doc := termMD.Parser().Parse(text.NewReader(s))
	t := &term{src: s, width: width}
	t.blocks(doc, lead, lead)
	if len(t.out) == 0 {
		return src + "\n"
	}
	return strings.Join(t.out, "\n") + "\n"
}

type term struct {
	src   []byte
	width int
	out   []string
}

// SGR pairs that switch one attribute on and off, so styles nest.
func sgr(on, off, s string) string { return "\x1b[" + on + "m" + s + "\x1b[" + off + "m" }

func (t *term) blocks(n ast.Node, first, rest string) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		t.block(c, first, rest)
		first = rest
	}
}

func (t *term) block(n ast.Node, first, rest string) {
	switch n := n.(type) {
	case *ast.Heading:
		s := t.inline(n)
		switch n.Level {
		case 1:
			s = sgr("1;4;35", "22;24;39", s)
		case 2:
			s = sgr("1;35", "22;39", s)
		default:
			s = sgr("1;34", "22;39", s)
		}
		t.wrap(s, first, rest)
	case *ast.Paragraph, *ast.TextBlock:
		t.wrap(t.inline(n), first, rest)
	case *ast.List:
		i := n.Start
		if i == 0 {
			i = 1
		}
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			mark := "• "
			if n.IsOrdered() {
				mark = fmt.Sprintf("%d%c ", i, n.Marker)
				i++
			}
			t.blocks(item, first+sgr("36", "39", mark), rest+strings.Repeat(" ", utf8.RuneCountInString(mark)))
			first = rest
		}
	case *ast.Blockquote:
		bar := sgr("90", "39", "│ ")
		t.blocks(n, first+bar, rest+bar)
	case *ast.ThematicBreak:
		t.out = append(t.out, first+sgr("90", "39", strings.Repeat("─", min(t.width-len(first), 40))))
	case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
		lang := ""
		if f, ok := n.(*ast.FencedCodeBlock); ok {
			lang = string(f.Language(t.src))
		}
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			l := strings.TrimRight(string(seg.Value(t.src)), "\n")
			t.out = append(t.out, first+highlightTerm(l, lang))
			first = rest
		}
	case *east.Table:
		t.table(n, first)
	default:
		if n.HasChildren() {
			t.blocks(n, first, rest)
		}
	}
}

// inline renders the inline content of a block on one line.
func (t *term) inline(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(t.src))
			switch {
			case c.HardLineBreak():
				b.WriteString("\n")
			case c.SoftLineBreak():
				b.WriteString(" ")
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			b.WriteString(sgr("36", "39", t.plain(c)))
		case *ast.Emphasis:
			if c.Level >= 2 {
				b.WriteString(sgr("1", "22", t.inline(c)))
			} else {
				b.WriteString(sgr("3", "23", t.inline(c)))
			}
		case *east.Strikethrough:
			b.WriteString(sgr("9", "29", t.inline(c)))
		case *ast.Link:
			in := t.inline(c)
			b.WriteString(sgr("4;34", "24;39", in))
			if d := string(c.Destination); d != "" && d != t.plain(c) {
				b.WriteString(sgr("90", "39", " ("+d+")"))
			}
		case *ast.AutoLink:
			b.WriteString(sgr("4;34", "24;39", string(c.URL(t.src))))
		case *ast.Image:
			b.WriteString(sgr("90", "39", "[image: "+t.plain(c)+"]"))
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				b.Write(seg.Value(t.src))
			}
		case *east.TaskCheckBox:
			if c.IsChecked {
				b.WriteString("☑ ")
			} else {
				b.WriteString("☐ ")
			}
		default:
			b.WriteString(t.inline(c))
		}
	}
	return b.String()
}

// plain is the text of n's inline content without styles.
func (t *term) plain(n ast.Node) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(t.src))
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// wrap word-wraps s (which may hold SGR sequences) to the width, the
// first line after first and the others after rest.
func (t *term) wrap(s, first, rest string) {
	for _, para := range strings.Split(s, "\n") {
		line, lw := first, visible(first)
		empty := true
		for _, w := range strings.Fields(para) {
			ww := visible(w)
			if !empty && lw+1+ww > t.width {
				t.out = append(t.out, line)
				line, lw, empty = rest, visible(rest), true
			}
			if !empty {
				line += " "
				lw++
			}
			line += w
			lw += ww
			empty = false
		}
		t.out = append(t.out, line)
		first = rest
	}
}

// visible counts the runes of s that are not part of an escape sequence.
func visible(s string) int {
	n, esc := 0, false
	for _, r := range s {
		switch {
		case esc:
			if r >= '@' && r <= '~' && r != '[' {
				esc = false
			}
		case r == '\x1b':
			esc = true
		default:
			n++
		}
	}
	return n
}

func (t *term) table(tb *east.Table, indent string) {
	var rows [][]string
	for r := tb.FirstChild(); r != nil; r = r.NextSibling() {
		var row []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			row = append(row, t.inline(c))
		}
		rows = append(rows, row)
	}
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], visible(c))
		}
	}
	bar := func(l, m, r string) string {
		var parts []string
		for _, w := range widths {
			parts = append(parts, strings.Repeat("─", w+2))
		}
		return indent + sgr("90", "39", l+strings.Join(parts, m)+r)
	}
	sep := sgr("90", "39", "│")
	t.out = append(t.out, bar("┌", "┬", "┐"))
	for i, row := range rows {
		line := indent + sep
		for j, w := range widths {
			c := ""
			if j < len(row) {
				c = row[j]
			}
			if i == 0 {
				c = sgr("1", "22", c)
			}
			line += " " + c + strings.Repeat(" ", w-visible(c)) + " " + sep
		}
		t.out = append(t.out, line)
		if i == 0 {
			t.out = append(t.out, bar("├", "┼", "┤"))
		}
	}
	t.out = append(t.out, bar("└", "┴", "┘"))
}
