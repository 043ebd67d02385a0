package subagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/pipeline"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/prompt"
	"github.com/agentutils/agentutils/lib/render"
	"github.com/agentutils/agentutils/lib/render/show"
)

// Runner runs task calls for one agent-chat.
type Runner struct {
	Session, Compact, Chat []string // the commands of the nested pipeline
	// ChatArgs are the child agent-chat's flags inherited from the parent
	// (model, sandbox, tool commands, permissions, …); Run adds the call's.
	ChatArgs []string
	Dir      string
	Env      []string
	// ParentFile is the parent's session file ("" when it has none: the
	// child's goes to the default directory and names ParentID).
	ParentFile, ParentID string
	Agents               []prompt.Agent
	// Tools are the parent's own --tools (nil: all): a sub-agent gets
	// these when the call and its agent name none, and never others.
	Tools []string
	Own   Budget
	Spent func() Spent  // the parent's spend so far
	Slots chan struct{} // bounds the sub-agents running at once
	Now   func() time.Time
	// Record and Replay are the parent's cassettes: a sub-agent's is the
	// same path with "-<tool call id>" before the extension.
	Record, Replay string
	Grace          time.Duration // from an abort to the kill (default 5 s)
	// OnStart, when set, fires the SubagentStart hooks for the sub-agent
	// (its session id, its agent type); what they return joins its prompt.
	OnStart func(agentID, agentType string) []string
	// Hosts are those a call's host may name (task.hosts): none, no
	// remote sub-agent. SSH is the ssh client command (default ssh);
	// KeyVars the provider key variables a remote one is given.
	Hosts   []Host
	SSH     []string
	KeyVars []string
}

// TypeVar names the sub-agent's type (its agent, else general-purpose) in
// its agent-chat's environment: its SubagentStop hooks read it.
const TypeVar = "AGENT_SUBAGENT_TYPE"

// Result is a finished call: what goes back to the model.
type Result struct {
	Text    string
	Details json.RawMessage
	IsError bool
}

// details are a task result's details (formats/session: a task result).
type details = render.TaskDetails

// progress follows a sub-agent's events.
type progress struct {
	mu      sync.Mutex
	d       details
	running string // the tool call it runs now
	last    string // the text of its last assistant message
	errText string
	budget  Budget
	over    chan string // the first budget broken
}

// live are its details while it runs: a tool_execution_update's.
func (p *progress) live() details {
	d := p.d
	d.Running = p.running
	return d
}

// event folds in one of the sub-agent's events; update is called when
// what a front-end shows changed, with the lines to add to its log
// (none: only the details changed).
func (p *progress) event(ev event.Event, update func(string)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev.Type {
	case event.MessageEnd:
		var m llm.Message
		if json.Unmarshal(ev.Message, &m) != nil || m.Role != "assistant" {
			return
		}
		p.d.Turns++
		if m.Usage != nil {
			addUsage(&p.d.Usage, *m.Usage)
		}
		t := text(m.Content)
		if t != "" {
			p.last = t
		}
		update(t)
		if m.StopReason == llm.StopError && m.ErrorMessage != "" {
			p.errText = m.ErrorMessage
		}
	case event.ToolExecutionStart:
		p.running = show.ToolHeader(ev.ToolName, ev.Args)
		update("→ " + p.running)
	case event.ToolExecutionEnd:
		if ev.ToolName == Name && ev.Result != nil { // a sub-agent's own sub-agent spent too
			var sub details
			if json.Unmarshal(ev.Result.Details, &sub) == nil {
				addUsage(&p.d.Usage, sub.Usage)
			}
		}
		p.running = ""
		update("")
	case event.MaxTurns:
		p.d.Stopped = "turns"
	case event.Error:
		p.errText = ev.ErrorText()
	}
	p.check()
}

// check sends the first budget the spend has broken.
func (p *progress) check() {
	why := ""
	switch {
	case p.budget.Tokens > 0 && p.d.Usage.TotalTokens > p.budget.Tokens:
		why = "tokens"
	case p.budget.Cost > 0 && p.d.Usage.Cost.Total > p.budget.Cost:
		why = "cost"
	}
	if why != "" {
		select {
		case p.over <- why:
		default:
		}
	}
}

func addUsage(u *llm.Usage, v llm.Usage) {
	u.Input += v.Input
	u.Output += v.Output
	u.CacheRead += v.CacheRead
	u.CacheWrite += v.CacheWrite
	u.TotalTokens += v.ContextTokens()
	u.Cost.Input += v.Cost.Input
	u.Cost.Output += v.Cost.Output
	u.Cost.CacheRead += v.Cost.CacheRead
	u.Cost.CacheWrite += v.Cost.CacheWrite
	u.Cost.Total = llm.RoundCost(u.Cost.Total + v.Cost.Total)
}

