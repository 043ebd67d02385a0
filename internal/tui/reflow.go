package tui

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// A terminal that narrows reflows its lines: each line of the frame
// (bubbletea's inline view: the editor, the footer, a streaming answer)
// that was wider than the new width now takes two rows or more. Bubbletea
// goes back up as many rows as the frame had lines to draw the next one,
// so it lands inside the old frame and the rows above stay on the screen
// (a streaming answer's first line twice, "⋯ working" after the run,
// the footer's end below it). reflowOut is the program's output: it keeps
// the frame bubbletea drew last, and at a narrowing resize it goes up to
// the old frame's first row and clears the screen from there, so the next
// frame is drawn where the old one began.
//
// Terminals that do not reflow (xterm) cut the lines instead; there the
// frame keeps its rows and nothing is to be done (off).
type reflowOut struct {
	// *os.File: bubbletea asks the output for its size and raw mode
	// through the file (nil when the output is not one).
	*os.File
	mu  sync.Mutex
	w   io.Writer
	off bool
	// view is the frame View returned last, width and height the screen's
	// then; drawn is the one bubbletea wrote last (its last write of a
	// frame ends with a carriage return).
	view, drawn frame
}

type frame struct {
	lines         []string
	width, height int
}

func newReflowOut(w io.Writer, off bool) *reflowOut {
	f, _ := w.(*os.File)
	return &reflowOut{File: f, w: w, off: off}
}

func (o *reflowOut) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	q := p
	if len(p) > 1 && p[len(p)-1] == '\r' {
		o.drawn = o.view
		if !o.off {
			q = freshRows(p)
		}
	}
	if _, err := o.w.Write(q); err != nil {
		return 0, err
	}
	return len(p), nil
}

// freshRows puts each line bubbletea writes of a frame on a fresh row:
// delete the row and insert a blank one (the rows below stay as they
// were). Erasing a row's end (EL, what bubbletea does) leaves it as wide
// as the widest line it ever held in tmux's reckoning, which then reflows
// into rows nobody drew; a fresh row is as wide as its line. A frame is
// written as [cursor up] then its lines, each ending "\r\n", a line left
// as it was a bare "\n", and a last "\r".
func freshRows(p []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(p) + 64)
	rest := p
	if loc := cursorUp.FindIndex(rest); loc != nil && loc[0] == 0 {
		b.Write(rest[:loc[1]])
		rest = rest[loc[1]:]
	}
	for len(rest) > 0 {
		seg, tail, nl := bytes.Cut(rest, []byte("\n"))
		if len(seg) > 0 && !(len(seg) == 1 && seg[0] == '\r') {
			b.WriteString("\x1b[M\x1b[L")
		}
		b.Write(seg)
		if nl {
			b.WriteByte('\n')
		}
		rest = tail
	}
	return b.Bytes()
}

var cursorUp = regexp.MustCompile(`^\x1b\[[0-9]*A`)

// viewed records the frame View returns, drawn at width × height.
func (o *reflowOut) viewed(view string, width, height int) {
	o.mu.Lock()
	o.view = frame{lines: strings.Split(view, "\n"), width: width, height: height}
	o.mu.Unlock()
}

// filter is the program's message filter: a resize is seen here before
// bubbletea's renderer draws at the new width.
func (o *reflowOut) filter(_ tea.Model, msg tea.Msg) tea.Msg {
	if ws, ok := msg.(tea.WindowSizeMsg); ok {
		o.resized(ws.Width)
	}
	return msg
}

// resized moves the cursor as a resize to width needs: at a narrowing, up
// to the first row of the frame drawn last (its lines reflowed) and back
// down as many lines as bubbletea will go up, the rows between cleared.
func (o *reflowOut) resized(width int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.off {
		return
	}
	up, lines, wraps := reflowUp(o.drawn, width)
	if !wraps {
		return
	}
	var b strings.Builder
	if up+lines > 1 {
		b.WriteString(ansi.CursorUp(up + lines - 1))
	}
	b.WriteString("\r" + ansi.EraseScreenBelow)
	if lines > 1 {
		b.WriteString(ansi.CursorDown(lines - 1))
	}
	io.WriteString(o.w, b.String())
	// The old frame's rows are blank now: another resize before the next
	// frame finds nothing to reflow.
	o.drawn = frame{lines: make([]string, lines), width: width, height: o.drawn.height}
}

// reflowUp is how many rows more than bubbletea knows lie between the
// cursor (at the start of f's last line) and f's first row once the screen
// is width columns wide, how many lines bubbletea drew of f (the last
// height, each cut at f's width), and whether any of them wraps now (the
// last one's rows below the cursor are left over too).
func reflowUp(f frame, width int) (extra, lines int, wraps bool) {
	ls := f.lines
	if f.height > 0 && len(ls) > f.height {
		ls = ls[len(ls)-f.height:]
	}
	if width <= 0 || f.width <= width {
		return 0, len(ls), false
	}
	for i, l := range ls {
		w := min(ansi.StringWidth(l), f.width)
		if w <= width {
			continue
		}
		wraps = true
		if i < len(ls)-1 {
			extra += (w+width-1)/width - 1
		}
	}
	return extra, len(ls), wraps
}
