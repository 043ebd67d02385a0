// Package edit holds the edit algorithms of the edit tool, pure: text in,
// text (and a unified diff) out. Replace mode finds old text exactly, then
// by normalised, indentation-aware fuzzy matching over line windows, as the
// reference agent does, and errors show the closest candidates.
package edit

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"

	"github.com/agentutils/agentutils/lib/editdist"
)

// Threshold is the default fuzzy-match similarity.
const Threshold = 0.95

// File is a text file split into what edits work on (LF text) and what is
// restored when it is written back (BOM, line endings).
type File struct {
	Text string
	BOM  bool
	CRLF bool
}

// Parse normalises raw file content: a leading BOM is remembered and
// stripped; the line ending is CRLF when the first newline is \r\n; all
// \r\n and lone \r become \n.
func Parse(raw string) File {
	f := File{}
	if strings.HasPrefix(raw, "\uFEFF") {
		f.BOM, raw = true, strings.TrimPrefix(raw, "\uFEFF")
	}
	if i := strings.IndexByte(raw, '\n'); i > 0 && raw[i-1] == '\r' {
		f.CRLF = true
	}
	raw = strings.ReplaceAll(raw, "\r\n", "\n")
	f.Text = strings.ReplaceAll(raw, "\r", "\n")
	return f
}

