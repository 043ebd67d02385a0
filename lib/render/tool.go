package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agentutils/agentutils/lib/event"
)

// ToolHeader is the one-line summary of a tool call: "$ go test ./...",
// "read main.go:10-29", "edit main.go", "grep TODO lib"; other tools show
// their name and arguments on one line.
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
	switch name {
	case "bash":
		cmd := str("command", "cmd")
		first, rest, more := strings.Cut(strings.TrimSpace(cmd), "\n")
		if more && strings.TrimSpace(rest) != "" {
			first += " …"
		}
		return "$ " + first
	case "read":
		off, lim := num("offset"), num("limit")
		switch {
		case lim > 0:
			path += fmt.Sprintf(":%d-%d", max(off, 1), max(off, 1)+lim-1)
		case off > 0:
			path += fmt.Sprintf(":%d-", off)
		}
		return "read " + path
	case "edit", "write", "undo_edit":
		return name + " " + path
	case "grep":
		s := "grep " + str("pattern")
		if path != "" {
			s += " " + path
		}
		return s
	case "find":
		return "find " + str("pattern")
	case "ls":
		if path == "" {
			path = "."
		}
		return "ls " + path
	}
	if len(a) == 0 {
		return name
	}
	return name + " " + oneLine(string(args), 200)
}

func (r *Renderer) headerLine(t *tool, mark string) string {
	bullet := r.sty(cyan, "●")
	switch mark {
	case "ok":
		bullet = r.sty(green, "●")
	case "error":
		bullet = r.sty(red, "●")
	}
	return bullet + " " + r.sty(bold, clip(t.header, r.o.Width-2))
}

// toolEnd prints a finished call: its header again when other output came
// between, then the diff or the last lines of its output, then the time.
func (r *Renderer) toolEnd(ev event.Event, t *tool) {
	isErr := ev.IsError != nil && *ev.IsError
	var text strings.Builder
	var diff string
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
			Diff string `json:"diff"`
		}
		json.Unmarshal(ev.Result.Details, &d)
		diff = d.Diff
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
	switch {
	case diff != "" && !isErr:
		r.put(r.Diff(diff))
	case t.name == "read" && !isErr && out != "":
		r.put(r.sty(gray, fmt.Sprintf("  %d lines", strings.Count(out, "\n")+1)) + "\n")
	case out != "":
		r.tail(out, isErr)
	}
	if images > 0 {
		r.put(r.sty(gray, fmt.Sprintf("  [%d image(s)]", images)) + "\n")
	}
	var foot []string
	if isErr {
		foot = append(foot, r.sty(red, "✗ error"))
	}
	if r.o.Now != nil && !t.start.IsZero() {
		foot = append(foot, r.sty(gray, Elapsed(r.o.Now().Sub(t.start))))
	}
	if len(foot) > 0 {
		r.put("  " + strings.Join(foot, r.sty(gray, " · ")) + "\n")
	}
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
		r.put(r.sty(code, "  "+clip(expandTabs(l), r.o.Width-2)) + "\n")
	}
}

func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

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
