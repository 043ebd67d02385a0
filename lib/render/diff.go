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
// by one) in code with the spans reversed, clipped to n runes.
func (r *Renderer) marked(code, s string, spans [][2]int, n int) string {
	c := strings.ReplaceAll(show.Clip(s, n), "\t", " ")
	if !r.o.Color {
		return c
	}
	end := len(c)
	if len(c) != len(s) {
		end -= len("…")
	}
	s = c
	var b strings.Builder
	b.WriteString("\x1b[" + code + "m")
	at := 0
	for _, sp := range spans {
		lo, hi := min(sp[0]+1, end), min(sp[1]+1, end)
		if lo < at || lo >= hi {
			continue
		}
		b.WriteString(s[at:lo] + "\x1b[7m" + s[lo:hi] + "\x1b[27m")
		at = hi
	}
	b.WriteString(s[at:] + "\x1b[0m")
	return b.String()
}
