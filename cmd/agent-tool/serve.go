package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/internal/jobs"
	"github.com/agentutils/agentutils/internal/toolproto"
	"github.com/agentutils/agentutils/internal/tools"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/jsonschema"
	"github.com/agentutils/agentutils/lib/tooldef"
)

func serveCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "speak the tool co-process protocol on stdin/stdout",
		Description: `Answers hello with the tools, runs calls concurrently (exclusive tools one at a time),
streams update messages for long bash calls, honours cancel, and answers each call with exactly one
result. A line that is not a protocol message is answered with a log record of level error and
skipped. At EOF on stdin it lets running calls finish, writes their results and exits 0.

Example:
   agent-chat --tools-cmd "agent-tool serve --tools read,edit,bash" "fix the test"`,
		Flags: append(callFlags(), toolsFlag, memoryFlag),
		Action: func(c *cli.Context) error {
			ts, err := selected(c)
			if err != nil {
				return exit.Wrap(exit.Usage, err)
			}
			tenv, err := toolEnv(c, env)
			if err != nil {
				return err
			}
			defer tenv.Close()
			g, err := newGate(c, ts)
			if err != nil {
				return err
			}
			return serve(c.Context, ts, tenv, g, env.Stdin, env.Stdout)
		},
	}
}

// server is one serve session: its tools and the protocol server (the
// writer shared by every call's goroutine, and the running calls).
type server struct {
	*toolproto.Server
	tools  []tools.Tool
	env    *tools.Env
	shared sync.RWMutex // write-held by an exclusive tool while it runs, read-held by the others
	gate   *gate
	hooks  bool // false when hello says the parent fires the hooks

	noticeMu sync.Mutex
	closed   bool                // stdin ended: the notices not sent are left for the next serve
	watched  map[string]struct{} // the jobs whose end is watched
}

func serve(ctx context.Context, ts []tools.Tool, env *tools.Env, g *gate, in io.Reader, out io.Writer) error {
	s := &server{Server: toolproto.NewServer(out), tools: ts, env: env, gate: g, hooks: true, watched: map[string]struct{}{}}
	g.notify = func(text string) { s.Send(&event.Notice{CustomType: hooks.NoticeType, Text: text}) }
	g.ask, g.agent = hooks.ViaParent(func(ctx context.Context, kind string, payload []byte) ([]byte, bool) {
		a := s.Ask(ctx, kind, payload)
		return a.Value, !a.Cancelled
	})
	if env.Jobs != nil {
		env.Jobs.Started = s.watchJob
	}
	env.Ask = func(ctx context.Context, kind string, payload []byte) ([]byte, bool) { // the ask tool's questions go to the parent
		a := s.Ask(ctx, kind, payload)
		return a.Value, !a.Cancelled
	}
	// At EOF every running call finishes and answers, then serve returns
	// (a parent that wants them stopped sends cancel first).
	_ = s.Serve(in, toolproto.Handlers{
		Message: func(msg any, n int) error { s.handle(ctx, msg, n); return nil },
		BadLine: func(n int, err error) {
			s.Send(&event.Log{Level: "error", Msg: fmt.Sprintf("stdin:%d: %v (line skipped)", n, err)})
		},
		LongLine: func(n, size int) {
			s.Send(&event.Log{Level: "error", Msg: fmt.Sprintf("stdin:%d: a line of %d bytes is over the %d byte limit (line skipped)", n, size, toolproto.MaxLine)})
		},
	})
	g.wait() // the async hooks' answers go out before serve ends
	s.noticeMu.Lock()
	s.closed = true
	s.noticeMu.Unlock()
	return nil
}

// reportJobs tells of the jobs of the session's jobs directory that
// ended while no serve ran (between two prompts of agent), and watches
// those that run.
func (s *server) reportJobs() {
	if s.env.Jobs == nil || s.env.Jobs.Directory() == "" {
		return
	}
	for _, j := range jobs.List(s.env.Jobs.Directory()) {
		if j.State == jobs.Running {
			s.watchJob(j.ID)
		} else if !j.Reported {
			s.notice(j.ID)
		}
	}
}

// watchJob sends the notice of job id when it ends.
func (s *server) watchJob(id string) {
	s.noticeMu.Lock()
	_, seen := s.watched[id]
	s.watched[id] = struct{}{}
	s.noticeMu.Unlock()
	if seen {
		return
	}
	dir := s.env.Jobs.Directory()
	go func() {
		jobs.Wait(dir, id)
		s.notice(id)
	}()
}

// notice tells the model that job id ended, once (another serve, or the
// job tool that showed the end, may have told it already).
func (s *server) notice(id string) {
	s.noticeMu.Lock()
	defer s.noticeMu.Unlock()
	dir := s.env.Jobs.Directory()
	if s.closed || !jobs.MarkReported(dir, id) {
		return
	}
	text, j, err := tools.JobEndNotice(dir, id, s.env.Now())
	if err != nil {
		return
	}
	b, _ := json.Marshal(j)
	s.Send(&event.Notice{CustomType: tools.JobEndType, Text: text, Details: b})
}

