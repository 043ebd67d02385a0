// Package show holds the small pieces of presentation that the terminal
// renderer (lib/render) and the HTML export (lib/export) share: a tool
// call's one-line header, unified diffs parsed with their changed words,
// token counts and durations written short. It imports nothing of the
// project but the table of tools (lib/tooldef), so lib/export (linked by
// agent-session) stays light.
package show

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/agentutils/agentutils/lib/tooldef"
)

// ToolHeader is the one-line summary of a tool call, in the form the table
// of tools (lib/tooldef) gives the tool: "$ go test ./...", "read
// main.go:10-29", "edit main.go", "grep TODO lib"; other tools show their
// name and arguments on one line.
func ToolHeader(name string, args json.RawMessage) string {
	var a map[string]any
	json.Unmarshal(args, &a)
	str := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := a[k].(string); ok && v != "" {
				return v
			}
		}
		return ""
	}
	num := func(k string) int {
		f, _ := a[k].(float64)
		return int(f)
	}
	path := str("path", "file_path", "filePath")
	t, _ := tooldef.Lookup(name)
	switch t.Header {
	case tooldef.HeaderCommand:
		cmd := str("command", "cmd")
		first, rest, more := strings.Cut(strings.TrimSpace(cmd), "\n")
		if more && strings.TrimSpace(rest) != "" {
			first += " …"
		}
		return "$ " + first
	case tooldef.HeaderRange:
		off, lim := num("offset"), num("limit")
		switch {
		case lim > 0:
			path += fmt.Sprintf(":%d-%d", max(off, 1), max(off, 1)+lim-1)
		case off > 0:
			path += fmt.Sprintf(":%d-", off)
		}
		return name + " " + path
	case tooldef.HeaderPath:
		return name + " " + path
	case tooldef.HeaderPattern:
		s := name + " " + str("pattern")
		if path != "" {
			s += " " + path
		}
		return s
	case tooldef.HeaderGlob:
		return name + " " + str("pattern")
	case tooldef.HeaderURL:
		return name + " " + str("url")
	case tooldef.HeaderPrompt:
		s := name
		if h := str("host"); h != "" {
			s += " @" + h
		}
		if ag := str("agent"); ag != "" {
			s += " " + ag + ":"
		}
		first, _, _ := strings.Cut(strings.TrimSpace(str("prompt")), "\n")
		return s + " " + OneLine(first, 120)
	case tooldef.HeaderDir:
		if path == "" {
			path = "."
		}
		return name + " " + path
	}
	if len(a) == 0 {
		return name
	}
	return name + " " + OneLine(string(args), 200)
}

// Elapsed writes a duration short: 85ms, 1.2s, 2m05s.
func Elapsed(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	default:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
}

// Tokens writes a token count short: 950, 12.3k, 1.2M.
func Tokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 100_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	default:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
	}
}

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
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	return Clip(s, n)
}

// clip cuts s to n runes, marking the cut with "…".
func Clip(s string, n int) string {
	if n < 2 {
		n = 2
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
