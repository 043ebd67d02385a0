package main

import (
	"fmt"
	"html"
	"strconv"
	"strings"
)

// style is the SGR state of one cell.
type style struct {
	fg, bg                          string // CSS colours, "" for the default
	bold, dim, italic, under, rever bool
}

// css is s as an inline style attribute's value.
func (s style) css() string {
	fg, bg := s.fg, s.bg
	if s.rever {
		fg, bg = bg, fg
		if fg == "" {
			fg = background
		}
		if bg == "" {
			bg = foreground
		}
	}
	var b strings.Builder
	if fg != "" {
		fmt.Fprintf(&b, "color:%s;", fg)
	}
	if bg != "" {
		fmt.Fprintf(&b, "background:%s;", bg)
	}
	if s.bold {
		b.WriteString("font-weight:bold;")
	}
	if s.dim {
		b.WriteString("opacity:.6;")
	}
	if s.italic {
		b.WriteString("font-style:italic;")
	}
	if s.under {
		b.WriteString("text-decoration:underline;")
	}
	return b.String()
}

const foreground, background = "#d8d8d8", "#1c1c1c"

// basic is xterm's sixteen colours as a dark theme draws them.
var basic = [16]string{"#1c1c1c", "#d75f5f", "#87af5f", "#d7af5f", "#5f87d7", "#af87d7", "#5fafaf", "#d8d8d8",
	"#767676", "#ff8787", "#afd787", "#ffd787", "#87afff", "#d7afff", "#87d7d7", "#ffffff"}

// xterm256 is the CSS colour of palette entry n.
func xterm256(n int) string {
	switch {
	case n < 16:
		return basic[n]
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	default:
		g := 8 + 10*(n-232)
		return fmt.Sprintf("#%02x%02x%02x", g, g, g)
	}
}

// apply changes s by the parameters of one SGR sequence.
func (s *style) apply(params string) {
	ps := strings.Split(params, ";")
	if params == "" {
		ps = []string{"0"}
	}
	for i := 0; i < len(ps); i++ {
		n, _ := strconv.Atoi(ps[i])
		switch {
		case n == 0:
			*s = style{}
		case n == 1:
			s.bold = true
		case n == 2:
			s.dim = true
		case n == 3:
			s.italic = true
		case n == 4:
			s.under = true
		case n == 7:
			s.rever = true
		case n == 22:
			s.bold, s.dim = false, false
		case n == 23:
			s.italic = false
		case n == 24:
			s.under = false
		case n == 27:
			s.rever = false
		case n >= 30 && n <= 37:
			s.fg = basic[n-30]
		case n >= 90 && n <= 97:
			s.fg = basic[n-90+8]
		case n >= 40 && n <= 47:
			s.bg = basic[n-40]
		case n >= 100 && n <= 107:
			s.bg = basic[n-100+8]
		case n == 39:
			s.fg = ""
		case n == 49:
			s.bg = ""
		case n == 38 || n == 48:
			c, used := extended(ps[i+1:])
			i += used
			if n == 38 {
				s.fg = c
			} else {
				s.bg = c
			}
		}
	}
}

// extended reads the colour after 38 or 48 (5;N or 2;R;G;B) and how many
// parameters it took.
func extended(ps []string) (string, int) {
	num := func(i int) int {
		if i >= len(ps) {
			return 0
		}
		n, _ := strconv.Atoi(ps[i])
		return n
	}
	switch num(0) {
	case 5:
		return xterm256(num(1)), 2
	case 2:
		return fmt.Sprintf("#%02x%02x%02x", num(1), num(2), num(3)), 4
	}
	return "", len(ps)
}

// toHTML turns a pane captured with its escapes (tmux capture-pane -e) into
// the <pre> of a page: text with spans of inline styles.
func toHTML(pane string) string {
	var b strings.Builder
	var cur style

	flush := func(text string) {
		if text == "" {
			return
		}
		if css := cur.css(); css != "" {
			fmt.Fprintf(&b, `<span style="%s">%s</span>`, css, html.EscapeString(text))
		} else {
			b.WriteString(html.EscapeString(text))
		}
	}
	for len(pane) > 0 {
		i := strings.Index(pane, "\x1b[")
		if i < 0 {
			flush(pane)
			break
		}
		flush(pane[:i])
		pane = pane[i+2:]
		end := strings.IndexFunc(pane, func(r rune) bool { return r >= 0x40 && r <= 0x7e })
		if end < 0 {
			break
		}
		if pane[end] == 'm' {
			cur.apply(pane[:end])
		}
		pane = pane[end+1:]
	}
	return b.String()
}

// page is the HTML page of a terminal of cols columns showing pane.
func page(pane string, cols int) string {
	return fmt.Sprintf(`<!doctype html><meta charset="utf-8"><style>
html,body{margin:0;background:%s;overflow:hidden}
pre{margin:0;padding:12px 14px;color:%s;font:15px/1.3 "DejaVu Sans Mono","Liberation Mono",monospace;width:%dch;white-space:pre}
</style><pre>%s</pre>`, background, foreground, cols, toHTML(pane))
}
