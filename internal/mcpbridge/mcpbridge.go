// Package mcpbridge is agent-mcp bridge's engine: a tool co-process
// (formats/tool-protocol) that offers the tools of MCP servers to agent-chat.
// After hello it connects to the servers in parallel, answers with their
// tools (from the tool cache for servers still connecting after the start
// gate), routes calls, progress, cancellation and elicitation between the two
// protocols, runs the tool hooks when the parent leaves them to it, spills
// long outputs to files, and sends the list again when a server changes it.
// The command gives it the servers (discovery, trust, connections and the
// tool cache stay with agent-mcp's runner).
package mcpbridge

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/internal/mcpclient"
	"github.com/agentutils/agentutils/internal/toolproto"
	"github.com/agentutils/agentutils/lib/editdist"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/mcpconfig"
	"github.com/agentutils/agentutils/lib/mcptool"
)

// StartGate is how long the bridge waits by default for slow servers before
// it answers hello from the tool cache (the reference's fast-start gate).
const StartGate = 250 * time.Millisecond

// maxInstructions caps each server's instructions.
const maxInstructions = 4000

// Conn is one connection to a server, as the bridge uses it.
type Conn interface {
	// ListTools pages through tools/list (and refreshes the tool cache).
	ListTools(ctx context.Context) ([]*mcp.Tool, error)
	// CallTool runs tools/call and returns the result as the server's JSON.
	CallTool(ctx context.Context, tool string, args json.RawMessage, progressToken any) (json.RawMessage, error)
	// Gone explains a call that failed again after a reconnect.
	Gone(tool string, err error) error
	// Current is the live MCP session (nil after close).
	Current() *mcp.ClientSession
	// OnReconnect sets what runs after a successful reconnect.
	OnReconnect(fn func())
	Close()
}

// Servers is what the command makes of hello: the servers to offer and how
// to reach them.
type Servers struct {
	Entries []mcpconfig.Entry
	// Open connects to a server within its connect timeout.
	Open func(ctx context.Context, e mcpconfig.Entry, opts *mcp.ClientOptions) (Conn, error)
	// Cached is a server's tools from the tool cache, if it has them.
	Cached func(e mcpconfig.Entry) ([]*mcp.Tool, bool)
	// Cwd is the project directory (the hooks' AGENT_PROJECT_DIR).
	Cwd string
	// SpillDir holds long outputs when hello names no stateDir.
	SpillDir string
	// Sampling tells whether servers' sampling requests are answered.
	Sampling bool
	// Close, if set, runs when the bridge ends.
	Close func()
}

// Options configure a bridge.
type Options struct {
	// Naming is the tool name form (mcptool.Name's mode).
	Naming string
	// StartWait is the start gate (StartGate by default in the command).
	StartWait time.Duration
	// Hooks run around each call when hello.hooks is true.
	Hooks []hooks.Hook
	// Stderr gets servers' log messages before hello is answered.
	Stderr io.Writer
	// Setup turns hello into the servers.
	Setup func(hello *event.Hello) (*Servers, error)
}

// Run serves the tool protocol on in and out until in ends.
func Run(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	b := &bridge{opts: o, stderr: o.Stderr, srv: toolproto.NewServer(out),
		asks: map[string]chan *event.Answer{}, early: map[string]*event.Answer{}}
	return b.run(ctx, in)
}

type bridge struct {
	opts   Options
	stderr io.Writer
	// srvs is what Setup made of hello (nil before hello).
	srvs *Servers
	// stateDir is hello's stateDir, where large outputs are spilled.
	stateDir string

	// srv writes the protocol's lines and runs the calls.
	srv *toolproto.Server

	mu      sync.Mutex
	servers []*bridgeServer
	byName  map[string]route // agent name → server and MCP tool

	// asks are elicitations waiting for an answer, by request id; early
	// holds answers that came before their request was registered.
	// toolsMu orders tools messages; answered is set once hello's answer
	// is out (no replace may come before it).
	toolsMu   sync.Mutex
	answered  bool
	lastTools string // the tools of the last tools message, as JSON

	// bg counts background refreshes; closing stops new ones at exit.
	bg      sync.WaitGroup
	closing bool

	// allow is hello's tool allowlist (nil: every tool).
	allow map[string]bool

	// hooks run around each call when hello.hooks is true (runHooks).
	runHooks  bool
	sessionID string

	asks  map[string]chan *event.Answer
	early map[string]*event.Answer
	nask  int
}

