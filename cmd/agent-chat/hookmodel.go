package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/internal/provider"
	"github.com/agentutils/agentutils/internal/subagent"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
)

// hookModel is what a run's prompt, agent and async hooks use: its
// client and model, its task runner (agent hooks: nil without one), and
// the notices the model reads at its next turn.
type hookModel struct {
	client  *provider.Client
	model   llm.Model
	cat     *llm.Catalog
	opts0   llm.Options
	task    *subagent.Runner
	notes   *notices
	pending sync.WaitGroup
	n       atomic.Int64 // numbers the agent hooks' sub-agents
}

// opts are the hooks' options for one event.
func (h *hookModel) opts(warn func(string)) hooks.Opts {
	o := hooks.Opts{Warn: warn, Ask: h.ask, Pending: &h.pending}
	if h.task != nil {
		o.Agent = h.agent
	}
	o.Async = func(text string) {
		h.notes.add(&event.Notice{CustomType: hooks.NoticeType, Text: text})
	}
	return o
}

// pick is the model a hook names when the run's provider serves it, else
// the run's model.
func (h *hookModel) pick(name string) llm.Model {
	if name == "" || h.cat == nil {
		return h.model
	}
	if m, _, err := h.cat.Resolve(name); err == nil && m.Provider == h.model.Provider {
		return m
	}
	return h.model
}

// ask is a prompt hook's model call: one request, the question as the
// user's message, hooks.QuestionSystem as the system prompt.
func (h *hookModel) ask(ctx context.Context, model, prompt string) (string, error) {
	if h.client == nil {
		return "", errors.New("no model client")
	}
	msg, err := json.Marshal(llm.Message{Role: "user", Content: []llm.Content{{Type: "text", Text: prompt}}, Timestamp: 1})
	if err != nil {
		return "", err
	}
	o := h.opts0
	o.Thinking = ""
	m, err := h.client.Stream(ctx, h.pick(model), llm.Context{SystemPrompt: hooks.QuestionSystem, History: []json.RawMessage{msg}}, o, func(llm.Event) {})
	if err != nil {
		return "", err
	}
	if m.StopReason == llm.StopError || m.StopReason == llm.StopAborted {
		return "", fmt.Errorf("the model call failed: %s", m.ErrorMessage)
	}
	var parts []string
	for _, c := range m.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, ""), nil
}

// agentTools are an agent hook's sub-agent's tools: it reads, it does
// not change anything.
var agentTools = []string{"read", "grep", "find", "ls"}

// agent runs an agent hook: a sub-agent of the task tool's runner with
// the read tools and up to 50 turns (Claude Code's), its final answer.
func (h *hookModel) agent(ctx context.Context, model, prompt string) (string, error) {
	args, err := json.Marshal(subagent.Args{Prompt: prompt + "\n\n" + hooks.QuestionSystem, Description: "agent hook", Tools: agentTools, MaxTurns: 50})
	if err != nil {
		return "", err
	}
	r := h.verifier().Run(ctx, fmt.Sprintf("hook-%d", h.n.Add(1)), args, func(event.ToolOutput) {})
	if r.IsError {
		return "", fmt.Errorf("the agent hook's sub-agent: %s", r.Text)
	}
	return r.Text, nil
}

// answer answers a tool process's hook_prompt or hook_agent request
// (formats/tool-protocol) with the model's or the sub-agent's text.
func (h *hookModel) answer(ctx context.Context, r *event.ToolAsk) json.RawMessage {
	var q event.HookQuestion
	var a event.HookAnswer
	var err error
	switch {
	case json.Unmarshal(r.Payload, &q) != nil || q.Prompt == "":
		err = errors.New("a hook request without a prompt")
	case r.Kind == event.HookAgentKind && h.task == nil:
		err = errors.New("agent hooks need the task tool (agent-chat --max-task-depth 0 has none)")
	case r.Kind == event.HookAgentKind:
		a.Text, err = h.agent(ctx, q.Model, q.Prompt)
	default:
		a.Text, err = h.ask(ctx, q.Model, q.Prompt)
	}
	if err != nil {
		a.Error = err.Error()
	}
	b, _ := json.Marshal(a)
	return b
}

// verifier is the task runner for agent hooks: the task tool's, but its
// sub-agents run no hooks (no --settings: an agent hook on the tool
// events would fire again on the verifier's own reads) and fire no
// SubagentStart.
func (h *hookModel) verifier() *subagent.Runner {
	r := *h.task
	r.OnStart = nil
	r.ChatArgs = nil
	for i := 0; i < len(h.task.ChatArgs); i++ {
		if a := h.task.ChatArgs[i]; a == "--settings" && i+1 < len(h.task.ChatArgs) {
			i++
			continue
		}
		r.ChatArgs = append(r.ChatArgs, h.task.ChatArgs[i])
	}
	return &r
}
