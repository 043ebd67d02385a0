package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/llm"
)

// render prints an event stream for people: streamed text, thinking
// dimmed, tool calls and results in a line each, usage and cost at the end.
// Lines that are not events are reported and skipped; colour only on a
// terminal (or --color always), never with NO_COLOR.
func render(c *cli.Context, env *app.Env) error {
	color := env.Color(c.String("color"), env.StdoutTTY)
	sty := func(code, s string) string {
		if !color || s == "" {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	r := bufio.NewReaderSize(env.Stdin, 256<<10)
	var total llm.Usage
	var cost float64
	streamed := map[int]bool{} // blocks whose deltas were printed
	atLineStart := true
	put := func(s string) {
		if s == "" {
			return
		}
		w.WriteString(s)
		atLineStart = strings.HasSuffix(s, "\n")
	}
	newline := func() {
		if !atLineStart {
			put("\n")
		}
	}
	failed := 0
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return err
		}
		if strings.TrimSpace(string(line)) == "" {
			continue
		}
		ev, derr := event.Decode(line)
		if derr != nil {
			app.Warnf(c, "stdin:%d: skipped: %v", n, derr)
			continue
		}
		switch ev.Type {
		case event.MessageStart:
			streamed = map[int]bool{}
			var m llm.Message
			json.Unmarshal(ev.Message, &m)
			if m.Role == "user" {
				newline()
				put(sty("1;32", "> ") + sty("1", m.Text()) + "\n")
			}
		case event.MessageUpdate:
			var ame llm.Event
			json.Unmarshal(ev.AssistantMessageEvent, &ame)
			if ame.ContentIndex == nil {
				continue
			}
			switch ame.Type {
			case "text_delta":
				streamed[*ame.ContentIndex] = true
				put(ame.Delta)
			case "thinking_delta":
				streamed[*ame.ContentIndex] = true
				put(sty("2", ame.Delta))
			case "thinking_end", "text_end":
				if streamed[*ame.ContentIndex] {
					newline()
				}
			}
		case event.MessageEnd:
			var m llm.Message
			json.Unmarshal(ev.Message, &m)
			if m.Role != "assistant" {
				continue
			}
			for i, b := range m.Content {
				switch {
				case b.Type == "text" && !streamed[i]:
					newline()
					put(b.Text + "\n")
				case b.Type == "thinking" && !streamed[i] && b.Thinking != "":
					newline()
					put(sty("2", b.Thinking) + "\n")
				case b.Type == "toolCall":
					newline()
					put(sty("36", "● "+b.Name) + " " + sty("2", oneLine(string(b.Arguments), 100)) + "\n")
				}
			}
			if m.StopReason == llm.StopError || m.StopReason == llm.StopAborted {
				newline()
				put(sty("31", "✗ "+m.ErrorMessage) + "\n")
			}
			if m.Usage != nil {
				total.Input += m.Usage.Input
				total.Output += m.Usage.Output
				total.CacheRead += m.Usage.CacheRead
				total.CacheWrite += m.Usage.CacheWrite
				cost += m.Usage.Cost.Total
			}
		case event.ToolExecutionEnd:
			text := ""
			if ev.Result != nil {
				for _, b := range ev.Result.Content {
					text += b.Text
				}
			}
			mark := sty("32", "  ⎿ ")
			if ev.IsError != nil && *ev.IsError {
				mark = sty("31", "  ⎿ ✗ ")
			}
			newline()
			put(mark + oneLine(text, 160) + "\n")
		case event.AutoRetryStart:
			newline()
			put(sty("33", fmt.Sprintf("↻ retry %d/%d in %dms: %s", ev.Attempt, ev.MaxAttempts, ev.DelayMs, oneLine(ev.ErrorMessage, 100))) + "\n")
		case event.ContextOverflow:
			newline()
			put(sty("33", "context overflow: "+ev.ErrorMessage) + "\n")
		case event.CompactionSuggested:
			newline()
			put(sty("33", fmt.Sprintf("context at %d of %d tokens: compaction suggested", ev.ContextTokens, ev.ContextWindow)) + "\n")
		case event.Error:
			newline()
			put(sty("31", fmt.Sprintf("error (exit %d): %s", ev.Code, ev.ErrorText())) + "\n")
			failed = ev.Code
		case event.AgentEnd:
			newline()
			put(sty("2", fmt.Sprintf("tokens: %d in, %d out, %d cache read, %d cache write · $%.4f", total.Input, total.Output, total.CacheRead, total.CacheWrite, cost)) + "\n")
		}
	}
	if failed != 0 {
		return exit.Silent(exit.Failure)
	}
	return nil
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