type route struct {
	srv  *bridgeServer
	tool string
}

// bridgeServer is one MCP server behind the bridge.
type bridgeServer struct {
	e     mcpconfig.Entry
	ready chan struct{} // closed when the connect settled
	s     Conn
	err   error
	tools []*mcp.Tool
	// deferred: tools came from the cache while the connection was pending.
	deferred bool
}

func (b *bridge) send(v any) {
	var line []byte
	var err error
	switch v.(type) {
	case *event.Update, *event.Result, *event.Log, *event.ToolAsk:
		line, err = event.EncodeTool(v)
	default:
		line, err = json.Marshal(v)
		line = append(line, '\n')
	}
	if err != nil {
		return
	}
	b.srv.SendLine(line)
}

func (b *bridge) logf(level, format string, args ...any) {
	b.send(&event.Log{Level: level, Msg: fmt.Sprintf(format, args...)})
}

func (b *bridge) run(ctx context.Context, in io.Reader) error {
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	hello := false
	err := b.srv.Serve(in, toolproto.Handlers{
		Message: func(m any, n int) error {
			if hello {
				b.handle(ctx, m)
				return nil
			}
			h, ok := m.(*event.Hello)
			if !ok {
				b.logf("error", "agent-mcp bridge: expected hello first, got %T", m)
				return nil
			}
			hello = true
			return b.start(ctx, h)
		},
		BadLine: func(n int, err error) { b.logf("error", "agent-mcp bridge: %v", err) },
		LongLine: func(n, size int) {
			b.logf("error", "agent-mcp bridge: stdin:%d: a line of %d bytes is over the %d byte limit (line skipped)", n, size, toolproto.MaxLine)
		},
	})
	if b.srvs != nil && b.srvs.Close != nil {
		defer b.srvs.Close()
	}
	if !hello {
		return err // EOF before hello: nothing to do
	}
	// EOF: running calls have finished (an interrupt cancels them) and
	// written their results; stop background work, close the servers.
	b.mu.Lock()
	b.closing = true
	b.mu.Unlock()
	cancelAll()
	b.bg.Wait()
	for _, bs := range b.servers {
		select {
		case <-bs.ready:
			if bs.s != nil {
				bs.s.Close()
			}
		default:
		}
	}
	return err
}

// start sets the bridge up from hello: the servers (each connecting in the
// background) and the answer.
func (b *bridge) start(ctx context.Context, hello *event.Hello) error {
	b.stateDir = hello.StateDir
	b.sessionID = hello.SessionID
	b.runHooks = hello.Hooks != nil && *hello.Hooks && len(b.opts.Hooks) > 0
	srvs, err := b.opts.Setup(hello)
	if err != nil {
		return err
	}
	b.srvs = srvs
	for _, e := range srvs.Entries {
		bs := &bridgeServer{e: e, ready: make(chan struct{})}
		b.servers = append(b.servers, bs)
		go b.connect(ctx, bs)
	}
	b.answerHello(ctx, hello)
	return nil
}

// handle takes one of the parent's messages after hello.
func (b *bridge) handle(ctx context.Context, m any) {
	switch m := m.(type) {
	case *event.Call:
		b.startCall(ctx, m)
	case *event.Cancel:
		b.srv.Cancel(m.ID)
	case *event.Answer:
		b.mu.Lock()
		if ch, ok := b.asks[m.RequestID]; ok {
			delete(b.asks, m.RequestID)
			ch <- m
		} else {
			b.early[m.RequestID] = m
		}
		b.mu.Unlock()
	default:
		b.logf("error", "agent-mcp bridge: unexpected %T", m)
	}
}

func (b *bridge) connect(ctx context.Context, bs *bridgeServer) {
	defer close(bs.ready)
	opts := &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			id, ok := req.Params.ProgressToken.(string)
			if !ok {
				return
			}
			p := req.Params
			text := ProgressText(p)
			details, _ := json.Marshal(map[string]any{"progress": p.Progress, "total": p.Total, "message": p.Message})
			b.send(&event.Update{ID: id, PartialResult: event.ToolOutput{Content: []event.Content{event.Text(text)}, Details: details}})
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			b.spawn(func() { b.refresh(ctx, bs) })
		},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return b.elicit(ctx, bs.e.Name, req.Params)
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			data, _ := json.Marshal(req.Params.Data)
			b.serverLog(fmt.Sprintf("[mcp:%s] %s", bs.e.Name, data))
		},
	}
	s, err := b.srvs.Open(ctx, bs.e, opts)
	if err == nil {
		var tools []*mcp.Tool
		if tools, err = s.ListTools(ctx); err == nil {
			s.OnReconnect(func() { b.spawn(func() { b.refresh(ctx, bs) }) })
			b.mu.Lock()
			bs.s, bs.tools = s, tools
			b.mu.Unlock()
			return
		}
		s.Close()
	}
	b.mu.Lock()
	bs.err = err
	b.mu.Unlock()
}

