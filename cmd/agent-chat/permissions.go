package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/permission"
	"github.com/agentutils/agentutils/lib/shpolicy"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// toolClass is what a tool does, for the permission modes: the one place
// that knows agent-tool's tools here (an MCP tool, or any other, has no
// class and needs an allow rule).
func toolClass(name string) string {
	t, ok := tooldef.Lookup(name)
	switch {
	case !ok:
		return ""
	case t.OwnState: // the agent's own list, not the workspace: runs in every mode
		return permission.Read
	}
	return string(t.Class) // lib/permission's classes are the table's
}

// claudeNames are a tool's name and Claude Code's names of it (the
// table's aliases), which rules may use.
func claudeNames(name string) []string {
	t, _ := tooldef.Lookup(name)
	return append([]string{name}, t.Aliases...)
}

// permissionCall describes a call for the policy: names, class, bash's
// script and its redirections' files (those outside the working
// directory need approval), the path argument.
func permissionCall(env *app.Env, name string, args json.RawMessage) permission.Call {
	var a struct {
		Command, Path, Cwd string
	}
	json.Unmarshal(args, &a)
	home := env.Getenv("HOME")
	resolve := func(base, p string) string {
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		return filepath.Clean(p)
	}
	cwd := resolve(env.Dir, a.Cwd)
	c := permission.Call{Names: claudeNames(name), Class: toolClass(name), Command: a.Command,
		Bash: shpolicy.Options{Resolve: func(p string) string { return resolve(cwd, p) },
			File: func(abs string, write bool) string {
				if rel, err := filepath.Rel(env.Dir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
					return ""
				}
				return "a file outside the working directory needs approval."
			}}}
	if a.Path != "" {
		c.Path = resolve(env.Dir, a.Path)
		if rel, err := filepath.Rel(env.Dir, c.Path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			c.Path = rel
		}
	}
	return c
}

// permitted is "" when the call may run, else why not.
func (d *driver) permitted(name string, args json.RawMessage) string {
	p := d.tools.ask.perm.Load()
	if p == nil {
		return ""
	}
	return p.Decide(permissionCall(d.env, name, args))
}

// offered drops the tools a --disallowed-tools rule names whole: the model
// is not told of them.
func offered(p *permission.Policy, tools []llm.Tool) []llm.Tool {
	if p == nil {
		return tools
	}
	return slices.DeleteFunc(tools, func(t llm.Tool) bool {
		names := claudeNames(t.Name)
		for _, r := range p.Deny {
			if r.Spec == "" && slices.Contains(names, r.Tool) {
				return true
			}
		}
		return false
	})
}

// sayPermissions tells stderr what the policy lets run.
func sayPermissions(env *app.Env, p *permission.Policy) {
	if p != nil {
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
