package printer

import "testing"

// TestColours checks rg's --colors specs against the escapes rg 13 (via
// termcolor) writes for them.
func TestColours(t *testing.T) {
	cases := []struct {
		specs []string
		pick  func(Colours) Colour
		want  string
	}{
		{nil, func(c Colours) Colour { return c.Match }, "\x1b[0m\x1b[1m\x1b[31mx\x1b[0m"},
		{nil, func(c Colours) Colour { return c.Path }, "\x1b[0m\x1b[35mx\x1b[0m"},
		{nil, func(c Colours) Colour { return c.Column }, "\x1b[0mx\x1b[0m"},
		{[]string{"match:none"}, func(c Colours) Colour { return c.Match }, "\x1b[0mx\x1b[0m"},
		{[]string{"match:fg:green"}, func(c Colours) Colour { return c.Match }, "\x1b[0m\x1b[1m\x1b[32mx\x1b[0m"},
		{[]string{"path:style:intense"}, func(c Colours) Colour { return c.Path }, "\x1b[0m\x1b[38;5;13mx\x1b[0m"},
		{[]string{"line:style:underline", "line:bg:blue"}, func(c Colours) Colour { return c.Line }, "\x1b[0m\x1b[4m\x1b[32m\x1b[44mx\x1b[0m"},
		{[]string{"match:bg:0x0,0x80,0xFF"}, func(c Colours) Colour { return c.Match }, "\x1b[0m\x1b[1m\x1b[31m\x1b[48;2;0;128;255mx\x1b[0m"},
		{[]string{"column:fg:200", "column:style:bold", "column:style:nobold"}, func(c Colours) Colour { return c.Column }, "\x1b[0m\x1b[38;5;200mx\x1b[0m"},
	}
	for _, c := range cases {
		cs, err := ParseColours(c.specs)
		if err != nil {
			t.Fatalf("%v: %v", c.specs, err)
		}
		if got := string(c.pick(cs).Paint([]byte("x"))); got != c.want {
			t.Errorf("%v: %q, want %q", c.specs, got, c.want)
		}
	}
	if got := DefaultColours().Match.Paint(nil); len(got) != 0 {
		t.Errorf("empty text painted: %q", got)
	}
	for _, bad := range []string{"nope:fg:red", "match:fg:purple", "match:style:blink", "match", "match:fg:256", "match:fg:1,2"} {
		if _, err := ParseColours([]string{bad}); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