// serverLog passes a server's log message on as a log record, or to
// stderr while hello is unanswered (the tools message must come first).
func (b *bridge) serverLog(msg string) {
	b.toolsMu.Lock()
	answered := b.answered
	b.toolsMu.Unlock()
	if answered {
		b.logf("info", "%s", msg)
		return
	}
	fmt.Fprintf(b.stderr, "agent-mcp: %s\n", msg)
}

// spawn runs fn in the background unless the bridge is shutting down.
func (b *bridge) spawn(fn func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closing {
		return
	}
	b.bg.Add(1)
	go func() {
		defer b.bg.Done()
		fn()
	}()
}

// refresh re-lists a server's tools after list_changed and sends the new list.
func (b *bridge) refresh(ctx context.Context, bs *bridgeServer) {
	<-bs.ready
	if bs.s == nil {
		return
	}
	tools, err := bs.s.ListTools(ctx)
	if err != nil {
		b.logf("warn", "[mcp:%s] tools/list after list_changed: %v", bs.e.Name, err)
		return
	}
	b.mu.Lock()
	bs.tools, bs.deferred = tools, false
	b.mu.Unlock()
	// Before hello is answered the first tools message will carry the
	// new list; after it, send the list again. toolsMu keeps the lists in
	// the order they were built.
	b.toolsMu.Lock()
	defer b.toolsMu.Unlock()
	if !b.answered {
		return
	}
	msg := b.toolsMessage()
	if sig, _ := json.Marshal(msg.Tools); string(sig) == b.lastTools {
		return // a list_changed that changed nothing we offer
	} else {
		b.lastTools = string(sig)
	}
	msg.Replace = true
	b.send(msg)
}

// answerHello applies the start gate and sends the first tools message.
func (b *bridge) answerHello(ctx context.Context, hello *event.Hello) {
	gate := time.After(b.opts.StartWait)
	for _, bs := range b.servers {
		select {
		case <-bs.ready:
		case <-gate:
		case <-ctx.Done():
		}
	}
	for _, bs := range b.servers {
		select {
		case <-bs.ready:
			continue
		default:
		}
		if tools, ok := b.srvs.Cached(bs.e); ok {
			b.mu.Lock()
			bs.tools, bs.deferred = tools, true
			b.mu.Unlock()
			go func() { // a late connection replaces the cached tools
				<-bs.ready
				if bs.err == nil {
					b.mu.Lock()
					bs.deferred = false
					b.mu.Unlock()
				}
			}()
			continue
		}
		select { // no cache: wait (bounded by the connect timeout)
		case <-bs.ready:
		case <-ctx.Done():
		}
	}
	if hello.Tools != nil {
		b.mu.Lock()
		b.allow = map[string]bool{}
		for _, t := range hello.Tools {
			b.allow[t] = true
		}
		b.mu.Unlock()
	}
	b.toolsMu.Lock()
	msg := b.toolsMessage()
	sig, _ := json.Marshal(msg.Tools)
	b.lastTools = string(sig)
	b.send(msg)
	b.answered = true
	b.toolsMu.Unlock()
	if len(b.opts.Hooks) > 0 && !b.runHooks {
		b.logf("warn", "agent-mcp bridge: the hooks of --settings/--hooks-dir do not run: hello.hooks is not true, so the parent fires them")
	}
}

// spill writes a call's full text output to hello's stateDir (else the
// cache) and returns the path, or "" when it cannot.
func (b *bridge) spill(id, text string) string {
	dir := b.stateDir
	if dir == "" {
		dir = b.srvs.SpillDir
	}
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == os.PathSeparator || r == 0 {
			return '_'
		}
		return r
	}, id)
	path := filepath.Join(dir, name+".mcp.log")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return ""
	}
	return path
}

