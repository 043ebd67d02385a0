package render

import (
	"fmt"
	"strings"
	"unicode"
)

// DiffLine is one line of a unified diff (ours, from lib/edit, or pi's
// numbered variant) classified for display, with the spans of Text that
// changed against its paired line.
type DiffLine struct {
	Kind    byte   // '+', '-', ' ', '@' (hunk header or pi's "..."), 'h' (file header)
	Text    string // the line without its +/-/space marker
	Changed [][2]int
}

// ParseDiff classifies the lines of a diff and pairs each run of removed
// lines with the run of added lines after it, when both have the same
// length, to find the words that changed.
func ParseDiff(diff string) []DiffLine {
	var out []DiffLine
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ "):
			out = append(out, DiffLine{Kind: 'h', Text: l})
		case strings.HasPrefix(l, "@@"), strings.TrimSpace(l) == "...":
			out = append(out, DiffLine{Kind: '@', Text: l})
		case l == "":
			out = append(out, DiffLine{Kind: ' '})
		case l[0] == '+' || l[0] == '-' || l[0] == ' ':
			out = append(out, DiffLine{Kind: l[0], Text: l[1:]})
		default:
			out = append(out, DiffLine{Kind: ' ', Text: l})
		}
	}
	for i := 0; i < len(out); {
		if out[i].Kind != '-' {
			i++
			continue
		}
		j := i
		for j < len(out) && out[j].Kind == '-' {
			j++
		}
		k := j
		for k < len(out) && out[k].Kind == '+' {
			k++
		}
		if k-j == j-i {
			for n := 0; n < j-i; n++ {
				out[i+n].Changed, out[j+n].Changed = WordDiff(out[i+n].Text, out[j+n].Text)
			}
		}
		i = k
	}
	return out
}

// Diff renders a unified diff: removed lines red, added green, the changed
// words of a changed line reversed, at most DiffLines lines.
func (r *Renderer) Diff(diff string) string {
	var b strings.Builder
	lines := ParseDiff(diff)
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
			b.WriteString(r.sty(cyan, "  "+clip(l.Text, r.o.Width-2)) + "\n")
		case ' ':
			b.WriteString(r.sty(gray, "   "+clip(text, r.o.Width-3)) + "\n")
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
	c := strings.ReplaceAll(clip(s, n), "\t", " ")
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

// WordDiff finds the byte spans of a and of b that are not in their longest
// common subsequence of words (runs of letters and digits, runs of spaces,
// single other characters). Very long lines are not compared (nil spans).
func WordDiff(a, b string) (da, db [][2]int) {
	ta, tb := words(a), words(b)
	if len(ta)*len(tb) > 250_000 {
		return nil, nil
	}
	// lcs[i][j] = length of the LCS of ta[i:] and tb[j:]
	lcs := make([][]int, len(ta)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(tb)+1)
	}
	for i := len(ta) - 1; i >= 0; i-- {
		for j := len(tb) - 1; j >= 0; j-- {
			if ta[i].s == tb[j].s {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	add := func(spans [][2]int, t tok) [][2]int {
		if n := len(spans); n > 0 && spans[n-1][1] == t.at {
			spans[n-1][1] = t.at + len(t.s)
			return spans
		}
		return append(spans, [2]int{t.at, t.at + len(t.s)})
	}
	i, j := 0, 0
	for i < len(ta) || j < len(tb) {
		switch {
		case i < len(ta) && j < len(tb) && ta[i].s == tb[j].s:
			i, j = i+1, j+1
		case j == len(tb) || (i < len(ta) && lcs[i+1][j] >= lcs[i][j+1]):
			da = add(da, ta[i])
			i++
		default:
			db = add(db, tb[j])
			j++
		}
	}
	return da, db
}

type tok struct {
	s  string
	at int
}

func words(s string) []tok {
	var out []tok
	class := func(r rune) int {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			return 1
		case unicode.IsSpace(r):
			return 2
		}
		return 0
	}
	start, prev := 0, -1
	for i, r := range s {
		c := class(r)
		if i > 0 && (c != prev || c == 0) {
			out = append(out, tok{s[start:i], start})
			start = i
		}
		prev = c
	}
	if start < len(s) {
		out = append(out, tok{s[start:], start})
	}
	return out
}
