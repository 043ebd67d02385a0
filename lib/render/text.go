package render

import "strings"

// mdState is the streamed text block: the line not yet complete, and the
// code fence or table the complete lines are in.
type mdState struct {
	line  string
	fence string // the opening marker (``` or ~~~, maybe longer) inside a fence
	lang  string
	table []string
}

// text takes a piece of streamed text. Without colour it is printed as it
// comes; with colour, complete lines are styled and printed, the rest held
// back until its newline (Pending) or the end of the block (flushText).
func (r *Renderer) text(s string) {
	if !r.o.Color {
		if !r.o.HoldLine {
			r.put(s)
			return
		}
		r.md.line += s
		if i := strings.LastIndexByte(r.md.line, '\n'); i >= 0 {
			r.put(r.md.line[:i+1])
			r.md.line = r.md.line[i+1:]
		}
		return
	}
	r.md.line += s
	for {
		i := strings.IndexByte(r.md.line, '\n')
		if i < 0 {
			return
		}
		l := r.md.line[:i]
		r.md.line = r.md.line[i+1:]
		r.mdLine(l)
	}
}

// flushText prints what is held back and closes the block.
func (r *Renderer) flushText() {
	if r.md.line != "" {
		l := r.md.line
		r.md.line = ""
		if !r.o.Color { // HoldLine's: the text as it came
			r.put(l)
		} else {
			r.mdLine(l)
		}
	}
	r.flushTable()
	r.md.fence, r.md.lang = "", ""
}

func (r *Renderer) styler() Styler {
	if r.o.Styler != nil {
		return r.o.Styler
	}
	return basic{r}
}

// mdLine prints one complete line of markdown.
func (r *Renderer) mdLine(l string) {
	l = strings.TrimSuffix(l, "\r")
	st := r.styler()
	trimmed := strings.TrimLeft(l, " ")
	indent := len(l) - len(trimmed)
	if r.md.fence != "" {
		if indent < 4 && strings.HasPrefix(trimmed, r.md.fence) && strings.Trim(trimmed, r.md.fence[:1]+" \t") == "" {
			r.md.fence, r.md.lang = "", ""
			r.put(r.sty(gray, "  └─") + "\n")
			return
		}
		r.put(r.sty(gray, "  │ ") + st.Code(expandTabs(l), r.md.lang) + "\n")
		return
	}
	if m := fenceMarker(trimmed); m != "" && indent < 4 {
		r.flushTable()
		r.md.fence = m
		r.md.lang = ""
		if f := strings.Fields(trimmed[len(m):]); len(f) > 0 {
			r.md.lang = f[0]
		}
		r.put(r.sty(gray, "  ┌─ "+r.md.lang) + "\n")
		return
	}
	if strings.HasPrefix(trimmed, "|") {
		r.md.table = append(r.md.table, l)
		return
	}
	r.flushTable()
	if trimmed == "" {
		r.put("\n")
		return
	}
	r.put(st.Markdown(l, r.o.Width))
}

func (r *Renderer) flushTable() {
	if len(r.md.table) == 0 {
		return
	}
	src := strings.Join(r.md.table, "\n")
	r.md.table = nil
	r.put(r.styler().Markdown(src, r.o.Width))
}

// fenceMarker is the code fence a line opens (``` or ~~~, three or more),
// or "".
func fenceMarker(s string) string {
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return ""
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 || (s[0] == '`' && strings.ContainsRune(s[n:], '`')) {
		return ""
	}
	return s[:n]
}

// basic is the styling without a Styler: headings bold, the rest as is.
type basic struct{ r *Renderer }

func (b basic) Markdown(src string, width int) string {
	if strings.HasPrefix(src, "#") {
		return b.r.sty(bold, strings.TrimLeft(src, "# ")) + "\n"
	}
	return src + "\n"
}

func (b basic) Code(line, lang string) string { return line }
