package render

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/lsp"
	"github.com/agentutils/agentutils/lib/render/show"
	"github.com/agentutils/agentutils/lib/tooldef"
)

func (r *Renderer) headerLine(t *tool, mark string) string {
	bullet := r.sty(cyan, "●")
	switch mark {
	case "ok":
		bullet = r.sty(green, "●")
	case "error":
		bullet = r.sty(red, "●")
	}
	return bullet + " " + r.sty(bold, show.Clip(t.header, r.o.Width-2))
}

// toolEnd prints a finished call: its header again when other output came
// between, then the diff or the last lines of its output, then the time.
func (r *Renderer) toolEnd(ev event.Event, t *tool) {
	isErr := ev.IsError != nil && *ev.IsError
	var text strings.Builder
	var diff, diags string
	images := 0
	if ev.Result != nil {
		for _, b := range ev.Result.Content {
			switch b.Type {
			case "text":
				text.WriteString(b.Text)
			case "image":
				images++
			}
		}
		var d struct {
			Diff        string `json:"diff"`
			Diagnostics string `json:"diagnostics"`
		}
		json.Unmarshal(ev.Result.Details, &d)
		diff, diags = d.Diff, d.Diagnostics
	}
	mark := "ok"
	if isErr {
		mark = "error"
	}
	if r.lastTool != ev.ToolCallID {
		r.newline()
		r.put(r.headerLine(t, mark) + "\n")
	}
	out := strings.TrimRight(text.String(), "\n")
	if diags != "" {
		out = strings.TrimSuffix(out, "\n\n"+lsp.DiagnosticsNote+diags) // shown below
	}
	switch {
	case diff != "" && !isErr:
		r.put(r.Diff(diff))
	case isFile(t.name) && !isErr && out != "":
		r.put(r.sty(gray, fmt.Sprintf("  %d lines", strings.Count(out, "\n")+1)) + "\n")
	case out != "":
		r.tail(out, isErr)
	}
	if diags != "" && !isErr {
		r.diagnostics(diags)
	}
	if images > 0 {
		r.put(r.sty(gray, fmt.Sprintf("  [%d image(s)]", images)) + "\n")
	}
	var foot []string
	if isErr {
		foot = append(foot, r.sty(red, "✗ error"))
	}
	if tooldef.IsTask(t.name) && ev.Result != nil {
		if d, ok := ParseTask(ev.Result.Details); ok {
			foot = append(foot, r.sty(gray, d.Summary()))
		}
	}
	if r.o.Now != nil && !t.start.IsZero() {
		foot = append(foot, r.sty(gray, show.Elapsed(r.o.Now().Sub(t.start))))
	}
	if len(foot) > 0 {
		r.put("  " + strings.Join(foot, r.sty(gray, " · ")) + "\n")
	}
}

// diagnostics prints the language servers' new errors of an edit (lib/lsp's
// "2 new errors in x.go:" heads, a line per error): folded to one line,
// the first head and its first error with the count of the other
// lines; with DiagnosticLines, that many lines as they are.
func (r *Renderer) diagnostics(diags string) {
	lines := strings.Split(strings.TrimRight(diags, "\n"), "\n")
	if n := r.o.DiagnosticLines; n > 0 {
		for i, l := range lines[:min(len(lines), n)] {
			lead, code := "    ", red
			switch {
			case lsp.IsLate(l):
				lead, code = "  · ", gray
			case i == 0 || !strings.Contains(l, ": error: "):
				lead = "  ✗ "
			}
			r.put(r.sty(code, lead+show.Clip(expandTabs(l), r.o.Width-4)) + "\n")
		}
		if len(lines) > n {
			r.put(r.sty(gray, fmt.Sprintf("    … %d more lines", len(lines)-n)) + "\n")
		}
		return
	}
	first, rest := lines[0], lines[1:]
	if head, ok := strings.CutSuffix(first, ":"); ok && len(rest) > 0 { // "2 new errors in x.go:"
		first = head + ": " + rest[0]
		rest = rest[1:]
	}
	more := ""
	if len(rest) > 0 {
		more = fmt.Sprintf(" (+%d more)", len(rest))
	}
	mark, code := "  ✗ ", red
	if lsp.IsLate(lines[0]) {
		mark, code = "  · ", gray // no errors known: a server too slow
	}
	r.put(r.sty(code, mark+show.Clip(expandTabs(first), r.o.Width-4-len(more))+more) + "\n")
}

// tail prints the last ToolLines lines of out, after a count of the others.
func (r *Renderer) tail(out string, isErr bool) {
	if r.o.ToolLines < 0 {
		return
	}
	lines := strings.Split(out, "\n")
	if n := len(lines) - r.o.ToolLines; n > 0 {
		r.put(r.sty(gray, fmt.Sprintf("  … %d more lines", n)) + "\n")
		lines = lines[n:]
	}
	code := gray
	if isErr {
		code = red
	}
	for _, l := range lines {
		r.put(r.sty(code, "  "+show.Clip(expandTabs(l), r.o.Width-2)) + "\n")
	}
}

func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

// isFile says whether a tool's result is the text of a file (read's), shown
// as its count of lines.
func isFile(tool string) bool {
	t, _ := tooldef.Lookup(tool)
	return t.OutputIsFile
}
