package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
)

// renderer turns agent events into text for the terminal: Event returns
// what is final (printed into the scrollback), Live what is still
// streaming (drawn above the editor until it is final).
//
// newRenderer is the one place that picks the implementation; this small
// adapter stands in until lib/render (the shared streaming renderer) lands.
type renderer interface {
	Event(ev event.Event) string
	Live() string
}

func newRenderer(width int, color bool) renderer { return &plainView{width: width, color: color} }

type plainView struct {
	width    int
	color    bool
	live     strings.Builder // the unfinished line of the streaming block
	kind     string          // "text" or "thinking" while a block streams
	streamed map[int]bool
	tools    map[string]string // toolCallId → header, for the end line
}

func (v *plainView) sty(code, s string) string {
	if !v.color || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (v *plainView) Live() string {
	if v.kind == "thinking" {
		return v.sty("2", v.live.String())
	}
	return v.live.String()
}

// delta adds streamed text; whole lines become final.
func (v *plainView) delta(kind, s string) string {
	v.kind = kind
	v.live.WriteString(s)
	cur := v.live.String()
	i := strings.LastIndexByte(cur, '\n')
	if i < 0 {
		return ""
	}
	done := cur[:i+1]
	v.live.Reset()
	v.live.WriteString(cur[i+1:])
	if kind == "thinking" {
		return v.dimLines(done)
	}
	return done
}

func (v *plainView) dimLines(s string) string {
	if !v.color {
		return s
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		t := strings.TrimSuffix(l, "\n")
		b.WriteString(v.sty("2", t))
		if len(t) < len(l) {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// endBlock finishes the streaming block.
func (v *plainView) endBlock() string {
	s := v.live.String()
	kind := v.kind
	v.live.Reset()
	v.kind = ""
	if s == "" {
		return ""
	}
	if kind == "thinking" {
		return v.sty("2", s) + "\n"
	}
	return s + "\n"
}

func (v *plainView) Event(ev event.Event) string {
	switch ev.Type {
	case event.MessageStart:
		v.streamed = map[int]bool{}
		var m llm.Message
		json.Unmarshal(ev.Message, &m)
		if m.Role == "user" {
			return v.sty("1;32", "> ") + v.sty("1", m.Text()) + "\n"
		}
	case event.MessageUpdate:
		var ame llm.Event
		json.Unmarshal(ev.AssistantMessageEvent, &ame)
		if ame.ContentIndex == nil {
			return ""
		}
		switch ame.Type {
		case "text_delta":
			v.streamed[*ame.ContentIndex] = true
			return v.delta("text", ame.Delta)
		case "thinking_delta":
			v.streamed[*ame.ContentIndex] = true
			return v.delta("thinking", ame.Delta)
		case "thinking_end", "text_end":
			return v.endBlock()
		}
	case event.MessageEnd:
		var m llm.Message
		json.Unmarshal(ev.Message, &m)
		if m.Role != "assistant" {
			return ""
		}
		out := v.endBlock()
		for i, b := range m.Content {
			switch {
			case b.Type == "text" && !v.streamed[i]:
				out += b.Text + "\n"
			case b.Type == "thinking" && !v.streamed[i] && b.Thinking != "":
				out += v.dimLines(b.Thinking) + "\n"
			}
		}
		if m.StopReason == llm.StopAborted {
			out += v.sty("31", "✗ aborted") + "\n"
		} else if m.StopReason == llm.StopError {
			out += v.sty("31", "✗ "+m.ErrorMessage) + "\n"
		}
		return out
	case event.ToolExecutionStart:
		return v.sty("36", "● "+toolHeader(ev.ToolName, ev.Args)) + "\n"
	case event.ToolExecutionEnd:
		text := ""
		if ev.Result != nil {
			for _, b := range ev.Result.Content {
				text += b.Text
			}
		}
		lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
		const keep = 4
		var b strings.Builder
		bad := ev.IsError != nil && *ev.IsError
		for i, l := range lines {
			if i == keep {
				b.WriteString(v.sty("2", fmt.Sprintf("    … %d more lines", len(lines)-keep)) + "\n")
				break
			}
			mark := "  ⎿ "
			if i > 0 {
				mark = "    "
			}
			if bad {
				b.WriteString(v.sty("31", mark+clip(l, v.width-6)) + "\n")
			} else {
				b.WriteString(v.sty("2", mark) + clip(l, v.width-6) + "\n")
			}
		}
		return b.String()
	case event.AutoRetryStart:
		return v.sty("33", fmt.Sprintf("↻ retry %d/%d in %dms: %s", ev.Attempt, ev.MaxAttempts, ev.DelayMs, clip(ev.ErrorMessage, 100))) + "\n"
	case event.ContextOverflow:
		return v.sty("33", "context overflow: "+ev.ErrorMessage) + "\n"
	case event.Error:
		return v.sty("31", fmt.Sprintf("error (exit %d): %s", ev.Code, ev.ErrorText())) + "\n"
	}
	return ""
}

// toolHeader is a tool call in one line: "$ cmd", "read path", "edit path".
func toolHeader(name string, args json.RawMessage) string {
	var a map[string]any
	json.Unmarshal(args, &a)
	str := func(k string) string { s, _ := a[k].(string); return s }
	switch name {
	case "bash":
		return "$ " + clip(str("command"), 120)
	case "read", "write", "edit", "ls", "undo_edit":
		if p := str("path"); p != "" {
			return name + " " + p
		}
	case "grep", "find":
		return name + " " + clip(str("pattern"), 80)
	}
	return name + " " + clip(string(args), 100)
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if n < 10 {
		n = 10
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
