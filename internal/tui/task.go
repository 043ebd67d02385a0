package tui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/render"
	"github.com/agentutils/agentutils/lib/render/show"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// taskCard is a running sub-agent (a task call) as the live area shows
// it under its call: what it runs now, what it has spent, and the last
// lines of its progress (a line per tool call, the text of its
// messages); expanded (ctrl+o), its progress goes into the scrollback as
// it comes, to be followed whole.
type taskCard struct {
	id      string
	header  string // its call's: "task explore: Where is the parser?"
	log     []string
	d       render.TaskDetails
	printed bool // expanded: its log so far is in the scrollback
}

// taskCards are the run's sub-agents running now, in the order they started.
type taskCards []*taskCard

// cardLines are the progress lines a folded card shows.
const cardLines = 3

func (cs taskCards) find(id string) *taskCard {
	for _, c := range cs {
		if c.id == id {
			return c
		}
	}
	return nil
}

// bySession is the card of the sub-agent whose session is sid.
func (cs taskCards) bySession(sid string) *taskCard {
	for _, c := range cs {
		if sid != "" && c.d.SessionID == sid {
			return c
		}
	}
	return nil
}

// taskEvent follows a task call's events; it returns what goes into the
// scrollback (expanded: the progress lines new since the last update).
func (m *Model) taskEvent(ev event.Event) string {
	switch ev.Type {
	case event.ToolExecutionStart:
		if tooldef.IsTask(ev.ToolName) && m.tasks.find(ev.ToolCallID) == nil {
			m.tasks = append(m.tasks, &taskCard{id: ev.ToolCallID, header: show.ToolHeader(ev.ToolName, ev.Args)})
		}
	case event.ToolExecutionUpdate:
		c := m.tasks.find(ev.ToolCallID)
		if c == nil || ev.PartialResult == nil {
			return ""
		}
		if d, ok := render.ParseTask(ev.PartialResult.Details); ok {
			c.d = d
		}
		var text strings.Builder
		for _, b := range ev.PartialResult.Content {
			text.WriteString(b.Text)
		}
		old := c.log
		c.log = nil
		if t := text.String(); t != "" {
			c.log = strings.Split(t, "\n")
		}
		if m.expanded {
			return m.cardLog(c, newLines(old, c.log))
		}
	case event.ToolExecutionEnd:
		m.tasks = slices.DeleteFunc(m.tasks, func(c *taskCard) bool { return c.id == ev.ToolCallID })
	}
	return ""
}

// cardLog is lines of c's progress for the scrollback, under its call
// (each marked with its call when several run at once).
func (m *Model) cardLog(c *taskCard, lines []string) string {
	if !c.printed {
		c.printed, lines = true, c.log
	}
	prefix := "  │ "
	if len(m.tasks) > 1 {
		prefix += clip(c.header, 24) + ": "
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(dim.Render(prefix+clip(l, max(m.width, 20)-ansi.StringWidth(prefix))) + "\n")
	}
	return b.String()
}

// newLines are the lines of now that were not in was: the log is a
// window of its last lines, so was's end overlaps now's start.
func newLines(was, now []string) []string {
	for n := 0; n <= len(now); n++ {
		keep := now[:len(now)-n]
		if len(keep) <= len(was) && slices.Equal(keep, was[len(was)-len(keep):]) {
			return now[len(now)-n:]
		}
	}
	return now
}

// expandTasks prints the progress so far of the sub-agents running (ctrl+o
// expanded): from now on it follows them.
func (m *Model) expandTasks() string {
	var b strings.Builder
	for _, c := range m.tasks {
		c.printed = false
		b.WriteString(m.cardLog(c, nil))
	}
	return b.String()
}

// view draws the running sub-agents: a line each with what it runs now
// and what it has spent, and folded its last lines of progress.
func (cs taskCards) view(width int, expanded bool) string {
	var b strings.Builder
	for _, c := range cs {
		now := "thinking…"
		if c.d.Running != "" {
			now = "→ " + c.d.Running
		}
		line := accent.Render("  ⋯ ") + clip(c.header, width/2) + dim.Render(" · "+c.d.Summary()+" · ") + now
		b.WriteString(ansi.Truncate(line, width, "…") + "\n")
		if expanded {
			continue
		}
		for _, l := range c.log[max(len(c.log)-cardLines, 0):] {
			b.WriteString("    " + dim.Render(clip(l, width-4)) + "\n")
		}
	}
	return b.String()
}

// asker is the header of the sub-agent whose call the shown approval is
// about ("" when it is the agent's own, or the sub-agent is not known).
func (m *Model) asker() string {
	p := m.approve.active()
	if p == nil {
		return ""
	}
	if c := m.tasks.bySession(p.req.In.SessionID); c != nil {
		return c.header
	}
	return ""
}
