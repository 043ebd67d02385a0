package render

import (
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/lib/render/show"
)

// Diff renders a unified diff: removed lines red, added green, the changed
// words of a changed line reversed, at most DiffLines lines.
func (r *Renderer) Diff(diff string) string {
	var b strings.Builder
	lines := show.ParseDiff(diff)
	shown := 0
	for i, l := range lines {
		if l.Kind == 'h' {
			continue
		}
		if shown == r.o.DiffLines {
			rest := 0
			for _, m := range lines[i:] {
				if m.Kind != 'h' {
					rest++
				}
			}
			b.WriteString(r.sty(gray, fmt.Sprintf("  … %d more lines", rest)) + "\n")
			break
		}
		shown++
		text := expandTabs(l.Text)
		switch l.Kind {
		case '@':
			b.WriteString(r.sty(cyan, "  "+show.Clip(l.Text, r.o.Width-2)) + "\n")
		case ' ':
			b.WriteString(r.sty(gray, "   "+show.Clip(text, r.o.Width-3)) + "\n")
		default:
			code := red
			if l.Kind == '+' {
				code = green
			}
			b.WriteString("  " + r.marked(code, string(l.Kind)+l.Text, l.Changed, r.o.Width-2) + "\n")
		}
	}
	return b.String()
}

// marked styles s (a marker byte then the text the spans index, shifted
// by one) in code with the spans reversed, tabs expanded, clipped to n
// columns.
func (r *Renderer) marked(code, s string, spans [][2]int, n int) string {
	cols := func(c rune) int {
		if c == '\t' {
			return 4
		}
		return 1
	}
	total := 0
	for _, c := range s {
		total += cols(c)
	}
	limit := total
	if total > n {
		limit = n - 1
	}
	var b strings.Builder
	if r.o.Color {
		b.WriteString("\x1b[" + code + "m")
	}
	in, used := false, 0
	for i, c := range s {
		if used+cols(c) > limit {
			break
		}
		if r.o.Color {
			want := false
			for _, sp := range spans {
				if i-1 >= sp[0] && i-1 < sp[1] {
					want = true
					break
				}
			}
			if want != in {
				if want {
					b.WriteString("\x1b[7m")
				} else {
					b.WriteString("\x1b[27m")
				}
				in = want
			}
		}
		if c == '\t' {
			b.WriteString("    ")
		} else {
			b.WriteRune(c)
		}
		used += cols(c)
	}
	if in {
		b.WriteString("\x1b[27m")
	}
	if limit < total {
		b.WriteString("…")
	}
	if r.o.Color {
		b.WriteString("\x1b[0m")
	}
	return b.String()
}