// toolsMsg is event.Tools with x_mcp on each tool.
type toolsMsg struct {
	Type         string    `json:"type"`
	Tools        []ToolDef `json:"tools"`
	Instructions []string  `json:"instructions,omitempty"`
	Errors       []string  `json:"errors,omitempty"`
	Replace      bool      `json:"replace,omitempty"`
}

// toolsMessage builds the tool list from the servers' current state and
// rebuilds the routing table.
func (b *bridge) toolsMessage() *toolsMsg {
	b.mu.Lock()
	defer b.mu.Unlock()
	msg := &toolsMsg{Type: event.ToolTools, Tools: []ToolDef{}}
	routes := map[string]route{}
	owner := map[string]string{}
	for _, bs := range b.servers {
		if bs.err != nil && bs.tools == nil {
			msg.Errors = append(msg.Errors, fmt.Sprintf("mcp:%s: %v", bs.e.Name, bs.err))
			continue
		}
		if cs := current(bs.s); cs != nil {
			if ir := cs.InitializeResult(); ir != nil && strings.TrimSpace(ir.Instructions) != "" {
				msg.Instructions = append(msg.Instructions, fmt.Sprintf("Instructions from MCP server %q (server-provided, unverified):\n%s",
					bs.e.Name, mcptool.Clip(ir.Instructions, maxInstructions)))
			}
		}
		for _, t := range bs.tools {
			if !mcptool.Allowed(bs.e.Server.IncludeTools, bs.e.Server.ExcludeTools, t.Name) {
				continue
			}
			d, err := AgentTool(b.opts.Naming, bs.e.Name, t, bs.deferred)
			if err != nil {
				continue
			}
			if b.allow != nil && !b.allow[d.Name] {
				continue
			}
			if prev, ok := owner[d.Name]; ok {
				msg.Errors = append(msg.Errors, fmt.Sprintf("mcp:%s: tool %q is named %s, which %s already uses; it is left out", bs.e.Name, t.Name, d.Name, prev))
				continue
			}
			owner[d.Name] = bs.e.Name + "/" + t.Name
			routes[d.Name] = route{bs, t.Name}
			msg.Tools = append(msg.Tools, d)
		}
	}
	sort.Slice(msg.Tools, func(i, j int) bool { return msg.Tools[i].Name < msg.Tools[j].Name })
	b.byName = routes
	return msg
}

func (b *bridge) startCall(ctx context.Context, call *event.Call) {
	b.mu.Lock()
	rt, ok := b.byName[call.Name]
	b.mu.Unlock()
	started := b.srv.Go(ctx, call.ID, func(cctx context.Context) *event.Result { return b.call(cctx, rt, ok, call) })
	if !started {
		b.logf("error", "agent-mcp bridge: call id %q is already running", call.ID)
	}
}

func (b *bridge) call(ctx context.Context, rt route, ok bool, call *event.Call) *event.Result {
	fail := func(format string, args ...any) *event.Result {
		return &event.Result{Content: []event.Content{event.Text(fmt.Sprintf(format, args...))}, IsError: true}
	}
	if !ok {
		b.mu.Lock()
		names := make([]string, 0, len(b.byName))
		for n := range b.byName {
			names = append(names, n)
		}
		b.mu.Unlock()
		sort.Strings(names)
		if sug := editdist.Suggest(call.Name, names); len(sug) > 0 {
			return fail("MCP error: unknown tool %q (did you mean %s?)", call.Name, strings.Join(sug, ", "))
		}
		return fail("MCP error: unknown tool %q", call.Name)
	}
	select {
	case <-rt.srv.ready:
	case <-ctx.Done():
		return fail("MCP error: cancelled")
	}
	if rt.srv.s == nil {
		return fail("MCP error: MCP server not connected: %s: %v", rt.srv.e.Name, rt.srv.err)
	}
	args := call.Arguments
	if len(args) == 0 || string(args) == "null" || args[0] != '{' {
		args = json.RawMessage("{}")
	}
	var in hooks.Input
	if b.runHooks {
		in = hooks.Input{Event: hooks.PreToolUse, SessionID: b.sessionID, Cwd: b.srvs.Cwd, ToolName: call.Name, ToolCallID: call.ID, ToolInput: args}
		v := hooks.Run(ctx, b.opts.Hooks, in, b.hookEnv(), b.hookWarn)
		if v.Block || v.Stop || v.Ask && !v.Allow { // no one to ask here
			return fail("Blocked by hook: %s", cmp.Or(v.Reason, v.StopReason, "the call needs approval and no one can give it here"))
		}
		if v.UpdatedInput != nil {
			if u := bytes.TrimSpace(v.UpdatedInput); len(u) == 0 || u[0] != '{' || !json.Valid(u) {
				return fail("Blocked by hook: its updated_input is not a JSON object: %s", mcptool.Clip(string(v.UpdatedInput), 200))
			}
			args = v.UpdatedInput
		}
	}
	res := b.callServer(ctx, rt, call, args, fail)
	if b.runHooks {
		in.ToolInput = args
		hooks.After(ctx, b.opts.Hooks, in, res, hooks.Opts{Env: b.hookEnv(), Warn: b.hookWarn})
	}
	return res
}