func (s *server) handle(ctx context.Context, msg any, n int) {
	switch m := msg.(type) {
	case *event.Hello:
		if m.Cwd != "" {
			s.env.Cwd = m.Cwd
		}
		if m.Hooks != nil {
			s.hooks = *m.Hooks
		}
		if m.EditMode != "" && m.EditMode != s.env.EditMode {
			s.setEditMode(m.EditMode)
		}
		if m.StateDir != "" && s.env.StateDir == "" {
			s.env.StateDir = m.StateDir
		}
		s.env.Session = m.SessionID
		offer := s.tools
		if len(m.Tools) > 0 {
			sel, err := tools.Select(m.Tools, s.env.EditMode)
			if err != nil {
				s.Send(&event.Log{Level: "error", Msg: err.Error()})
			} else {
				offer = sel
			}
		}
		s.reportJobs() // before the tools: the parent has them for its first request
		reply := &event.Tools{Tools: []event.ToolDef{}}
		for _, t := range offer {
			reply.Tools = append(reply.Tools, t.Def)
		}
		s.Send(reply)
	case *event.Call:
		s.call(ctx, m)
	case *event.Cancel:
		s.Cancel(m.ID)
	case *event.Answer:
		if !s.Answered(m) {
			s.Send(&event.Log{Level: "warn", Msg: fmt.Sprintf("stdin:%d: an answer to %q, which no call is waiting for (line skipped)", n, m.RequestID)})
		}
	default:
		s.Send(&event.Log{Level: "error", Msg: fmt.Sprintf("stdin:%d: a %T is not sent to a tool process (line skipped)", n, msg)})
	}
}

func (s *server) call(parent context.Context, m *event.Call) {
	ts, g := s.tools, s.gate // a later hello may switch them; this call keeps its own
	exclusive := false
	for _, t := range ts {
		if t.Def.Name == m.Name && t.Def.Concurrency == event.Exclusive {
			exclusive = true
		}
	}
	ok := s.Go(parent, m.ID, func(ctx context.Context) *event.Result {
		// Exclusive calls run alone; shared calls run together.
		if exclusive {
			s.shared.Lock()
			defer s.shared.Unlock()
		} else {
			s.shared.RLock()
			defer s.shared.RUnlock()
		}
		if ctx.Err() != nil {
			return &event.Result{Content: []event.Content{event.Text("Tool execution was aborted.")}, IsError: true}
		}
		r := g.run(ctx, ts, s.env, m.ID, m.Name, m.Arguments, s.hooks, func(o event.ToolOutput) {
			s.Send(&event.Update{ID: m.ID, PartialResult: o})
		})
		return &r
	})
	if !ok {
		s.Send(&event.Result{ID: m.ID, Content: []event.Content{event.Text("a call with id " + m.ID + " is already running")}, IsError: true})
	}
}

// setEditMode switches the edit tool to the mode hello asks for, keeping
// the same selection of tools.
func (s *server) setEditMode(mode string) {
	if !slices.Contains(tools.EditModes, mode) {
		s.Send(&event.Log{Level: "error", Msg: fmt.Sprintf("unknown editMode %q (modes: %s); keeping %s", mode, strings.Join(tools.EditModes, ", "), s.env.EditMode)})
		return
	}
	var names []string
	for _, t := range s.tools {
		names = append(names, tools.InMode(t.Def.Name, mode))
	}
	ts, err := tools.Select(names, mode)
	if err != nil {
		s.Send(&event.Log{Level: "error", Msg: err.Error()})
		return
	}
	var defs []event.ToolDef
	for _, t := range ts {
		defs = append(defs, t.Def)
	}
	v, err := jsonschema.NewValidator(defs)
	if err != nil {
		s.Send(&event.Log{Level: "error", Msg: err.Error()})
		return
	}
	g := *s.gate
	g.valid = v
	s.tools, s.gate, s.env.EditMode = ts, &g, mode
}

// trimSpace is bytes.TrimSpace for ASCII white space (agent-tool run's
// blank lines).
func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}

// gate is what stands around every call: PreToolUse hooks, the policy,
// argument validation, and PostToolUse hooks.
type gate struct {
	hooks []hooks.Hook
	// notify tells the model what an async hook answered (nil: warned);
	// pending counts those still running.
	notify  func(string)
	pending *sync.WaitGroup
	// ask, prompt and agent hooks go to the parent (nil: none, skipped).
	ask, agent func(ctx context.Context, model, prompt string) (string, error)
	rules      rules
	valid      *jsonschema.Validator
	errw       io.Writer
}

func newGate(c *cli.Context, ts []tools.Tool) (*gate, error) {
	var defs []event.ToolDef
	for _, t := range ts {
		defs = append(defs, t.Def)
	}
	v, err := jsonschema.NewValidator(defs)
	if err != nil {
		return nil, err
	}
	hs, err := loadHooks(c)
	if err != nil {
		return nil, exit.Wrap(exit.Usage, err)
	}
	return &gate{hooks: hs, rules: rulesOf(c), valid: v, errw: c.App.ErrWriter, pending: &sync.WaitGroup{}}, nil
}

