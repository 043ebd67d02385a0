package tui

import (
	"context"
	"fmt"
	"strings"

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
// startup, resume, clear): what its hooks add joins the system prompt of
// the session's runs.
func (a *agent) sessionStart(source string, warn func(string)) {
	if source == "startup" && a.state.messages > 0 {
		source = "resume"
	}
	model := a.Model
	if model == "" {
		model = a.state.modelRef
	}
	v := a.fire(hooks.Input{Event: hooks.SessionStart, Source: source, Model: model}, warn)
	a.sessionContext = strings.Join(v.AdditionalContext, "\n\n")
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
