// Package subagent is the task tool: a nested pipeline of the same
// commands as processes (agent-session new --open, agent-chat with the
// parent's tool commands, agent-session append),
// with a session file of its own whose header names the parent session
// and the parent's tool call. agent-chat runs it, not agent-tool: the
// sandbox hides the provider keys from agent-tool, and the nested
// agent-chat needs them (README "Sub-agents").
package subagent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/prompt"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// Name is the tool's name, from the one table.
var Name = tooldef.Names(func(t tooldef.Tool) bool { return t.InChat })[0]

const description = `Hand a self-contained piece of work to a sub-agent: a fresh agent with the same tools (or those listed) in the same workspace and sandbox, and its own context and session. Its final answer is this call's result. Use it for searches and investigations whose intermediate output you do not need, and run independent sub-agents in parallel by calling this tool several times in one message. The prompt must say everything the sub-agent needs: it does not see this conversation. Budgets (turns, tokens, cost, seconds) are capped by what remains of yours.`

const parameters = `{"type":"object","properties":{` +
	`"prompt":{"type":"string","description":"the sub-agent's task, complete in itself"},` +
	`"description":{"type":"string","description":"a few words saying what it does, shown to people"},` +
	`"agent":{"type":"string","description":"the name of an agent definition to run (its system prompt, tools and model)"},` +
	`"tools":{"type":"array","items":{"type":"string"},"description":"the only tools it is offered (default: the agent definition's, else yours)"},` +
	`"max_turns":{"type":"integer","minimum":1,"description":"model calls it may make"},` +
	`"max_tokens":{"type":"integer","minimum":1,"description":"tokens it may spend (input, output and cache, over all its calls)"},` +
	`"max_cost":{"type":"number","exclusiveMinimum":0,"description":"US dollars it may spend"},` +
	`"timeout":{"type":"number","exclusiveMinimum":0,"description":"seconds it may run"}` +
	hostParam +
	`},"required":["prompt"]}`

const hostParam = `,"host":{"type":"string","description":"run it on that machine over ssh (one of the hosts listed), in its working directory there; default: here"}`

// Def is the tool's definition; the agent definitions found are listed
// in its description, each with what it is for.
//
// The hosts a person allowed (task.hosts) are listed too; the host
// argument is offered only when there is one.
func Def(agents []prompt.Agent, hosts []Host) event.ToolDef {
	t, _ := tooldef.Lookup(Name)
	d := description
	params := parameters
	if len(hosts) == 0 {
		params = strings.Replace(parameters, hostParam, "", 1)
	} else {
		var names []string
		for _, h := range hosts {
			names = append(names, h.Dest)
		}
		d += "\n\nHosts (the host argument): " + strings.Join(names, ", ") + "."
	}
	if len(agents) > 0 {
		var b strings.Builder
		b.WriteString(d + "\n\nAgents (the agent argument):")
		for _, a := range agents {
			fmt.Fprintf(&b, "\n- %s: %s", a.Name, strings.Join(strings.Fields(a.Description), " "))
			if len(a.Tools) > 0 {
				fmt.Fprintf(&b, " (tools: %s)", strings.Join(a.Tools, ", "))
			}
		}
		d = b.String()
	}
	return event.ToolDef{Name: t.Name, Label: t.Label, Description: d, Parameters: json.RawMessage(params),
		Concurrency: event.Shared, NonAbortable: t.NonAbortable}
}

// Args are a call's arguments.
type Args struct {
	Prompt      string   `json:"prompt"`
	Description string   `json:"description,omitempty"`
	Agent       string   `json:"agent,omitempty"`
	Tools       []string `json:"tools,omitempty"`
	MaxTurns    int      `json:"max_turns,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	MaxCost     float64  `json:"max_cost,omitempty"`
	Timeout     float64  `json:"timeout,omitempty"`
	Host        string   `json:"host,omitempty"`
}
