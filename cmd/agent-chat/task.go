package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/contextfiles"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/internal/pipeline"
	"github.com/agentutils/agentutils/internal/subagent"
	"github.com/agentutils/agentutils/lib/config"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/loop"
)

// inherited are the flags a sub-agent's agent-chat gets as they were
// given to this one (the sandbox's come from Options.Sandbox, checked).
var inherited = []string{"models-file", "api-key", "shell-env", "tools-cmd", "permission-mode", "allowed-tools", "disallowed-tools",
	"settings", "answers", "no-context-files", "no-skills", "retries", "retry-base-ms", "max-tokens", "temperature", "cache-retention",
	"max-parallel-tasks", "verbose", "person-approves", "ask-cmd", "task-host"}

// newTaskRunner is the task tool's runner, or nil when it is not offered:
// no tool co-processes, or --max-task-depth 0 (a sub-agent at the depth
// limit). A sub-agent's pipeline runs the commands beside this one's
// executable when they are there, else those on PATH; it inherits the
// model, thinking level, sandbox, tool commands and permissions.
func newTaskRunner(c *cli.Context, o Options, env *app.Env, cat *llm.Catalog, in input, model llm.Model, thinking string, spent *spendMeter, fire func(hooks.Input) hooks.Verdict) (*subagent.Runner, error) {
	if o.MaxTaskDepth <= 0 || len(o.toolCommands()) == 0 {
		return nil, nil
	}
	hosts, err := configTaskHosts(c)
	if err != nil {
		return nil, err
	}
	args := []string{"--model", model.Ref(), "--thinking", thinking, "--max-task-depth", strconv.Itoa(o.MaxTaskDepth - 1)}
	for _, name := range inherited {
		if !c.IsSet(name) {
			continue
		}
		switch v := c.Value(name).(type) {
		case bool:
			if v {
				args = append(args, "--"+name)
			}
		case cli.StringSlice:
			for _, s := range v.Value() {
				args = append(args, "--"+name, s)
			}
		default:
			args = append(args, "--"+name, c.String(name))
		}
	}
	args = append(args, o.Sandbox...)
	r := &subagent.Runner{Session: []string{sibling("agent-session")}, Compact: []string{sibling("agent-compact")}, Chat: []string{sibling("agent-chat")},
		ChatArgs: args, Dir: env.Dir, Env: env.Environment(),
		Own: subagent.ParseBudget(env.Getenv(subagent.BudgetVar), o.MaxTurns), Spent: spent.get,
		Slots: make(chan struct{}, max(o.MaxParallelTasks, 1)), Now: env.Now, Tools: o.Tools}
	if o.Record != "" {
		r.Record = env.Abs(o.Record)
	}
	if o.Replay != "" {
		r.Replay = env.Abs(o.Replay)
	}
	if h := in.st.header; h != nil {
		r.ParentFile, r.ParentID = h.File, h.ID
	}
	r.Agents, _ = contextfiles.Agents(contextfiles.DefaultOptions(env.Dir, env.Getenv))
	r.OnStart = func(id, kind string) []string {
		return fire(hooks.Input{Event: hooks.SubagentStart, AgentID: id, AgentType: kind}).AdditionalContext
	}
	if r.Hosts = hosts; len(hosts) > 0 {
		r.SSH = sshCommand(env.Getenv)
		for _, p := range cat.Providers {
			r.KeyVars = append(r.KeyVars, p.EnvKeys...)
			if p.APIKey != "" && !strings.HasPrefix(p.APIKey, "!") {
				r.KeyVars = append(r.KeyVars, p.APIKey) // a variable's name, or a literal no variable has
			}
		}
	}
	return r, nil
}

// configTaskHosts are the hosts a sub-agent may run on: --task-host,
// AGENT_TASK_HOSTS or the user's config.toml's task.hosts (a project's
// may not allow a host).
func configTaskHosts(c *cli.Context) ([]subagent.Host, error) {
	cfg, _ := c.App.Metadata["config"].(config.Config)
	v := cfg.Get("task.hosts")
	hs, err := subagent.ParseHosts(v.Value)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "%s: %v", v.At(), err)
	}
	return hs, nil
}

// sshCommand is the ssh client a remote sub-agent is reached with: GNU
// parallel's $PARALLEL_SSH, as agent-batch's hosts are (ssh -F FILE, say),
// else ssh.
func sshCommand(getenv func(string) string) []string {
	if s := getenv("PARALLEL_SSH"); s != "" {
		if w, err := pipeline.Words(s, getenv); err == nil {
			return w
		}
	}
	return []string{"ssh"}
}

// sibling is the command name beside this executable, else name (PATH).
func sibling(name string) string {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return name
}

// spendMeter adds up a run's spend for carving sub-agents' budgets: its
// model calls and their usage, and its sub-agents' usage.
type spendMeter struct {
	mu sync.Mutex
	s  subagent.Spent
}

func (m *spendMeter) get() subagent.Spent {
	if m == nil {
		return subagent.Spent{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.s
}

// add counts a model call (turn) or a sub-agent's usage.
func (m *spendMeter) add(turn bool, u *llm.Usage) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if turn {
		m.s.Turns++
	}
	if u != nil {
		m.s.Tokens += u.ContextTokens()
		m.s.Cost = llm.RoundCost(m.s.Cost + u.Cost.Total)
	}
}

// runTask runs a task call on the nested pipeline; its result counts in
// the spend.
func (d *driver) runTask(dsp loop.Dispatch, call event.Call, res llm.Message, msgs chan<- toolMsg) {
	r := d.tools.task.Run(d.ctx, call.ID, call.Arguments, func(o event.ToolOutput) {
		o = d.hideOutput(o)
		msgs <- toolMsg{index: dsp.Index, update: &o}
	})
	var det struct{ Usage *llm.Usage }
	if json.Unmarshal(r.Details, &det) == nil {
		d.spent.add(false, det.Usage)
	}
	res.Content = []llm.Content{llm.TextBlock(d.secrets.HideText(r.Text))}
	res.Details, res.IsError, res.Timestamp = d.secrets.HideJSON(r.Details), r.IsError, d.now()
	msgs <- toolMsg{index: dsp.Index, result: res}
}
