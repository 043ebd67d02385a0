package main

import (
	"time"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/render"
	"github.com/agentutils/agentutils/lib/render/rich"
	"github.com/agentutils/agentutils/lib/render/show"
)

// renderer turns agent events into text for the terminal: Event returns
// what is final (printed into the scrollback), Live what is still
// streaming (drawn above the editor until it is final), Finish what is
// left at the end of a run. lib/render does the work, as for
// agent-chat --render and agent-render.
type renderer interface {
	Event(ev event.Event) string
	Live() string
	Finish() string
}

func newRenderer(width int, color bool) renderer {
	return libView{render.New(render.Options{Width: width, Color: color, Styler: rich.Terminal{}, Now: time.Now})}
}

type libView struct{ r *render.Renderer }

func (v libView) Event(ev event.Event) string {
	s, _ := v.r.Event(ev.Raw)
	return s
}

func (v libView) Live() string   { return v.r.Pending() }
func (v libView) Finish() string { return v.r.Finish() }

// toolHeader is a tool call in one line ("$ cmd", "edit path").
var toolHeader = show.ToolHeader

func clip(s string, n int) string { return show.OneLine(s, max(n, 10)) }

func tokens(n int) string { return show.Tokens(n) }
