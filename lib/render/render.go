// Package render turns the agent event stream into text for a person at a
// terminal: text and thinking as they stream (thinking dimmed), markdown
// styled a line or a block at a time as it completes, a one-line header per
// tool call, the last lines of its output with the count of the rest, the
// elapsed time, edits as coloured unified diffs with the changed words
// marked, errors in red.
//
// It is pure: lines in, strings out. The caller reads, writes and flushes
// (once per event, so nothing waits for the end of the stream), and passes
// the clock and the terminal's width and colour in Options. The markdown
// and code styling is a Styler the caller may plug in (lib/render/rich is
// the one built on goldmark and chroma); without one, markdown is printed as
// it came, which is also what a pipe should get.
package render

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/render/show"
)

// Styler styles markdown for the terminal. Both are called only when
// Options.Color is set.
type Styler interface {
	// Markdown renders src, one or more complete markdown lines outside
	// code fences (a table or a paragraph's line), to width columns. The
	// result ends with a newline.
	Markdown(src string, width int) string
	// Code highlights one line of a fenced code block of language lang
	// ("" when the fence names none), without its newline.
	Code(line, lang string) string
}

// Options configure a Renderer.
type Options struct {
	Width int  // columns (0: 80)
	Color bool // ANSI styling; false gives plain text
	// Styler renders markdown and code when Color is set; nil prints the
	// text as it came with a little built-in styling (headings bold, code
	// dimmed).
	Styler Styler
	// Now is the clock for tools' elapsed time; nil shows none.
	Now func() time.Time
	// ToolLines is how many last lines of a tool's output are shown
	// (0: 5; negative: none).
	ToolLines int
	// DiffLines caps the lines of an edit's diff (0: 40).
	DiffLines int
	// DiagnosticLines is how many lines of the language servers' new
	// errors an edit's card shows (0: one folded line, the rest counted).
	DiagnosticLines int
	// HoldLine holds back the line still streaming without colour too
	// (Pending shows it): for a screen that prints whole lines. Without
	// it plain text goes out as it comes, a pipe's stream.
	HoldLine bool
}

// Renderer holds the state of one stream. Not safe for concurrent use.
type Renderer struct {
	o Options

	out       strings.Builder // the text of the current call
	atLineEnd bool            // the last byte printed was a newline (or nothing yet)

	streamed map[int]bool // content blocks of this message printed from deltas
	md       mdState      // the text block being streamed
	tools    map[string]*tool
	lastTool string // the tool whose header was printed last with nothing after it

	total llm.Usage
	cost  float64
	// Failed is the exit code of an error record seen in the stream (0: none).
	Failed int
}

type tool struct {
	name, header string
	start        time.Time
}

// New returns a Renderer.
func New(o Options) *Renderer {
	if o.Width <= 0 {
		o.Width = 80
	}
	if o.ToolLines == 0 {
		o.ToolLines = 5
	}
	if o.DiffLines == 0 {
		o.DiffLines = 40
	}
	return &Renderer{o: o, atLineEnd: true, streamed: map[int]bool{}, tools: map[string]*tool{}}
}

// Event returns the text to print for one line of the event stream (often
// empty). A blank line gives ""; a line that is not an event is an error
// and changes nothing.
func (r *Renderer) Event(line []byte) (string, error) {
	if strings.TrimSpace(string(line)) == "" {
		return "", nil
	}
	ev, err := event.Decode(line)
	if err != nil {
		return "", err
	}
	r.out.Reset()
	r.event(ev)
	return r.out.String(), nil
}

// Pending is the unfinished line of streamed text that Event holds back
// until it is complete (a front-end may draw it in its live area).
func (r *Renderer) Pending() string { return r.md.line }

// Finish returns what is still held back (an unterminated text line) and
// ends the last line.
func (r *Renderer) Finish() string {
	r.out.Reset()
	r.flushText()
	r.newline()
	return r.out.String()
}