func text(cs []llm.Content) string {
	var parts []string
	for _, c := range cs {
		if c.Type == "text" && strings.TrimSpace(c.Text) != "" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// maxLog is how many lines of a sub-agent's progress an update holds,
// each cut at maxLine characters.
const maxLog, maxLine = 100, 300

// Run runs one call: a session file, the pipeline, its events followed
// until it ends or is stopped (ctx: the parent's abort; a budget), and
// the result. Each update holds its progress so far, a line per tool
// call ("→ read main.go") and the text of its messages: a front-end shows
// the last lines under the call and the whole when expanded.
func (r *Runner) Run(ctx context.Context, callID string, raw json.RawMessage, update func(event.ToolOutput)) Result {
	var a Args
	if err := json.Unmarshal(raw, &a); err != nil {
		return Result{Text: "invalid arguments: " + err.Error(), IsError: true}
	}
	args, name, err := r.agentArgs(a)
	if err != nil {
		return Result{Text: err.Error(), IsError: true}
	}
	var host Host
	cwd := r.Dir
	if a.Host != "" {
		if host, err = r.host(a.Host); err != nil {
			return Result{Text: err.Error(), IsError: true}
		}
		cwd = host.Dir
	}
	select {
	case r.Slots <- struct{}{}:
		defer func() { <-r.Slots }()
	case <-ctx.Done():
		return Result{Text: "Sub-agent aborted before it started", IsError: true}
	}
	b := Carve(a, r.Own, r.Spent(), r.Now())
	file, id, stream, err := r.newSession(ctx, callID, cwd)
	if err != nil {
		return Result{Text: "cannot create the sub-agent's session: " + err.Error(), IsError: true}
	}
	args = append(args, "--max-turns", strconv.Itoa(b.Turns))
	args = append(args, r.cassettes(callID)...)
	kind := name
	if kind == "" {
		kind = "general-purpose" // Claude Code's name of the agent without a definition
	}
	prompt := a.Prompt
	if r.OnStart != nil {
		for _, c := range r.OnStart(id, kind) {
			prompt += "\n\n" + c
		}
	}
	vars := []string{BudgetVar + "=" + b.Var(), TypeVar + "=" + kind}
	st := &pipeline.Stages{Session: r.Session, Compact: r.Compact, Chat: r.Chat, ChatArgs: append(append([]string(nil), r.ChatArgs...), args...),
		Dir: r.Dir, Env: append(append([]string(nil), r.Env...), vars...), DieWithParent: true}
	if a.Host != "" { // its agent-chat over ssh, its variables on ssh's stdin
		st.Remote, st.ChatArgs = r.remote(host, st.ChatArgs, vars)
		st.Env = r.Env
	}
	p := &progress{d: details{Session: file, SessionID: id, Agent: name, Host: host.Dest}, budget: b, over: make(chan string, 1)}
	var log []string // what it has done so far, the update's text
	send := func(s string) {
		if s != "" {
			for _, l := range strings.Split(s, "\n") {
				log = append(log, show.Clip(l, maxLine))
			}
		}
		if len(log) > maxLog {
			log = log[len(log)-maxLog:]
		}
		content := []event.Content{} // nothing done yet: no text block
		if len(log) > 0 {
			content = append(content, event.Text(strings.Join(log, "\n")))
		}
		update(event.ToolOutput{Content: content, Details: mustJSON(p.live())})
	}
	send("") // its session before it starts: a front-end knows whose approvals it asks
	var errTail tail
	run, err := st.Start(file, pipeline.Opts{Prompt: prompt, Stream: stream}, errTail.add)
	if err != nil {
		return Result{Text: "cannot start the sub-agent: " + err.Error(), IsError: true}
	}
	stopped := make(chan string, 1)
	done := make(chan struct{})
	go r.watch(ctx, run, b, p.over, stopped, done)
	run.ReadEvents(func(ev event.Event, _ bool) { p.event(ev, send) })
	status := run.Wait()
	close(done)
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case why := <-stopped:
		p.d.Stopped = why
	default:
	}
	p.d.ExitCode = status
	return result(p, errTail.String())
}

// result is what the model gets back.
func result(p *progress, stderr string) Result {
	d := mustJSON(p.d)
	switch {
	case p.d.Stopped == "aborted":
		return Result{Text: join("Sub-agent aborted.", p.last), Details: d, IsError: true}
	case p.d.Stopped != "":
		return Result{Text: join(fmt.Sprintf("Sub-agent stopped: over its %s budget.", p.d.Stopped), p.last), Details: d, IsError: true}
	case p.d.ExitCode != 0:
		why := p.errText
		if why == "" {
			why = stderr
		}
		return Result{Text: join(fmt.Sprintf("Sub-agent failed (exit status %d): %s", p.d.ExitCode, why), p.last), Details: d, IsError: true}
	}
	return Result{Text: p.last, Details: d}
}

func join(head, last string) string {
	if last == "" {
		return head
	}
	return head + " Its last message:\n\n" + last
}

// watch stops the run on the parent's abort, at the deadline or over a
// budget: SIGINT to its agent-chat (which ends the run, writing what it
// has), then, after the grace, SIGKILL to every process of the pipeline.
func (r *Runner) watch(ctx context.Context, run *pipeline.Run, b Budget, over <-chan string, stopped chan<- string, done <-chan struct{}) {
	var deadline <-chan time.Time
	if !b.Deadline.IsZero() {
		t := time.NewTimer(b.Deadline.Sub(r.Now()))
		defer t.Stop()
		deadline = t.C
	}
	why := ""
	select {
	case <-done:
		return
	case <-ctx.Done():
		why = "aborted"
	case <-deadline:
		why = "time"
	case why = <-over:
	}
	stopped <- why
	run.Abort()
	grace := r.Grace
	if grace == 0 {
		grace = 5 * time.Second
	}
	select {
	case <-done:
	case <-time.After(grace):
		run.Kill()
	}
}

// agentArgs are the child agent-chat's flags for the call's agent
// definition and tools, and the agent's name.
func (r *Runner) agentArgs(a Args) ([]string, string, error) {
	var args []string
	tools := a.Tools
	if a.Agent != "" {
		var def *prompt.Agent
		var names []string
		for i := range r.Agents {
			names = append(names, r.Agents[i].Name)
			if r.Agents[i].Name == a.Agent {
				def = &r.Agents[i]
			}
		}
		if def == nil {
			return nil, "", fmt.Errorf("no agent %q (agents: %s)", a.Agent, strings.Join(names, ", "))
		}
		if def.Prompt != "" {
			args = append(args, "--system-prompt", def.Prompt)
		}
		if def.Model != "" {
			args = append(args, "--model", def.Model)
		}
		if len(tools) == 0 {
			tools = def.Tools
		}
	}
	if len(tools) == 0 {
		tools = r.Tools
	}
	for _, t := range tools {
		if len(r.Tools) > 0 && !slices.Contains(r.Tools, t) {
			return nil, "", fmt.Errorf("tool %q is not one of this agent's (%s)", t, strings.Join(r.Tools, ", "))
		}
	}
	if len(tools) > 0 {
		args = append(args, "--tools", strings.Join(tools, ","))
	}
	return args, a.Agent, nil
}

// newSession creates the sub-agent's session file: beside the parent's,
// in a directory named after it, its header naming the parent and the
// call (cwd: where it works, on its host). It returns the file, its id and its stream (agent-session new
// --open prints it: a new session has nothing to open or compact, so
// agent-chat reads it as it is, two processes fewer).
func (r *Runner) newSession(ctx context.Context, callID, cwd string) (string, string, []byte, error) {
	argv := append(append([]string(nil), r.Session...), "new", "--open", "--cwd", cwd, "--parent-tool-call", callID)
	parent := r.ParentFile
	if parent != "" {
		dir := strings.TrimSuffix(strings.TrimSuffix(parent, ".zst"), ".jsonl")
		argv = append(argv, "--session-dir", dir)
	} else {
		parent = r.ParentID
	}
	if parent != "" {
		argv = append(argv, "--parent", parent)
	}
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Dir, c.Env = r.Dir, r.Env
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return "", "", nil, errors.New(app.FailText(err, errb.Bytes()))
	}
	var h struct{ File, ID string }
	if err := json.Unmarshal(out.Bytes(), &h); err != nil || h.File == "" {
		return "", "", nil, fmt.Errorf("agent-session new --open printed %q", out.String())
	}
	return h.File, h.ID, out.Bytes(), nil
}

// cassettes are the child's --record or --replay: the parent's path with
// "-<call id>" before the extension.
func (r *Runner) cassettes(callID string) []string {
	name := func(p string) string {
		ext := filepath.Ext(p)
		return strings.TrimSuffix(p, ext) + "-" + callID + ext
	}
	switch {
	case r.Record != "":
		return []string{"--record", name(r.Record)}
	case r.Replay != "":
		return []string{"--replay", name(r.Replay)}
	}
	return nil
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// tail keeps the last lines written to it (a failed sub-agent's stderr).
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (t *tail) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, s)
	if len(t.lines) > 5 {
		t.lines = t.lines[1:]
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
