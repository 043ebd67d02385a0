package printer

import (
	"fmt"
	"strconv"
	"strings"
)

// Colour is one output element's colour specification, as rg's --colors
// sets it and termcolor writes it.
type Colour struct {
	Bold, Underline, Intense bool
	Fg, Bg                   *TermColor
}

// TermColor is a basic colour (0-7), a 256-colour index or an RGB triple.
type TermColor struct {
	Basic   int // -1 when not basic
	Index   int // -1 when not a 256-colour index
	R, G, B uint8
}

// Colours are the colours of the four elements rg colours.
type Colours struct{ Path, Line, Column, Match Colour }

// DefaultColours are rg 13's: paths magenta, line numbers green, matches
// bold red, columns plain.
func DefaultColours() Colours {
	return Colours{Path: Colour{Fg: basic(5)}, Line: Colour{Fg: basic(2)}, Match: Colour{Bold: true, Fg: basic(1)}}
}

func basic(n int) *TermColor { return &TermColor{Basic: n, Index: -1} }

var colourNames = map[string]int{"black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7}

// ParseColours applies rg's --colors specs in order: TYPE:none,
// TYPE:fg:COLOUR, TYPE:bg:COLOUR, TYPE:style:STYLE.
func ParseColours(specs []string) (Colours, error) {
	cs := DefaultColours()
	for _, spec := range specs {
		parts := strings.Split(spec, ":")
		var c *Colour
		switch parts[0] {
		case "path":
			c = &cs.Path
		case "line":
			c = &cs.Line
		case "column":
			c = &cs.Column
		case "match":
			c = &cs.Match
		default:
			return cs, fmt.Errorf("unrecognized output type '%s'. Choose from: path, line, column, match", parts[0])
		}
		if err := c.set(spec, parts[1:]); err != nil {
			return cs, err
		}
	}
	return cs, nil
}

func (c *Colour) set(spec string, parts []string) error {
	if len(parts) == 1 && parts[0] == "none" {
		*c = Colour{}
		return nil
	}
	if len(parts) != 2 {
		return fmt.Errorf("invalid color spec format: '%s'. Valid format is '(path|line|column|match):(fg|bg|style):(value)'", spec)
	}
	switch parts[0] {
	case "fg", "bg":
		tc, err := parseTermColor(parts[1])
		if err != nil {
			return err
		}
		if parts[0] == "fg" {
			c.Fg = tc
		} else {
			c.Bg = tc
		}
	case "style":
		styles := map[string]func(){"bold": func() { c.Bold = true }, "nobold": func() { c.Bold = false },
			"intense": func() { c.Intense = true }, "nointense": func() { c.Intense = false },
			"underline": func() { c.Underline = true }, "nounderline": func() { c.Underline = false }}
		f, ok := styles[parts[1]]
		if !ok {
			return fmt.Errorf("unrecognized style attribute '%s'. Choose from: nobold, bold, nointense, intense, nounderline, underline", parts[1])
		}
		f()
	default:
		return fmt.Errorf("unrecognized color spec type '%s'. Choose from: fg, bg, style, none", parts[0])
	}
	return nil
}

// parseTermColor reads a colour name, a 256-colour number or R,G,B
// (decimal or 0x hexadecimal).
func parseTermColor(s string) (*TermColor, error) {
	if n, ok := colourNames[s]; ok {
		return basic(n), nil
	}
	num := func(v string) (uint8, error) {
		n, err := strconv.ParseUint(v, 0, 8)
		return uint8(n), err
	}
	parts := strings.Split(s, ",")
	bad := fmt.Errorf("unrecognized color name '%s'. Choose from: black, blue, green, red, cyan, magenta, yellow, white", s)
	switch len(parts) {
	case 1:
		n, err := num(s)
		if err != nil {
			return nil, bad
		}
		return &TermColor{Basic: -1, Index: int(n)}, nil
	case 3:
		var rgb [3]uint8
		for i, p := range parts {
			n, err := num(p)
			if err != nil {
				return nil, bad
			}
			rgb[i] = n
		}
		return &TermColor{Basic: -1, Index: -1, R: rgb[0], G: rgb[1], B: rgb[2]}, nil
	}
	return nil, bad
}

// Paint wraps text in the colour's escapes as termcolor writes them
// (a reset first and last); empty text stays empty.
func (c Colour) Paint(text []byte) []byte {
	if len(text) == 0 {
		return text
	}
	return c.appendPaint(nil, text)
}

// appendPaint appends text wrapped in the colour's escapes (Paint) to b,
// with no buffer of its own: the printer paints every number and match
// of --color=always straight into its output.
func (c Colour) appendPaint(b, text []byte) []byte {
	if len(text) == 0 {
		return b
	}
	b = append(b, "\x1b[0m"...)
	if c.Bold {
		b = append(b, "\x1b[1m"...)
	}
	if c.Underline {
		b = append(b, "\x1b[4m"...)
	}
	b = c.Fg.escape(b, '3', c.Intense)
	b = c.Bg.escape(b, '4', c.Intense)
	b = append(b, text...)
	return append(b, "\x1b[0m"...)
}

// escape appends the escape that sets t: kind is '3' for the foreground,
// '4' for the background.
func (t *TermColor) escape(b []byte, kind byte, intense bool) []byte {
	if t == nil {
		return b
	}
	b = append(b, '\x1b', '[', kind)
	switch {
	case t.Basic >= 0 && intense:
		b = appendDecimal(append(b, "8;5;"...), t.Basic+8)
	case t.Basic >= 0:
		b = appendDecimal(b, t.Basic)
	case t.Index >= 0:
		b = appendDecimal(append(b, "8;5;"...), t.Index)
	default:
		b = appendDecimal(append(b, "8;2;"...), int(t.R))
		b = appendDecimal(append(b, ';'), int(t.G))
		b = appendDecimal(append(b, ';'), int(t.B))
	}
	return append(b, 'm')
}
