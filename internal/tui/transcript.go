package tui

import (
	"sync"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/render"
	"github.com/agentutils/agentutils/lib/render/rich"
	"github.com/agentutils/agentutils/lib/render/show"
)

var (
	dim    = lipgloss.NewStyle().Faint(true)
	red    = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	yellow = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	accent = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	bold   = lipgloss.NewStyle().Bold(true)
)

// transcript is the view of a run's stream: event returns what is final
// (printed into the scrollback), live what is still streaming (drawn above
// the editor until it is final), finish what is left at the end of a run.
// lib/render does the work, as for agent-chat --render and agent-render.
type transcript struct{ r *render.Renderer }

// newTranscript draws width columns wide; clock times the tools (nil:
// no times shown).
func newTranscript(width int, color bool, clock func() time.Time) transcript {
	return transcript{render.New(render.Options{Width: width, Color: color, Styler: rich.Terminal{}, Now: clock, HoldLine: true})}
}

// expandedLines is how many of a tool's last lines are shown when tool
// output is expanded (ctrl+o).
const expandedLines = 2000

// newExpanded is a transcript that shows tools' output whole (up to
// expandedLines).
func newExpanded(width int, color bool, clock func() time.Time) transcript {
	return transcript{render.New(render.Options{Width: width, Color: color, Styler: rich.Terminal{}, Now: clock, ToolLines: expandedLines, DiffLines: expandedLines, DiagnosticLines: expandedLines, HoldLine: true})}
}

func (v transcript) event(ev event.Event) string {
	s, _ := v.r.Event(ev.Raw)
	return s
}

func (v transcript) live() string   { return v.r.Pending() }
func (v transcript) finish() string { return v.r.Finish() }

// clip cuts s to one line of n columns at most.
func clip(s string, n int) string { return show.OneLine(s, max(n, 10)) }

// toolClock is the clock of tools' times: it stands still while a call
// waits for the person's approval, so a tool's time on its card is its
// own, not the wait's.
type toolClock struct {
	mu     sync.Mutex
	now    func() time.Time
	paused time.Duration // the waits so far
	since  time.Time     // the wait going on (zero: none)
}

func (c *toolClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now()
	if !c.since.IsZero() {
		t = c.since
	}
	return t.Add(-c.paused)
}

// pause stops the clock (an approval is shown); resume starts it again.
func (c *toolClock) pause() {
	c.mu.Lock()
	if c.since.IsZero() {
		c.since = c.now()
	}
	c.mu.Unlock()
}

func (c *toolClock) resume() {
	c.mu.Lock()
	if !c.since.IsZero() {
		c.paused += c.now().Sub(c.since)
		c.since = time.Time{}
	}
	c.mu.Unlock()
}
