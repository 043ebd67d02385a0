package tui

import (
	"strings"
	"testing"
)

// reflowUp counts the rows a frame's lines take once the screen narrows:
// those above the cursor move the frame's first row up; a last line that
// wraps leaves rows below it.
func TestReflowUp(t *testing.T) {
	long := strings.Repeat("x", 130)
	for _, tc := range []struct {
		name         string
		f            frame
		width        int
		extra, lines int
		wraps        bool
	}{
		{"wider", frame{lines: []string{long, "> ", "footer"}, width: 140}, 200, 0, 3, false},
		{"nothing wraps", frame{lines: []string{"a", "> ", "footer"}, width: 140}, 60, 0, 3, false},
		{"a long line above", frame{lines: []string{long, "⋯ working", "> ", "footer"}, width: 140}, 60, 2, 4, true},
		{"cut at the old width", frame{lines: []string{strings.Repeat("y", 300), "footer"}, width: 140}, 60, 2, 2, true},
		{"the last line wraps", frame{lines: []string{"> ", long}, width: 140}, 60, 0, 2, true},
		{"escapes take no room", frame{lines: []string{"\x1b[2m" + strings.Repeat("z", 59) + "\x1b[0m", "f"}, width: 140}, 60, 0, 2, false},
		{"the screen's height", frame{lines: []string{long, long, "> ", "footer"}, width: 140, height: 3}, 60, 2, 3, true},
	} {
		extra, lines, wraps := reflowUp(tc.f, tc.width)
		if extra != tc.extra || lines != tc.lines || wraps != tc.wraps {
			t.Errorf("%s: %d, %d, %v; want %d, %d, %v", tc.name, extra, lines, wraps, tc.extra, tc.lines, tc.wraps)
		}
	}
}

// freshRows deletes and inserts the row of each line written, not of a
// line left as it was, and keeps the cursor's way up first.
func TestFreshRows(t *testing.T) {
	in := "\x1b[3Aone\x1b[K\r\n\ntwo\r\nthree\x1b[K\r"
	want := "\x1b[3A\x1b[M\x1b[Lone\x1b[K\r\n\n\x1b[M\x1b[Ltwo\r\n\x1b[M\x1b[Lthree\x1b[K\r"
	if got := string(freshRows([]byte(in))); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := string(freshRows([]byte("\x1b[2Aa\r\n\n\r"))); got != "\x1b[2A\x1b[M\x1b[La\r\n\n\r" {
		t.Errorf("a last line left as it was: %q", got)
	}
}

// A narrowing resize goes up to the old frame's first row, clears below
// and comes back down as far as bubbletea will go up; another resize
// before the next frame finds nothing to do.
func TestResized(t *testing.T) {
	var b strings.Builder
	o := newReflowOut(&b, false)
	o.viewed(strings.Repeat("w", 130)+"\n⋯ working\n> \nfooter", 140, 30)
	o.Write([]byte("\x1b[3Aframe\r"))
	b.Reset()
	o.resized(60)
	if got, want := b.String(), "\x1b[5A\r\x1b[J\x1b[3B"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	b.Reset()
	o.resized(40)
	if b.Len() != 0 {
		t.Errorf("a second resize wrote %q", b.String())
	}
	off := newReflowOut(&b, true)
	off.viewed(strings.Repeat("w", 130)+"\nfooter", 140, 30)
	off.Write([]byte("\x1b[1Aframe\r"))
	b.Reset()
	off.resized(60)
	if b.String() != "" {
		t.Errorf("a terminal that does not reflow got %q", b.String())
	}
}
