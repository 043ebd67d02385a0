package tui

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentutils/agentutils/internal/approval"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// fire runs the hooks of an event with the session's fields filled in;
// what they say for the user goes to warn (nil: dropped).
func (a *agent) fire(in hooks.Input, warn func(string)) hooks.Verdict {
	if !hooks.Has(a.Hooks, in.Event) {
		return hooks.Verdict{}
	}
	in.SessionID, in.TranscriptPath, in.Cwd = a.state.id, a.File, a.Dir
	in.PermissionMode = a.mode
	if in.PermissionMode == "" {
		in.PermissionMode = "default"
	}
	if warn == nil {
		warn = func(string) {}
	}
	return hooks.Run(context.Background(), a.Hooks, in, nil, warn)
}

// sessionStart fires SessionStart for the session now open (source:
// startup, resume, clear, compact): what its hooks add joins the system
// prompt of the session's runs, and the variables they write to
// CLAUDE_ENV_FILE are in the runs' environment (the tools' bash gets
// them as agent-chat hands its environment on: names that look secret
// only when --shell-env names them).
func (a *agent) sessionStart(source string, warn func(string)) {
	if !hooks.Has(a.Hooks, hooks.SessionStart) {
		return
	}
	if source == "startup" && a.state.messages > 0 {
		source = "resume"
	}
	model := a.Model
	if model == "" {
		model = a.state.modelRef
	}
	if warn == nil {
		warn = func(string) {}
	}
	file, rm, err := hooks.NewEnvFile()
	if err != nil {
		warn(fmt.Sprintf("CLAUDE_ENV_FILE: %v", err))
	}
	defer rm()
	v := a.fire(hooks.Input{Event: hooks.SessionStart, Source: source, Model: model, EnvFile: file}, warn)
	a.sessionContext = strings.Join(v.AdditionalContext, "\n\n")
	if a.baseEnv == nil {
		a.baseEnv = slices.Clip(a.Stages.Env)
		if a.baseEnv == nil {
			a.baseEnv = os.Environ()
		}
	}
	// After a compaction the session goes on: what the hooks wrote before
	// stays, what they write now is added (a new session starts afresh).
	base := a.baseEnv
	if source == "compact" {
		base = slices.Clip(a.Stages.Env)
	}
	vars, err := hooks.ReadEnvFile(context.Background(), file, base)
	if err != nil {
		warn(err.Error())
	}
	a.Stages.Env = append(base, vars...)
}

// sessionEnd fires SessionEnd (reason: prompt_input_exit, clear, other).
func (a *agent) sessionEnd(reason string, warn func(string)) {
	a.fire(hooks.Input{Event: hooks.SessionEnd, Reason: reason}, warn)
}

// notify fires the Notification hooks in the background: a person is
// asked (permission_prompt, elicitation_dialog) or the agent waits for a
// prompt (idle_prompt).
func (a *agent) notify(kind, message string) {
	if !hooks.Has(a.Hooks, hooks.Notification) {
		return
	}
	in := hooks.Input{Event: hooks.Notification, NotificationType: kind, Message: message, Title: "agent"}
	go a.fire(in, nil)
}

// askedAbout is the Notification message of an approval: "agent needs
// your permission to use Bash", as Claude Code words it.
func askedAbout(req *approval.Request) string {
	name := req.In.ToolName
	if t, ok := tooldef.Lookup(name); ok && len(t.Aliases) > 0 {
		name = t.Aliases[0]
	}
	return fmt.Sprintf("agent needs your permission to use %s", name)
}

// hookArgs are the agent-chat flags of the hooks: the settings files (the
// tool hooks reach agent-tool through them), the SessionStart context,
// and --no-session-hooks (agent fires those once a session).
func (a *agent) hookArgs() []string {
	if len(a.SettingsFiles) == 0 {
		return nil
	}
	out := []string{"--no-session-hooks"}
	for _, f := range a.SettingsFiles {
		out = append(out, "--settings", f)
	}
	if a.sessionContext != "" {
		out = append(out, "--append-system-prompt", a.sessionContext)
	}
	return out
}

// idleWait follows the waits for a prompt after an answer: after
// IdleNotify of one with no key pressed, the Notification hooks hear
// idle_prompt, once a wait (as Claude Code after its 60 s).
type idleWait struct {
	answered bool // a run has ended: the agent waits for the person
	gen      int  // the wait the tick is for
	armed    bool // a tick is under way for this wait
	told     bool // this wait was told
}

// idleMsg is the tick of wait gen.
type idleMsg int

// idleCheck arms, disarms or fires the idle notification after msg.
func (m *Model) idleCheck(msg tea.Msg) tea.Cmd {
	w, d := &m.idle, m.a.IdleNotify
	switch msg := msg.(type) {
	case tea.KeyMsg:
		w.armed, w.told = false, false
		w.gen++
	case runDoneMsg:
		w.answered = true
	case idleMsg:
		if int(msg) == w.gen && w.armed && m.waiting() {
			w.told = true
			m.a.notify("idle_prompt", "agent is waiting for your input")
		}
		return nil
	}
	if d <= 0 || !w.answered || w.armed || w.told || !m.waiting() {
		if !m.waiting() {
			w.armed, w.told = false, false
			w.gen++
		}
		return nil
	}
	w.armed = true
	gen := w.gen
	return tea.Tick(d, func(time.Time) tea.Msg { return idleMsg(gen) })
}

// waiting: nothing runs and nothing is asked: the agent waits for a
// prompt.
func (m *Model) waiting() bool {
	return m.phase == idle && m.run == nil && m.approve.active() == nil && len(m.queued) == 0
}
