package tui

import (
	"bytes"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/render"
	"github.com/agentutils/agentutils/lib/render/show"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// taskCard is a running sub-agent (a task call) as the live area shows
// it under its call: what it runs now, what it has spent, and the last
// lines of its progress (a line per tool call, the text of its
// messages); expanded (ctrl+o), its conversation goes into the
// scrollback as its session file grows, drawn as the agent's own is.
type taskCard struct {
	id     string
	header string // its call's: "task explore: Where is the parser?"
	log    []string
	d      render.TaskDetails
	conv   *conversation // expanded: what of its session file is in the scrollback
}

// conversation follows a sub-agent's session file: the records appended
// since the last look, drawn by a renderer of their own.
type conversation struct {
	file string
	off  int64
	v    transcript
}

// next draws the records the file gained since the last call (whole
// lines only: the rest waits for the next).
func (c *conversation) next() string {
	f, err := os.Open(c.file)
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.NewSectionReader(f, c.off, 1<<40))
	if err != nil {
		return ""
	}
	end := bytes.LastIndexByte(data, '\n')
	if end < 0 {
		return ""
	}
	c.off += int64(end + 1)
	var b strings.Builder
	for _, line := range bytes.Split(data[:end], []byte("\n")) {
		for _, ev := range render.EntryEvents(line) {
			b.WriteString(c.v.event(ev))
		}
	}
	return b.String()
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
		c.log = nil
		if t := text.String(); t != "" {
			c.log = strings.Split(t, "\n")
		}
		if m.expanded {
			return m.cardConversation(c)
		}
	case event.ToolExecutionEnd:
		var last string
		if c := m.tasks.find(ev.ToolCallID); c != nil && m.expanded && c.conv != nil {
			last = m.cardConversation(c) // what it wrote last
		}
		m.tasks = slices.DeleteFunc(m.tasks, func(c *taskCard) bool { return c.id == ev.ToolCallID })
		return last
	}
	return ""
}

// cardConversation is what c's session file gained since the last call,
// drawn for the scrollback under its call (each line marked with its call
// when several run at once); the first call draws it from its start.
func (m *Model) cardConversation(c *taskCard) string {
	if c.d.Session == "" {
		return ""
	}
	prefix := "  │ "
	if len(m.tasks) > 1 {
		prefix += clip(c.header, 24) + ": "
	}
	if c.conv == nil {
		c.conv = m.newConversation(c.d.Session, ansi.StringWidth(prefix))
	}
	return indent(c.conv.next(), dim.Render(prefix))
}

// newConversation follows a sub-agent's session file, drawn indent
// columns narrower than the screen.
func (m *Model) newConversation(file string, indent int) *conversation {
	return &conversation{file: file, v: newExpanded(max(m.width-indent, 20), m.a.Color, nil)}
}

// indent puts prefix before every line of s.
func indent(s, prefix string) string {
	if s == "" {
		return ""
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// followEvery is how often expanded task cards look at their session
// files between the sub-agents' events (a record appended after the event
// that announced it shows then, not at the next event).
const followEvery = 300 * time.Millisecond

// followMsg: time to look at the expanded task cards' files.
type followMsg struct{}

// followTasks arms the next look while cards are expanded.
func (m *Model) followTasks() tea.Cmd {
	if !m.expanded || len(m.tasks) == 0 || m.following {
		return nil
	}
	m.following = true
	return tea.Tick(followEvery, func(time.Time) tea.Msg { return followMsg{} })
}

// followedTasks is what the expanded cards' files gained.
func (m *Model) followedTasks() string {
	if !m.expanded {
		return ""
	}
	var b strings.Builder
	for _, c := range m.tasks {
		if c.conv != nil {
			b.WriteString(m.cardConversation(c))
		}
	}
	return b.String()
}

// expandTasks prints the conversations so far of the sub-agents running
// (ctrl+o expanded): from now on it follows them.
func (m *Model) expandTasks() string {
	var b strings.Builder
	for _, c := range m.tasks {
		c.conv = nil
		b.WriteString(m.cardConversation(c))
	}
	return b.String()
}

// taskConversation is the whole conversation of a finished task call
// whose end is ev ("" for another tool's), for ctrl+o on the last call.
func (m *Model) taskConversation(ev event.Event) string {
	if ev.Type != event.ToolExecutionEnd || !tooldef.IsTask(ev.ToolName) || ev.Result == nil {
		return ""
	}
	d, ok := render.ParseTask(ev.Result.Details)
	if !ok || d.Session == "" {
		return ""
	}
	return indent(m.newConversation(d.Session, 4).next(), dim.Render("  │ "))
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