// Render is the file content to write for text.
func (f File) Render(text string) string {
	if f.CRLF {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	if f.BOM {
		text = "\uFEFF" + text
	}
	return text
}

// Result is an edit's outcome.
type Result struct {
	Text             string
	Count            int    // occurrences replaced
	Diff             string // unified diff of the LF texts
	FirstChangedLine int
}

// Replace replaces oldText with newText in text (all occurrences with all).
// fuzzy allows the line-window match; threshold is its similarity (0: the
// default). path only names the file in messages.
func Replace(path, text, oldText, newText string, all, fuzzy bool, threshold float64) (Result, error) {
	if threshold <= 0 {
		threshold = Threshold
	}
	if oldText == "" {
		return Result{}, fmt.Errorf("old_text must not be empty.")
	}
	oldText = strings.ReplaceAll(oldText, "\r\n", "\n")
	newText = strings.ReplaceAll(newText, "\r\n", "\n")
	out, count := text, 0
	switch n := strings.Count(text, oldText); {
	case n == 1 || (n > 1 && all):
		out, count = strings.ReplaceAll(text, oldText, newText), n
	case n > 1:
		return Result{}, fmt.Errorf("Found %d occurrences in %s (showing first %d of %d):\n\n%s\n\nAdd more context lines to disambiguate.",
			n, path, min(n, 5), n, previews(text, oldText, 5))
	default:
		for {
			m := bestWindow(out, oldText)
			accepted := fuzzy && m.score >= threshold && (m.above == 1 || (m.score >= 0.97 && m.score-m.second >= 0.08))
			if !accepted {
				if count > 0 {
					break
				}
				return Result{}, noMatch(path, oldText, m, fuzzy, threshold)
			}
			lines := strings.Split(out, "\n")
			actual := strings.Join(lines[m.start:m.start+m.n], "\n")
			repl := adjustIndentation(oldText, actual, newText)
			if repl == actual {
				break
			}
			out = strings.Join(append(append(append([]string{}, lines[:m.start]...), strings.Split(repl, "\n")...), lines[m.start+m.n:]...), "\n")
			count++
			if !all {
				break
			}
		}
	}
	if out == text {
		return Result{}, fmt.Errorf("No changes made to %s. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.", path)
	}
	return Result{Text: out, Count: count, Diff: Diff(path, text, out), FirstChangedLine: firstChanged(text, out)}, nil
}

// Diff is the unified diff between two texts of path.
func Diff(path, a, b string) string {
	return udiff.Unified("a/"+path, "b/"+path, a, b)
}

func firstChanged(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}

func previews(text, target string, max int) string {
	var out []string
	lines := strings.Split(text, "\n")
	off := 0
	for k := 0; k < max; k++ {
		i := strings.Index(text[off:], target)
		if i < 0 {
			break
		}
		line := strings.Count(text[:off+i], "\n")
		var b strings.Builder
		for j := max0(line - 5); j <= min(line+5, len(lines)-1); j++ {
			l := lines[j]
			if utf8.RuneCountInString(l) > 79 {
				l = string([]rune(l)[:79]) + "…"
			}
			fmt.Fprintf(&b, "  %d | %s\n", j+1, l)
		}
		out = append(out, strings.TrimRight(b.String(), "\n"))
		off += i + len(target)
	}
	return strings.Join(out, "\n\n")
}

func max0(i int) int {
	if i < 0 {
		return 0
	}
	return i
}

type window struct {
	start, n      int
	score, second float64
	above         int // windows at or over the threshold
}

// bestWindow slides a window of the target's line count over text and
// scores each by mean per-line similarity of normalised, depth-tagged lines;
// below threshold but over 0.80 it retries without the depth.
func bestWindow(text, target string) window {
	tl := strings.Split(target, "\n")
	cl := strings.Split(text, "\n")
	w := scoreWindows(cl, tl, true)
	if w.score < Threshold && w.score >= 0.80 {
		if w2 := scoreWindows(cl, tl, false); w2.score > w.score {
			w = w2
		}
	}
	return w
}

func scoreWindows(cl, tl []string, depth bool) window {
	w := window{n: len(tl)}
	if len(tl) > len(cl) {
		return w
	}
	tn := normLines(tl, depth)
	cn := normLines(cl, depth)
	for s := 0; s+len(tl) <= len(cl); s++ {
		sum := 0.0
		for j := range tl {
			sum += similarity(cn[s+j], tn[j])
		}
		sc := sum / float64(len(tl))
		if sc >= Threshold {
			w.above++
		}
		switch {
		case sc > w.score:
			w.second, w.score, w.start = w.score, sc, s
		case sc > w.second:
			w.second = sc
		}
	}
	return w
}

func normLines(ls []string, depth bool) []string {
	unit, minIndent := indentUnit(ls)
	out := make([]string, len(ls))
	for i, l := range ls {
		t := NormalizeForFuzzy(l)
		if !depth {
			out[i] = t
			continue
		}
		d := 0
		if t != "" && unit > 0 {
			d = int(math.Round(float64(indentOf(l)-minIndent) / float64(unit)))
		}
		out[i] = fmt.Sprintf("%d|%s", d, t)
	}
	return out
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

func indentUnit(ls []string) (unit, minIndent int) {
	minIndent = -1
	for _, l := range ls {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := indentOf(l); minIndent < 0 || n < minIndent {
			minIndent = n
		}
	}
	if minIndent < 0 {
		minIndent = 0
	}
	for _, l := range ls {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if d := indentOf(l) - minIndent; d > 0 && (unit == 0 || d < unit) {
			unit = d
		}
	}
	return unit, minIndent
}

var fuzzyReplacer = strings.NewReplacer(
	"“", `"`, "”", `"`, "„", `"`, "‟", `"`, "«", `"`, "»", `"`,
	"‘", "'", "’", "'", "‚", "'", "‛", "'", "`", "'", "´", "'",
	"‐", "-", "‑", "-", "‒", "-", "–", "-", "—", "-", "−", "-",
)

// NormalizeForFuzzy trims a line, folds typographic quotes and dashes, and
// collapses runs of spaces and tabs.
func NormalizeForFuzzy(s string) string {
	s = fuzzyReplacer.Replace(strings.TrimSpace(s))
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' }), " ")
}

func similarity(a, b string) float64 {
	if a == b {
		return 1
	}
	ar, br := []rune(a), []rune(b)
	m := max(len(ar), len(br))
	if m == 0 {
		return 1
	}
	return 1 - float64(editdist.Distance(ar, br))/float64(m)
}

// adjustIndentation re-indents newText when the file's text (actual) is
// indented differently from what the model wrote (old): a uniform indent
// delta is applied to every non-blank line of newText.
func adjustIndentation(old, actual, newText string) string {
	if old == actual {
		return newText
	}
	ol, al := strings.Split(old, "\n"), strings.Split(actual, "\n")
	if len(ol) != len(al) {
		return newText
	}
	if conv, ok := convertIndent(ol, al, newText); ok {
		return conv
	}
	delta, set := 0, false
	for i := range ol {
		if strings.TrimSpace(ol[i]) == "" || strings.TrimSpace(al[i]) == "" {
			continue
		}
		if strings.ContainsRune(ol[i][:indentOf(ol[i])], '\t') != strings.ContainsRune(al[i][:indentOf(al[i])], '\t') {
			return newText
		}
		d := indentOf(al[i]) - indentOf(ol[i])
		if set && d != delta {
			return newText
		}
		delta, set = d, true
	}
	if delta == 0 {
		return newText
	}
	nl := strings.Split(newText, "\n")
	for i, l := range nl {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if delta > 0 {
			nl[i] = strings.Repeat(" ", delta) + l
		} else if indentOf(l) >= -delta {
			nl[i] = l[-delta:]
		}
	}
	return strings.Join(nl, "\n")
}

func noMatch(path, target string, m window, fuzzy bool, threshold float64) error {
	head := fmt.Sprintf("Could not find a close enough match in %s.", path)
	if !fuzzy {
		head = fmt.Sprintf("Could not find the exact text in %s. The old text must match exactly including all whitespace and newlines.", path)
	}
	if m.score <= 0 {
		return fmt.Errorf("%s", head)
	}
	hint := fmt.Sprintf("Closest match was below the %.0f%% similarity threshold.", threshold*100)
	switch {
	case !fuzzy:
		hint = "Fuzzy matching is disabled. Enable 'Edit fuzzy match' in settings to accept high-confidence matches."
	case m.above > 1:
		hint = fmt.Sprintf("Found %d high-confidence matches. Provide more context to make it unique.", m.above)
	}
	return fmt.Errorf("%s\n\nClosest match (%.0f%% similar) at line %d.\n%s", head, m.score*100, m.start+1, hint)
}

// convertIndent handles text indented with spaces where the file uses tabs
// (or the reverse), when every line pair agrees on one width per tab: the
// new text's leading indentation is converted the same way.
func convertIndent(ol, al []string, newText string) (string, bool) {
	lead := func(l string) string { return l[:indentOf(l)] }
	only := func(s string, c rune) bool { return strings.Trim(s, string(c)) == "" }
	var from, to rune
	unit := 0
	for i := range ol {
		o, a := lead(ol[i]), lead(al[i])
		if strings.TrimSpace(ol[i]) == "" || (o == "" && a == "") {
			continue
		}
		var f, t rune
		switch {
		case only(o, ' ') && only(a, '\t') && a != "":
			f, t = ' ', '\t'
		case only(o, '\t') && only(a, ' ') && o != "":
			f, t = '\t', ' '
		default:
			return "", false
		}
		if from != 0 && (f != from || t != to) {
			return "", false
		}
		from, to = f, t
		spaces, tabs := len(o), len(a)
		if f == '\t' {
			spaces, tabs = len(a), len(o)
		}
		if tabs == 0 || spaces%tabs != 0 {
			return "", false
		}
		if u := spaces / tabs; unit == 0 {
			unit = u
		} else if u != unit {
			return "", false
		}
	}
	if unit == 0 {
		return "", false
	}
	nl := strings.Split(newText, "\n")
	for i, l := range nl {
		ld := lead(l)
		if from == ' ' && only(ld, ' ') {
			nl[i] = strings.Repeat("\t", len(ld)/unit) + strings.Repeat(" ", len(ld)%unit) + l[len(ld):]
		} else if from == '\t' && only(ld, '\t') {
			nl[i] = strings.Repeat(" ", len(ld)*unit) + l[len(ld):]
		}
	}
	return strings.Join(nl, "\n"), true
}