// run runs one call through the gate. withHooks is false when the parent
// fires the hooks itself (hello.hooks false).
func (g *gate) run(ctx context.Context, ts []tools.Tool, env *tools.Env, id, name string, args json.RawMessage, withHooks bool, update func(event.ToolOutput)) event.Result {
	hs := g.hooks
	if !withHooks {
		hs = nil
	}
	warn := func(s string) { fmt.Fprintf(g.errw, "agent-tool: %s\n", s) }
	hookEnv := []string{"AGENT_PROJECT_DIR=" + env.Cwd, "CLAUDE_PROJECT_DIR=" + env.Cwd, "AGENT_HAS_UI=0"}
	in := hooks.Input{Event: hooks.PreToolUse, SessionID: env.Session, Cwd: env.Cwd, ToolName: name, ToolCallID: id, ToolInput: args}
	if len(hs) > 0 {
		var why string
		if args, why = permit(ctx, hs, in, g.opts(hookEnv, warn), env.NetworkOff()); why != "" {
			return event.Result{Content: []event.Content{event.Text(why)}, IsError: true}
		}
	}
	args, err := g.valid.Validate(name, args)
	if err != nil {
		return event.Result{Content: []event.Content{event.Text(err.Error())}, IsError: true}
	}
	// The policy judges the arguments the tool will get.
	if reason := g.rules.check(env, name, args); reason != "" {
		return event.Result{Content: []event.Content{event.Text(reason)}, IsError: true}
	}
	r := tools.Run(ctx, ts, env, name, args, update)
	if len(hs) > 0 {
		in.ToolInput = args
		hooks.After(ctx, hs, in, &r, g.opts(hookEnv, warn))
	}
	return r
}

// wait waits for the async hooks still running.
func (g *gate) wait() {
	if g.pending != nil {
		g.pending.Wait()
	}
}

// opts are the hooks' options: async hooks' answers go to notify.
func (g *gate) opts(env []string, warn func(string)) hooks.Opts {
	return hooks.Opts{Env: env, Warn: warn, Async: g.notify, Pending: g.pending, Ask: g.ask, Agent: g.agent}
}

// permit runs the PreToolUse hooks and then, for a call that needs a
// person's approval (a tool that changes things, a tool that reads the
// network while the sandbox keeps bash off it — netOff —, or a hook's
// "ask") and that no PreToolUse hook allowed, the PermissionRequest hooks
// (the interactive agent's approval is one). It returns the arguments to
// run with, or why the call is blocked.
func permit(ctx context.Context, hs []hooks.Hook, in hooks.Input, o hooks.Opts, netOff bool) (json.RawMessage, string) {
	v := hooks.RunOpts(ctx, hs, in, o)
	if v.Block || v.Stop {
		return nil, "Blocked by hook: " + cmp.Or(v.Reason, v.StopReason)
	}
	if v.UpdatedInput != nil {
		in.ToolInput = v.UpdatedInput
	}
	t, _ := tooldef.Lookup(in.ToolName)
	approve := t.Approve || t.Class == tooldef.Network && netOff
	if v.Allow || !v.Ask && !approve || !hooks.Has(hs, hooks.PermissionRequest) {
		if v.Ask && !v.Allow {
			return nil, "Blocked by hook: " + cmp.Or(v.Reason, "the call needs approval and no one can give it here")
		}
		return in.ToolInput, ""
	}
	in.Event = hooks.PermissionRequest
	p := hooks.RunOpts(ctx, hs, in, o)
	switch {
	case p.Block:
		return nil, "Blocked by hook: " + p.Reason
	case p.UpdatedInput != nil:
		return p.UpdatedInput, ""
	case v.Ask && !p.Allow:
		return nil, "Blocked by hook: " + cmp.Or(v.Reason, "the call needs approval and no PermissionRequest hook gave it")
	}
	return in.ToolInput, ""
}

var (
	hooksDirFlag = &cli.StringSliceFlag{Name: "hooks-dir", Usage: "`DIR` with pre/<tool> and post/<tool> hook executables (<tool> may be *); repeatable"}
	settingsFlag = &cli.StringSliceFlag{Name: "settings", Usage: "Claude-Code-style settings `FILE` whose hooks PreToolUse, PermissionRequest, PostToolUse and PostToolUseFailure run around each call; repeatable"}
)

// loadHooks reads --settings and --hooks-dir (hooks.Load).
func loadHooks(c *cli.Context) ([]hooks.Hook, error) {
	hs, warnings, err := hooks.Load(c.StringSlice("settings"), c.StringSlice("hooks-dir"))
	for _, w := range warnings {
		fmt.Fprintf(c.App.ErrWriter, "agent-tool: %s\n", w)
	}
	return hs, err
}
