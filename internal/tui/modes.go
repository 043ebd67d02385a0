package tui

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/permission"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// cycled are the permission modes shift+tab goes through, in order.
var cycled = []string{"default", "acceptEdits", "plan"}

// modeNames are how the footer and the notices name the modes.
var modeNames = map[string]string{"default": "default mode", "acceptEdits": "accept edits", "plan": "plan mode", "bypassPermissions": "bypass permissions"}

// currentMode is the permission mode of the next runs.
func (a *agent) currentMode() string {
	if a.mode == "" {
		return "default"
	}
	return a.mode
}

// setMode chooses the permission mode of the next runs (agent-chat
// records it in the session: a mode_change entry).
func (m *Model) setMode(mode string) {
	m.a.mode = mode
	what := map[string]string{
		"default":           "edits and commands are asked for",
		"acceptEdits":       "edits run unasked, commands are asked for",
		"plan":              "only tools that read run, until you approve the model's plan",
		"bypassPermissions": "every tool runs unasked",
	}[mode]
	m.info = modeNames[mode] + ": " + what
	if m.phase == running && mode != "acceptEdits" {
		m.info += " (from the next prompt)"
	}
}

// cycleMode (shift+tab) goes to the next mode: default → accept edits →
// plan → default.
func (m *Model) cycleMode() {
	i := slices.Index(cycled, m.a.currentMode())
	m.setMode(cycled[(i+1)%len(cycled)])
}

// planCommand is /plan: plan mode on, or off again (default mode).
func (m *Model) planCommand() {
	if m.a.currentMode() == "plan" {
		m.setMode("default")
		return
	}
	m.setMode("plan")
}

// approvedByMode: the mode runs the call unasked (acceptEdits an edit,
// bypassPermissions any).
func (a *agent) approvedByMode(tool string) bool {
	t, ok := tooldef.Lookup(tool)
	switch a.currentMode() {
	case "bypassPermissions":
		return true
	case "acceptEdits":
		return ok && t.Class == tooldef.Write
	}
	return false
}

// allowedByRule: an allow rule covers the call, so it runs unasked (the
// rules agent-chat applies in a pipe, where no one is asked).
func (a *agent) allowedByRule(in hooks.Input) bool {
	if len(a.Allow) == 0 {
		return false
	}
	p := permission.Policy{Allow: a.Allow}
	return p.Decide(permission.CallOf(a.Dir, a.Getenv("HOME"), in.ToolName, in.ToolInput)) == ""
}

// modeFrom reads a mode_change entry of a run's events (agent-chat's, when
// a plan was approved or the run's mode differs from the session's).
func (a *agent) modeFrom(ev event.Event) {
	if ev.Type != event.Entry {
		return
	}
	var e struct{ Type, Mode string }
	if json.Unmarshal(ev.Entry, &e) == nil && e.Type == "mode_change" && slices.Contains(permission.Modes, e.Mode) {
		a.mode, a.sessionMode = e.Mode, e.Mode
	}
}

// modeArgs are agent-chat's flags for the mode chosen: none until one is
// (then agent-chat's own configuration decides), nor while it is the
// session's (agent-chat reads it there).
func (a *agent) modeArgs() []string {
	if a.mode == "" || a.mode == a.sessionMode {
		return nil
	}
	return []string{"--permission-mode", a.mode}
}

// modeBadge is the footer's word for a mode other than default.
func (a *agent) modeBadge() string {
	if a.currentMode() == "default" {
		return ""
	}
	return modeNames[a.currentMode()] + " (shift+tab)"
}

// editPlan (e at a plan's card) opens the plan in the person's editor;
// what it holds when the editor exits is the plan approved next.
func (m *Model) editPlan(p *pending) tea.Cmd {
	f, err := os.CreateTemp("", "agent-plan-*.md")
	if err == nil {
		_, err = f.WriteString(*p.plan)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		m.fail("edit the plan", err)
		return nil
	}
	return m.runEditor(f.Name(), func(err error) tea.Msg { return planEdited{p: p, file: f.Name(), err: err} })
}

// planEdited is the plan's file back from the editor.
type planEdited struct {
	p    *pending
	file string
	err  error
}

func (m *Model) planEdited(e planEdited) tea.Cmd {
	m.outside = false
	defer os.Remove(e.file)
	b, err := os.ReadFile(e.file)
	if e.err != nil || err != nil {
		m.fail("edit the plan", errors.Join(e.err, err))
		return nil
	}
	if t := strings.TrimRight(string(b), "\n"); t != *e.p.plan {
		*e.p.plan, e.p.edited = t, true
		lines := 20
		if m.height > 0 {
			lines = max(m.height-12, 5)
		}
		e.p.detail = planDetail(t, m.width, lines)
		m.info = "the plan is edited: y or a approves it as it is now"
	}
	return nil
}