// Usage is the sum of the assistant messages' usage seen so far and their
// cost in USD.
func (r *Renderer) Usage() (llm.Usage, float64) { return r.total, r.cost }

func (r *Renderer) put(s string) {
	if s == "" {
		return
	}
	r.out.WriteString(s)
	r.atLineEnd = strings.HasSuffix(s, "\n")
	r.lastTool = ""
}

func (r *Renderer) newline() {
	if !r.atLineEnd {
		r.put("\n")
	}
}

// sty wraps s in an SGR sequence when colour is on.
func (r *Renderer) sty(code, s string) string {
	if !r.o.Color || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// SGR codes used throughout.
const (
	bold   = "1"
	dim    = "2"
	italic = "3"
	red    = "31"
	green  = "32"
	yellow = "33"
	blue   = "34"
	cyan   = "36"
	gray   = "90"
)

func (r *Renderer) event(ev event.Event) {
	switch ev.Type {
	case event.MessageStart:
		r.flushText()
		r.streamed = map[int]bool{}
		var m llm.Message
		json.Unmarshal(ev.Message, &m)
		switch m.Role {
		case "user":
			r.newline()
			r.put(r.sty("1;32", "> ") + r.sty(bold, FileChips(m.Text())) + "\n")
		case "custom": // a tool process's notice (a background job ended), as the model gets it
			var c struct {
				Content string `json:"content"`
				Display *bool  `json:"display"`
			}
			if json.Unmarshal(ev.Message, &c) == nil && c.Content != "" && (c.Display == nil || *c.Display) {
				first, _, _ := strings.Cut(c.Content, "\n")
				r.newline()
				r.put(r.sty(dim, "· "+first) + "\n")
			}
		}
	case event.MessageUpdate:
		var ame llm.Event
		json.Unmarshal(ev.AssistantMessageEvent, &ame)
		if ame.ContentIndex == nil {
			return
		}
		i := *ame.ContentIndex
		switch ame.Type {
		case "text_start":
			r.flushText()
			r.newline()
		case "text_delta":
			r.streamed[i] = true
			r.text(ame.Delta)
		case "thinking_start":
			r.flushText()
			r.newline()
		case "thinking_delta":
			r.streamed[i] = true
			r.put(r.sty(dim+";"+italic, ame.Delta))
		case "thinking_end", "text_end":
			r.flushText()
			if r.streamed[i] {
				r.newline()
			}
		}
	case event.MessageEnd:
		r.flushText()
		var m llm.Message
		json.Unmarshal(ev.Message, &m)
		if m.Role != "assistant" {
			return
		}
		for i, b := range m.Content {
			switch {
			case b.Type == "text" && !r.streamed[i] && b.Text != "":
				r.newline()
				r.text(b.Text)
				r.flushText()
				r.newline()
			case b.Type == "thinking" && !r.streamed[i] && b.Thinking != "":
				r.newline()
				r.put(r.sty(dim+";"+italic, b.Thinking) + "\n")
			case b.Type == "toolCall" && r.tools[b.ID] == nil:
				// announced now; its execution (if any) fills in the rest
				t := &tool{name: b.Name, header: show.ToolHeader(b.Name, b.Arguments)}
				r.tools[b.ID] = t
				r.newline()
				r.put(r.headerLine(t, "") + "\n")
				r.lastTool = b.ID
			}
		}
		if m.StopReason == llm.StopError || m.StopReason == llm.StopAborted {
			msg := m.ErrorMessage
			if msg == "" {
				msg = m.StopReason
			}
			r.newline()
			r.put(r.sty(red, "✗ "+msg) + "\n")
		}
		if m.Usage != nil {
			r.total.Input += m.Usage.Input
			r.total.Output += m.Usage.Output
			r.total.CacheRead += m.Usage.CacheRead
			r.total.CacheWrite += m.Usage.CacheWrite
			r.cost += m.Usage.Cost.Total
		}
	case event.ToolExecutionStart:
		r.flushText()
		t := r.tools[ev.ToolCallID]
		if t == nil {
			t = &tool{name: ev.ToolName, header: show.ToolHeader(ev.ToolName, ev.Args)}
			r.tools[ev.ToolCallID] = t
			r.newline()
			r.put(r.headerLine(t, "") + "\n")
			r.lastTool = ev.ToolCallID
		}
		if r.o.Now != nil {
			t.start = r.o.Now()
		}
	case event.ToolExecutionEnd:
		r.flushText()
		t := r.tools[ev.ToolCallID]
		delete(r.tools, ev.ToolCallID)
		if t == nil { // no start seen: a stream cut in the middle
			t = &tool{name: ev.ToolName, header: show.ToolHeader(ev.ToolName, ev.Args)}
		}
		r.toolEnd(ev, t)
	case event.AutoRetryStart:
		r.flushText()
		r.newline()
		r.put(r.sty(yellow, fmt.Sprintf("↻ retry %d/%d in %s: %s", ev.Attempt, ev.MaxAttempts, time.Duration(ev.DelayMs)*time.Millisecond, show.OneLine(ev.ErrorMessage, r.o.Width-20))) + "\n")
	case event.ContextOverflow:
		r.newline()
		r.put(r.sty(yellow, "context overflow: "+ev.ErrorMessage) + "\n")
	case event.CompactionSuggested:
		r.newline()
		r.put(r.sty(yellow, fmt.Sprintf("context at %d of %d tokens: compaction suggested", ev.ContextTokens, ev.ContextWindow)) + "\n")
	case event.CompactionStart:
		r.newline()
		r.put(r.sty(yellow, "compacting…") + "\n")
	case event.CompactionEnd:
		r.newline()
		r.put(r.sty(yellow, "compacted") + "\n")
	case event.Error:
		r.flushText()
		r.newline()
		r.put(r.sty(red, fmt.Sprintf("error (exit %d): %s", ev.Code, ev.ErrorText())) + "\n")
		r.Failed = ev.Code
	case event.AgentEnd:
		r.flushText()
		r.newline()
		u := r.total
		r.put(r.sty(gray, fmt.Sprintf("↑%s ↓%s", show.Tokens(u.Input+u.CacheRead+u.CacheWrite), show.Tokens(u.Output))+cacheNote(u)+fmt.Sprintf(" · $%.4f", r.cost)) + "\n")
	}
}

func cacheNote(u llm.Usage) string {
	if u.CacheRead == 0 && u.CacheWrite == 0 {
		return ""
	}
	return fmt.Sprintf(" (cache R%s W%s)", show.Tokens(u.CacheRead), show.Tokens(u.CacheWrite))
}

// fileBlock is a file attached to a prompt (agent-chat's @FILE): its
// quoted path and its text.
var fileBlock = regexp.MustCompile(`(?s)<file path=("(?:[^"\\]|\\.)*")>\n(.*?)\n?</file>`)

// FileChips shows each file attached to a prompt as one line, its path
// and size (@big.txt · 300 lines), not its whole text.
func FileChips(prompt string) string {
	return fileBlock.ReplaceAllStringFunc(prompt, func(b string) string {
		m := fileBlock.FindStringSubmatch(b)
		path, err := strconv.Unquote(m[1])
		if err != nil {
			return b
		}
		n := 0
		if m[2] != "" {
			n = strings.Count(m[2], "\n") + 1
		}
		unit := "lines"
		if n == 1 {
			unit = "line"
		}
		return fmt.Sprintf("@%s · %d %s", path, n, unit)
	})
}

// WithoutFiles is a prompt without the files attached to it: the text a
// person typed (its @PATH words attach them again).
func WithoutFiles(prompt string) string {
	return strings.TrimRight(fileBlock.ReplaceAllString(prompt, ""), " \n")
}

// Aside tells the renderer that its caller printed text of its own since
// the last event: a tool's end shows its header again.
func (r *Renderer) Aside() {
	r.lastTool = ""
	r.atLineEnd = true
}
