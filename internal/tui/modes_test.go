package tui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/internal/approval"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/permission"
)

// TestModes: shift+tab cycles the modes, the footer shows one that is not
// default, agent-chat gets the flag unless the session has the mode, and
// accept edits approves the write tools only.
func TestModes(t *testing.T) {
	m, _ := testModel(t)
	var seen []string
	for range 3 {
		m.Update(tea.KeyMsg{Type: tea.KeyShiftTab})
		seen = append(seen, m.a.currentMode())
	}
	if diff := cmp.Diff([]string{"acceptEdits", "plan", "default"}, seen); diff != "" {
		t.Errorf("shift+tab (-want +got)\n%s", diff)
	}
	m.Update(submitMsg("/plan"))
	if f := ansi.Strip(m.a.footer(200)); !strings.Contains(f, "plan mode (shift+tab)") {
		t.Errorf("footer in plan mode: %q", f)
	}
	if got := strings.Join(m.a.modeArgs(), " "); got != "--permission-mode plan" {
		t.Errorf("modeArgs = %q", got)
	}
	m.a.modeFrom(event.Event{Type: event.Entry, Entry: json.RawMessage(`{"type":"mode_change","mode":"acceptEdits"}`)})
	if m.a.currentMode() != "acceptEdits" || m.a.modeArgs() != nil {
		t.Errorf("after the session's mode_change: mode %q, args %q", m.a.currentMode(), m.a.modeArgs())
	}
	for tool, want := range map[string]bool{"edit": true, "write": true, "bash": false, "read": false} {
		if got := m.a.approvedByMode(tool); got != want {
			t.Errorf("acceptEdits approves %s: %v", tool, got)
		}
	}
}

// TestPlanAnswer: the card's keys become exit_plan_mode's answer.
func TestPlanAnswer(t *testing.T) {
	for _, c := range []struct {
		ans    approval.Answer
		always bool
		edited string
		want   string
	}{
		{approval.Answer{Allow: true}, false, "", `{"approved":true,"mode":"default"}`},
		{approval.Answer{Allow: true}, true, "1. less", `{"approved":true,"mode":"acceptEdits","plan":"1. less"}`},
		{approval.Answer{Reason: "too big"}, false, "", `{"approved":false,"reason":"too big"}`},
	} {
		got := planAnswer(c.ans, c.always, c.edited)
		if !got.Allow || string(got.Value) != c.want {
			t.Errorf("planAnswer(%+v, %v) = %+v, want the value %s", c.ans, c.always, got, c.want)
		}
	}
}

// TestAsking: enter takes the recommended option, space ticks several,
// the last line takes typed words; the answers go out once all are given.
func TestAsking(t *testing.T) {
	a := newAsking(json.RawMessage(`{"questions":[{"id":"c","question":"Colour?","options":[{"label":"red"},{"label":"blue"}],"recommended":1},` +
		`{"id":"p","question":"Parts?","options":[{"label":"api"},{"label":"cli"}],"multi":true},{"id":"n","question":"Name?"}]}`))
	keys := []tea.KeyMsg{{Type: tea.KeyEnter}, {Type: tea.KeySpace}, {Type: tea.KeyDown}, {Type: tea.KeySpace}, {Type: tea.KeyEnter},
		{Type: tea.KeyEnter}, {Type: tea.KeyRunes, Runes: []rune("Zed")}, {Type: tea.KeyEnter}}
	var last answerKey
	for i, k := range keys {
		if last.answer != nil {
			t.Fatalf("answered before key %d", i)
		}
		last = a.key(k, true)
	}
	if last.answer == nil || string(last.answer.Value) != `{"answers":{"c":"blue","n":"Zed","p":["api","cli"]}}` {
		t.Errorf("answer %+v", last.answer)
	}
	if a2 := newAsking(json.RawMessage(`{"questions":[{"id":"c","question":"Colour?","options":[{"label":"red"}]}]}`)); a2.key(tea.KeyMsg{Type: tea.KeyEnter}, false).handled {
		t.Error("a key answered before the guard")
	}
}

// TestAllowRulesAnswer: a call an allow rule (--allowed-tools,
// permissions.allow) covers is approved without the card; others are
// shown, and a rule for one command does not cover a script that adds a
// redirection or a second command.
func TestAllowRulesAnswer(t *testing.T) {
	m, _ := testModel(t)
	rules, err := permission.ParseRules([]string{"Bash(agent-grep:*)", "Edit(docs/**)"})
	if err != nil {
		t.Fatal(err)
	}
	m.a.Allow, m.a.Getenv = rules, func(string) string { return "/home/u" }
	for _, c := range []struct {
		tool, input string
		unasked     bool
	}{
		{"bash", `{"command":"agent-grep -c func /usr/local/go/src/strings"}`, true},
		{"bash", `{"command":"agent-grep x > out.txt; rm -rf ~"}`, false},
		{"bash", `{"command":"rm -rf build"}`, false},
		{"edit", `{"path":"docs/a.md"}`, true},
		{"edit", `{"path":"main.go"}`, false},
	} {
		req := approval.NewRequest(hooks.Input{ToolName: c.tool, ToolInput: json.RawMessage(c.input)})
		m.ask(req)
		select {
		case a := <-req.Reply:
			if !c.unasked || !a.Allow {
				t.Errorf("%s %s: answered %+v without the person", c.tool, c.input, a)
			}
		default:
			if c.unasked {
				t.Errorf("%s %s: asked, though a rule covers it", c.tool, c.input)
			}
			m.approve = approvals{}
		}
	}
}
