package main

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/permission"
)

// permitted is "" when the call may run, else why not. A call that needs
// approval goes to the PermissionRequest hooks, which may allow it (with
// updated arguments) or deny it.
func (d *driver) permitted(name string, args json.RawMessage) (string, json.RawMessage) {
	p := d.tools.ask.perm.Load()
	if p == nil {
		return "", args
	}
	c := permission.CallOf(d.env.Dir, d.env.Getenv("HOME"), name, args)
	why := p.Decide(c)
	if why == "" || !d.permHooks || p.Denied(c) != "" {
		return why, args
	}
	v := d.fire(hooks.Input{Event: hooks.PermissionRequest, ToolName: name, ToolInput: args})
	switch {
	case v.Block:
		return fmt.Sprintf("Permission to use %s was denied by a PermissionRequest hook: %s", c.Names[0], v.Reason), args
	case v.Allow && v.UpdatedInput != nil:
		return "", v.UpdatedInput
	case v.Allow:
		return "", args
	}
	return why, args
}

// offered drops the tools a --disallowed-tools rule names whole: the model
// is not told of them.
func offered(p *permission.Policy, tools []llm.Tool) []llm.Tool {
	if p == nil {
		return tools
	}
	return slices.DeleteFunc(tools, func(t llm.Tool) bool {
		names := permission.Names(t.Name)
		for _, r := range p.Deny {
			if r.Spec == "" && slices.Contains(names, r.Tool) {
				return true
			}
		}
		return false
	})
}

// sayPermissions tells stderr what the policy lets run, in a pipe: with a
// person approving, the front-end shows the mode and asks itself.
func sayPermissions(env *app.Env, p *permission.Policy) {
	if p != nil && !p.Asked {
		fmt.Fprintf(env.Stderr, "agent-chat: %s\n", p.Summary())
	}
}

// planApproved switches the run to the mode of the plan the person just
// approved (an exit_plan_mode result): the event of the mode_change entry
// to record, or nil.
func (d *driver) planApproved(res llm.Message) *event.Event {
	if res.ToolName != event.PlanKind || res.IsError {
		return nil
	}
	mode := d.tools.ask.takeApproved()
	p := d.tools.ask.perm.Load()
	if mode == "" || p == nil {
		return nil
	}
	q := *p
	q.Mode = mode
	d.tools.ask.perm.Store(&q)
	return modeEvent(mode)
}

// modeEvent is a mode_change entry (formats/session, pi's shape).
func modeEvent(mode string) *event.Event {
	return &event.Event{Type: event.Entry, Entry: msgJSON(struct {
		Type string `json:"type"`
		Mode string `json:"mode"`
	}{"mode_change", mode})}
}
