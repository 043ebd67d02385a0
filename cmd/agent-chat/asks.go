package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/permission"
)

// asker answers the tools' requests for a person: exit_plan_mode against
// the run's permission mode, then the --answers file, then --ask-cmd;
// what none of them answers is cancelled (no one to ask). It also holds
// the run's permission policy, which an approved plan switches.
type asker struct {
	answers map[string]json.RawMessage // --answers (nil: none)
	cmd     string                     // --ask-cmd ("": none)
	dir     string
	environ []string
	stderr  io.Writer

	perm     atomic.Pointer[permission.Policy] // the run's policy (nil: none refuses)
	mu       sync.Mutex
	approved []string // modes of plans approved, not yet taken by the driver
	// hooks answers the tool processes' prompt and agent hooks (nil: they
	// are cancelled).
	hooks *hookModel
}

// answerFor answers r (called on its own goroutine: it may wait on a
// person).
func (a *asker) answerFor(ctx context.Context, r *event.ToolAsk) *event.Answer {
	cancelled := &event.Answer{RequestID: r.RequestID, Cancelled: true}
	if r.Kind == event.HookPromptKind || r.Kind == event.HookAgentKind {
		if a.hooks == nil {
			return cancelled
		}
		return &event.Answer{RequestID: r.RequestID, Value: a.hooks.answer(ctx, r)}
	}
	if r.Kind == event.PlanKind {
		if p := a.perm.Load(); p == nil || p.Mode != "plan" {
			mode := "default"
			if p != nil && p.Mode != "" {
				mode = p.Mode
			}
			v, _ := json.Marshal(event.PlanAnswer{Approved: true, Mode: mode, NotPlanning: true})
			return &event.Answer{RequestID: r.RequestID, Value: v}
		}
	}
	v, ok := a.given(r)
	if !ok && a.cmd != "" {
		v, ok = a.run(ctx, r)
	}
	if !ok {
		return cancelled
	}
	if r.Kind == event.PlanKind {
		var pa event.PlanAnswer
		if json.Unmarshal(v, &pa) != nil {
			return cancelled
		}
		if pa.Approved {
			if pa.Mode == "" || pa.Mode == "plan" || !slices.Contains(permission.Modes, pa.Mode) {
				pa.Mode = "default"
			}
			a.mu.Lock()
			a.approved = append(a.approved, pa.Mode)
			a.mu.Unlock()
			v, _ = json.Marshal(pa)
		}
	}
	return &event.Answer{RequestID: r.RequestID, Value: v}
}

// given is the --answers file's answer: an ask's questions by id or
// text; an exit_plan_mode's under "exit_plan_mode" (true approves into
// the default mode, an object is the answer itself).
func (a *asker) given(r *event.ToolAsk) (json.RawMessage, bool) {
	if a.answers == nil {
		return nil, false
	}
	switch r.Kind {
	case event.AskKind:
		return event.AnswerAsk(r.Payload, a.answers)
	case event.PlanKind:
		v, ok := a.answers[event.PlanKind]
		if !ok {
			return nil, false
		}
		if b := bytes.TrimSpace(v); string(b) == "true" || string(b) == "false" {
			v, _ = json.Marshal(event.PlanAnswer{Approved: string(b) == "true", Reason: "refused by the answers file"})
		}
		return v, true
	}
	return nil, false
}

// run hands r to --ask-cmd: {"kind","payload"} on its stdin, the answer's
// value (JSON) on its stdout; a failure or no JSON is no answer.
func (a *asker) run(ctx context.Context, r *event.ToolAsk) (json.RawMessage, bool) {
	in, _ := json.Marshal(map[string]any{"kind": r.Kind, "payload": r.Payload})
	cmd := exec.CommandContext(ctx, "sh", "-c", a.cmd)
	cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stderr = a.dir, a.environ, bytes.NewReader(in), a.stderr
	out, err := cmd.Output()
	if err != nil {
		fmt.Fprintf(a.stderr, "agent-chat: --ask-cmd: %v: no answer\n", err)
		return nil, false
	}
	out = bytes.TrimSpace(out)
	if !json.Valid(out) || len(out) == 0 {
		fmt.Fprintf(a.stderr, "agent-chat: --ask-cmd printed no JSON (%q): no answer\n", strings.TrimSpace(string(out)))
		return nil, false
	}
	return out, true
}

// takeApproved is the mode of a plan approved since the last call ("":
// none); the driver switches to it when the exit_plan_mode result comes.
func (a *asker) takeApproved() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.approved) == 0 {
		return ""
	}
	m := a.approved[0]
	a.approved = a.approved[1:]
	return m
}
