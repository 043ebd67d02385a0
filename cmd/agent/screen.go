package main

import (
	"bytes"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"
)

// bubbletea's own renderer paints on a ticker (120 frames a second at
// most), so a keystroke waits for the next frame, 4 ms on average and 8 at
// worst, and so does the first streamed character. The front-end paints
// itself instead (the program runs WithoutRenderer; bubbletea still reads
// and decodes the keys): at once after every message, with no timer. A
// stream's paints are coalesced where they arrive: the run's reader sends
// one message for the events it read together (readEvents' more), so a
// burst is one paint and a lone event, the first character above all, is
// painted as soon as it is read.

// painter draws the front-end as bubbletea's renderer does, inline: the
// finished lines go into the terminal's scrollback once, above the live
// area (the model's View), which is redrawn in place, only the lines that
// changed. The cursor rests at the start of the live area's last line.
type painter struct {
	out    io.Writer
	width  int
	height int
	lines  []string // the live area as painted last
	queue  []string // finished lines to print above it
	buf    bytes.Buffer
}

// println queues finished text for the scrollback.
func (p *painter) println(s string) {
	p.queue = append(p.queue, strings.Split(s, "\n")...)
}

func (p *painter) resize(w, h int) {
	p.width, p.height = w, h
	p.lines = nil // repaint every line
}

// paint draws view (and the queued lines above it) with one write.
func (p *painter) paint(view string) {
	b := &p.buf
	b.Reset()
	next := strings.Split(view, "\n")
	if p.height > 0 && len(next) > p.height {
		next = next[len(next)-p.height:]
	}
	if len(p.queue) == 0 && slices.Equal(next, p.lines) {
		return // nothing changed: no write, no wake-up of the terminal
	}
	if len(p.lines) > 1 {
		b.WriteString(ansi.CursorUp(len(p.lines) - 1))
	}
	b.WriteByte('\r')
	printed := len(p.queue) > 0
	for _, l := range p.queue {
		// The row is erased first: a tab moves the cursor over what the
		// live area drew there, without erasing it.
		b.WriteString(ansi.EraseEntireLine)
		b.WriteString(l)
		if ansi.StringWidth(l) < p.width {
			b.WriteString(ansi.EraseLineRight)
		}
		b.WriteString("\r\n")
	}
	p.queue = p.queue[:0]
	for i, l := range next {
		if !printed && i < len(p.lines) && p.lines[i] == l {
			if i < len(next)-1 {
				b.WriteByte('\n')
			}
			continue
		}
		if p.width > 0 {
			l = ansi.Truncate(l, p.width, "")
		}
		b.WriteString(l)
		if ansi.StringWidth(l) < p.width || p.width == 0 {
			b.WriteString(ansi.EraseLineRight)
		}
		if i < len(next)-1 {
			b.WriteString("\r\n")
		}
	}
	if len(p.lines) > len(next) {
		b.WriteString(ansi.EraseScreenBelow)
	}
	b.WriteByte('\r')
	p.out.Write(b.Bytes())
	p.lines = next
}

// printMsg is finished text from the run's reader, for the scrollback.
type printMsg string

// painted is the program's model: the ui, painted by a painter after
// every message.
type painted struct {
	u   *ui
	scr *painter
	in  *input // the terminal's reader, kept out while a message is handled (enter.go)
}

func (m *painted) Init() tea.Cmd {
	m.in.handling(nil)
	defer m.in.handled()
	cmd := m.u.Init()
	m.scr.paint(m.u.View())
	m.u.afterMessage(false) // not at the first key: it may be the last before enter
	return cmd
}

func (m *painted) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	fence := m.in.handling(msg)
	defer m.in.handled()
	if fence {
		return m, nil
	}
	return m, m.update(msg)
}

// show handles a run's stream message in the caller's goroutine (the
// run's reader), with the loop kept out as for its own messages: what a
// message of the loop would paint, without waking the loop's goroutine
// (on another thread) to paint it. Nothing is painted once the program
// ended.
func (m *painted) show(msg streamMsg) {
	if !m.in.hold() {
		return
	}
	cmd := m.update(msg)
	m.in.handled()
	if cmd != nil {
		go func() { m.u.p.Send(cmd()) }()
	}
}

func (m *painted) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case printMsg:
		m.scr.println(string(msg))
	case tea.WindowSizeMsg:
		m.scr.resize(msg.Width, msg.Height)
		_, cmd = m.u.Update(msg)
	default:
		_, cmd = m.u.Update(msg)
	}
	m.scr.paint(m.u.View())
	if _, ok := msg.(streamMsg); ok && m.u.run != nil {
		m.u.run.events.Release() // the run's output is on the screen: append may write
	}
	_, shown := msg.(streamMsg)
	m.u.afterMessage(shown)
	return cmd
}

func (m *painted) View() string { return "" } // nobody asks: there is no bubbletea renderer

// runScreen runs the ui on the terminal: raw input, no cursor, bracketed
// paste, the window's size as it changes; the terminal is restored after.
func runScreen(u *ui, in, out *os.File) error {
	state, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return err
	}
	defer term.Restore(int(in.Fd()), state)
	scr := &painter{out: out, width: u.width}
	if w, h, err := term.GetSize(int(out.Fd())); err == nil {
		scr.width, scr.height, u.width = w, h, w
	}
	out.WriteString(ansi.HideCursor + ansi.SetModeBracketedPaste)
	defer out.WriteString(ansi.ResetModeBracketedPaste + ansi.ShowCursor)
	u.scr = scr
	keys, err := newInput(in)
	if err != nil {
		return err
	}
	defer keys.stop()
	m := &painted{u: u, scr: scr, in: keys}
	u.p = tea.NewProgram(m, tea.WithInput(keys), tea.WithOutput(out), tea.WithoutRenderer())
	u.show = m.show
	keys.fence = func(n uint64) { u.p.Send(fenceMsg(n)) }
	keys.enter = u.fastEnter
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer close(winch)
	defer signal.Stop(winch)
	go func() {
		for range winch {
			if w, h, err := term.GetSize(int(out.Fd())); err == nil {
				u.p.Send(tea.WindowSizeMsg{Width: w, Height: h})
			}
		}
	}()
	_, err = u.p.Run()
	return err
}