// callServer runs the MCP call and converts its result.
func (b *bridge) callServer(ctx context.Context, rt route, call *event.Call, args json.RawMessage, fail func(string, ...any) *event.Result) *event.Result {
	raw, err := rt.srv.s.CallTool(ctx, rt.tool, args, call.ID)
	if err != nil {
		if ctx.Err() != nil {
			return fail("MCP error: cancelled")
		}
		if !b.srvs.Sampling && mcpclient.SamplingRefused(err) {
			return fail("MCP error: the server asked for sampling, declined: %s", mcpclient.NoSampling)
		}
		if mcpclient.Retriable(err) {
			return fail("MCP error: %v", rt.srv.s.Gone(rt.tool, err))
		}
		if text, ok := mcpclient.URLRequired(err); ok {
			return fail("MCP error: %s", text)
		}
		return fail("MCP error: %v", err)
	}
	out, err := mcptool.Convert(rt.srv.e.Name, rt.tool, raw)
	if err != nil {
		return fail("MCP error: %v", err)
	}
	var full string
	if l := mcptool.LimitText(out.Content, mcptool.MaxLines, mcptool.MaxBytes); l.Truncated {
		// The whole text goes to a file the model can read; the result
		// keeps the head and says where the rest is.
		full = b.spill(call.ID, mcptool.JoinText(out.Content))
		out.Content = append(l.Content, event.Text(l.Notice(mcptool.MaxBytes, full)))
	}
	d := struct {
		mcptool.Details
		FullOutputPath string `json:"fullOutputPath,omitempty"`
	}{out.Details, full}
	details, _ := json.Marshal(d)
	return &event.Result{Content: out.Content, Details: details, IsError: out.IsError}
}

func (b *bridge) hookEnv() []string {
	return []string{"AGENT_PROJECT_DIR=" + b.srvs.Cwd, "CLAUDE_PROJECT_DIR=" + b.srvs.Cwd, "AGENT_HAS_UI=0"}
}

func (b *bridge) hookWarn(msg string) { b.logf("warn", "agent-mcp bridge: %s", msg) }

// elicit forwards a server's elicitation/create to the parent as a request
// of kind "elicit" and turns the answer into the MCP result: a value with an
// "action" (accept, decline, cancel) and "content" is used as it is, any
// other value is the accepted content, and a cancelled answer cancels.
func (b *bridge) elicit(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	b.mu.Lock()
	b.nask++
	id := fmt.Sprintf("elicit-%d", b.nask)
	ch := make(chan *event.Answer, 1)
	if a, ok := b.early[id]; ok {
		delete(b.early, id)
		ch <- a
	} else {
		b.asks[id] = ch
	}
	b.mu.Unlock()
	fields := map[string]any{"server": server, "message": p.Message, "mode": p.Mode,
		"requestedSchema": p.RequestedSchema, "url": p.URL}
	if p.ElicitationID != "" {
		fields["elicitationId"] = p.ElicitationID
	}
	payload, _ := json.Marshal(fields)
	b.send(&event.ToolAsk{RequestID: id, Kind: "elicit", Payload: payload})
	var a *event.Answer
	select {
	case a = <-ch:
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.asks, id)
		b.mu.Unlock()
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	if a.Cancelled {
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	var v struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if json.Unmarshal(a.Value, &v) == nil && (v.Action == "accept" || v.Action == "decline" || v.Action == "cancel") {
		return &mcp.ElicitResult{Action: v.Action, Content: v.Content}, nil
	}
	var content map[string]any
	if err := json.Unmarshal(a.Value, &content); err != nil {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// current is c's live session; nil for no connection.
func current(c Conn) *mcp.ClientSession {
	if c == nil {
		return nil
	}
	return c.Current()
}
