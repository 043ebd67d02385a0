package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentutils/agentutils/internal/approval"
	"github.com/agentutils/agentutils/lib/event"
)

// asking is the ask tool's questions shown as a picker, one question at
// a time: ↑↓ move, space ticks an option of a multi-select question,
// enter picks (or, on the last line, lets the person type their own
// answer), esc answers none of them.
type asking struct {
	qs      []event.AskQuestion
	i       int          // the question shown
	sel     int          // the line under the cursor; len(options) is "type your own"
	ticked  map[int]bool // a multi-select question's ticked options
	typing  *editor      // the person's own answer, being typed
	answers map[string]any
}

func newAsking(payload json.RawMessage) *asking {
	var p struct{ Questions []event.AskQuestion }
	json.Unmarshal(payload, &p)
	a := &asking{qs: p.Questions, answers: map[string]any{}, ticked: map[int]bool{}}
	a.start()
	return a
}

// start shows question i, the cursor on its recommended option.
func (a *asking) start() {
	a.sel, a.ticked, a.typing = 0, map[int]bool{}, nil
	if a.i < len(a.qs) {
		if r := a.qs[a.i].Recommended; r != nil && *r >= 0 && *r < len(a.qs[a.i].Options) {
			a.sel = *r
		}
	}
}

// answer records the shown question's answer and goes to the next; the
// answer to all of them once none is left.
func (a *asking) answer(v any) *approval.Answer {
	a.answers[a.qs[a.i].ID] = v
	a.i++
	if a.i < len(a.qs) {
		a.start()
		return nil
	}
	b, _ := json.Marshal(map[string]any{"answers": a.answers})
	return &approval.Answer{Allow: true, Value: b}
}

func (a *asking) key(k tea.KeyMsg, armed bool) answerKey {
	if a.i >= len(a.qs) {
		return answerKey{answer: &approval.Answer{}, handled: true}
	}
	q := a.qs[a.i]
	if a.typing != nil {
		switch k.Type {
		case tea.KeyEnter:
			if t := strings.TrimSpace(a.typing.String()); t != "" {
				return answerKey{answer: a.answer(t), handled: true}
			}
		case tea.KeyEsc:
			a.typing = nil
		default:
			editKey(a.typing, k)
		}
		return answerKey{handled: true}
	}
	if !armed {
		return answerKey{} // to the editor: type-ahead answers nothing
	}
	switch k.Type {
	case tea.KeyEsc:
		return answerKey{answer: &approval.Answer{}, handled: true}
	case tea.KeyUp, tea.KeyCtrlP:
		a.sel = max(a.sel-1, 0)
	case tea.KeyDown, tea.KeyCtrlN:
		a.sel = min(a.sel+1, len(q.Options))
	case tea.KeySpace:
		if q.Multi && a.sel < len(q.Options) {
			a.ticked[a.sel] = !a.ticked[a.sel]
		}
	case tea.KeyEnter:
		switch {
		case a.sel == len(q.Options):
			a.typing = newEditor(nil)
		case q.Multi:
			var labels []string
			for i, o := range q.Options {
				if a.ticked[i] || len(a.ticked) == 0 && i == a.sel {
					labels = append(labels, o.Label)
				}
			}
			return answerKey{answer: a.answer(labels), handled: true}
		default:
			return answerKey{answer: a.answer(q.Options[a.sel].Label), handled: true}
		}
	default:
		return answerKey{}
	}
	return answerKey{handled: true}
}

func (a *asking) view(width int, armed bool) string {
	if a.i >= len(a.qs) {
		return ""
	}
	q := a.qs[a.i]
	var b strings.Builder
	head := "Question"
	if len(a.qs) > 1 {
		head = fmt.Sprintf("Question %d of %d", a.i+1, len(a.qs))
	}
	b.WriteString(yellow.Render(head+": ") + bold.Render(clip(q.Question, width-len(head)-2)) + "\n")
	for i, o := range q.Options {
		mark := ""
		if q.Multi {
			mark = "[ ] "
			if a.ticked[i] {
				mark = "[x] "
			}
		}
		line := fmt.Sprintf("%d. %s%s", i+1, mark, o.Label)
		if q.Recommended != nil && *q.Recommended == i {
			line += " (recommended)"
		}
		if o.Description != "" {
			line += dim.Render(" — " + o.Description)
		}
		b.WriteString(cursorLine(clip(line, width-4), i == a.sel) + "\n")
	}
	b.WriteString(cursorLine(dim.Render(fmt.Sprintf("%d. type your own answer", len(q.Options)+1)), a.sel == len(q.Options)) + "\n")
	switch {
	case !armed && a.typing == nil:
		b.WriteString(dim.Render("the keys answer in a moment, while the editor is empty (keys typed now go to the editor)") + "\n")
	case a.typing != nil:
		b.WriteString(a.typing.View(width, true) + "\n")
		b.WriteString(dim.Render("enter sends your answer · esc back to the options") + "\n")
	case q.Multi:
		b.WriteString(dim.Render("↑↓ move · space tick · enter send the ticked · esc no answer") + "\n")
	default:
		b.WriteString(dim.Render("↑↓ move · enter pick · esc no answer") + "\n")
	}
	return b.String()
}

func cursorLine(s string, at bool) string {
	if at {
		return accent.Render("› ") + s
	}
	return "  " + s
}

// planDetail is the plan of an exit_plan_mode question, as the card shows
// it: its lines, at most lines of them.
func planDetail(plan string, width, lines int) string {
	return headLines(plan, width, lines, " (e shows and edits it whole)")
}

// planAnswer turns the card's answer (y: approve, a: approve and accept
// edits, n: refuse with a reason) into the exit_plan_mode answer.
func planAnswer(ans approval.Answer, always bool, edited string) approval.Answer {
	if ans.Abort {
		return ans
	}
	pa := event.PlanAnswer{Approved: ans.Allow, Reason: ans.Reason, Plan: edited}
	if ans.Allow {
		pa.Mode = "default"
		if always {
			pa.Mode = "acceptEdits"
		}
	}
	v, _ := json.Marshal(pa)
	return approval.Answer{Allow: true, Value: v}
}
