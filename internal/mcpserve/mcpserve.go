// Package mcpserve serves a tool co-process (agent-tool serve) as an MCP
// server: it starts the process, offers the tools its flags allow with MCP
// annotations from lib/tooldef, turns calls, progress, cancellation and a
// tool's questions (as elicitation) into the tool protocol and back; over
// stdio it adds MCP 2025-11-25 tasks to the SDK's server (TaskTransport).
package mcpserve

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentutils/agentutils/internal/mcpclient"
	"github.com/agentutils/agentutils/internal/toolproto"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/tooldef"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolClass is a tool's class and MCP annotations, from the one table of
// tools (lib/tooldef): read and network tools are served by default, write
// and exec ones need a flag, unknown ones (class "") need --tools.
func toolClass(name string) (tooldef.Class, *mcp.ToolAnnotations) {
	t, ok := tooldef.Lookup(name)
	if !ok {
		return "", nil
	}
	a := t.MCP
	ann := &mcp.ToolAnnotations{ReadOnlyHint: a.ReadOnly, IdempotentHint: a.Idempotent, OpenWorldHint: &a.OpenWorld}
	if !a.ReadOnly {
		ann.DestructiveHint = &a.Destructive
	}
	return t.Class, ann
}

// Proc is the tool co-process behind serve.
type Proc struct {
	stderr io.Writer
	client *toolproto.Client
	tools  []event.ToolDef

	mu      sync.Mutex
	nextID  int
	pending map[string]*pendingCall
	// parked are calls waiting for a client's multi round-trip answer to an
	// ask, by the requestState handed to the client.
	parked  map[string]*pendingCall
	nparked int
	// unparking counts the unparks between taking a call off parked and
	// writing its cancellation: stop waits for them before the EOF, or a
	// tool could see the EOF before its answer.
	unparking sync.WaitGroup
	warn      func(string)
	// excl makes an exclusive tool run alone.
	excl sync.RWMutex
}

type pendingCall struct {
	id       string
	result   chan *event.Result
	asks     chan *event.ToolAsk
	mu       sync.Mutex
	progress func(event.ToolOutput) // of the latest round
	ask      *event.ToolAsk         // the ask a parked call waits on
	gone     bool                   // its request was cancelled or its client went away
}

func (p *pendingCall) isGone() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gone
}

func (p *pendingCall) report(o event.ToolOutput) {
	p.mu.Lock()
	f := p.progress
	p.mu.Unlock()
	if f != nil {
		f(o)
	}
}

// Start runs command (the tool co-process) in cwd with environ, its
// stderr and our warnings going to stderr, and waits for its tools.
func Start(ctx context.Context, stderr io.Writer, command, cwd string, environ []string) (*Proc, error) {
	tp := &Proc{stderr: stderr, pending: map[string]*pendingCall{}, parked: map[string]*pendingCall{},
		warn: func(m string) { fmt.Fprintf(stderr, "agent-mcp: %s\n", m) }}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "agent-mcp: --tools-cmd: "+format+"\n", a...) }
	cl, err := toolproto.Start(toolproto.Options{Command: command, Dir: cwd, Env: environ, Stderr: stderr, Hello: &event.Hello{Cwd: cwd},
		OnLog:     func(l *event.Log) { logf("%s", l.Msg) },
		OnBadLine: func(err error) { logf("%v", err) },
		OnAsk:     tp.onAsk})
	if err != nil {
		return nil, exit.Errorf(exit.Failure, "--tools-cmd %q: %v", command, err)
	}
	tp.client = cl
	select {
	case t := <-cl.Tools():
		tp.tools = t.Tools
		for _, e := range t.Errors {
			logf("%s", e)
		}
	case <-cl.Dead():
		return nil, exit.Errorf(exit.Failure, "--tools-cmd %q exited before sending its tools", command)
	}
	return tp, nil
}

func (tp *Proc) write(v any) error { return tp.client.Send(v) }

// onAsk routes a co-process's request to the call it belongs to, or
// answers it cancelled.
func (tp *Proc) onAsk(m *event.ToolAsk) {
	if p := tp.asker(m); p != nil && !p.isGone() {
		p.asks <- m
	} else if p != nil {
		_ = tp.write(&event.Answer{RequestID: m.RequestID, Cancelled: true})
	} else {
		tp.warn(fmt.Sprintf("--tools-cmd: request %q cancelled: no single running call it could belong to", m.RequestID))
		_ = tp.write(&event.Answer{RequestID: m.RequestID, Cancelled: true})
	}
}

// forward passes a call's updates and result on; a process that exits
// first answers it with its exit.
func (tp *Proc) forward(p *pendingCall, ch <-chan any) {
	deliver := func(v any) bool {
		switch m := v.(type) {
		case *event.Update:
			p.report(m.PartialResult)
		case *event.Result:
			tp.mu.Lock()
			delete(tp.pending, p.id)
			tp.mu.Unlock()
			p.result <- m
			return true
		}
		return false
	}
	for {
		select {
		case v := <-ch:
			if deliver(v) {
				return
			}
		case <-tp.client.Dead():
			for { // what came before the exit goes first
				select {
				case v := <-ch:
					if deliver(v) {
						return
					}
					continue
				default:
				}
				break
			}
			deliver(&event.Result{ID: p.id, Content: []event.Content{event.Text(deadText(tp.client.Err()))}, IsError: true})
			return
		}
	}
}

// deadText is a call's result when its process exited.
func deadText(err error) string {
	if err == nil {
		return "tool process exited"
	}
	return toolproto.ExitText(err)
}

// start sends one call to the co-process.
func (tp *Proc) start(name string, args json.RawMessage, progress func(event.ToolOutput)) (*pendingCall, *event.Result) {
	select {
	case <-tp.client.Dead():
		return nil, &event.Result{Content: []event.Content{event.Text(deadText(tp.client.Err()))}, IsError: true}
	default:
	}
	tp.mu.Lock()
	tp.nextID++
	id := fmt.Sprintf("mcp-%d", tp.nextID)
	p := &pendingCall{id: id, result: make(chan *event.Result, 1), asks: make(chan *event.ToolAsk, 4), progress: progress}
	tp.pending[id] = p
	tp.mu.Unlock()
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	ch, err := tp.client.Call(&event.Call{ID: id, Name: name, Arguments: args})
	if err != nil {
		tp.mu.Lock()
		delete(tp.pending, id)
		tp.mu.Unlock()
		return nil, &event.Result{Content: []event.Content{event.Text("tool process: " + err.Error())}, IsError: true}
	}
	go tp.forward(p, ch)
	return p, nil
}

// unpark gives up a parked call (its client went away, or serve ends):
// its ask and any later ones are cancelled, and the call too.
func (tp *Proc) unpark(st string) {
	tp.mu.Lock()
	p := tp.parked[st]
	delete(tp.parked, st)
	if p != nil {
		tp.unparking.Add(1)
	}
	tp.mu.Unlock()
	if p == nil {
		return
	}
	defer tp.unparking.Done()
	p.mu.Lock()
	p.gone = true
	a := p.ask
	p.ask = nil
	p.mu.Unlock()
	if a != nil {
		_ = tp.write(&event.Answer{RequestID: a.RequestID, Cancelled: true})
	}
	_ = tp.write(&event.Cancel{ID: p.id})
}

// Stop ends the co-process: parked calls are given up first, so their
// tools can finish; then EOF.
func (tp *Proc) Stop() {
	tp.mu.Lock()
	var sts []string
	for st := range tp.parked {
		sts = append(sts, st)
	}
	tp.mu.Unlock()
	for _, st := range sts {
		tp.unpark(st)
	}
	tp.unparking.Wait()              // a client's own unpark may still be writing
	tp.client.Close(2 * time.Second) // EOF: the co-process finishes and exits
}

// asker is the running call a co-process's request belongs to: the one its
// payload names (callId or toolCallId), else the only running call.
func (tp *Proc) asker(a *event.ToolAsk) *pendingCall {
	var ref struct {
		CallID     string `json:"callId"`
		ToolCallID string `json:"toolCallId"`
	}
	_ = json.Unmarshal(a.Payload, &ref)
	tp.mu.Lock()
	defer tp.mu.Unlock()
	for _, id := range []string{ref.CallID, ref.ToolCallID} {
		if p := tp.pending[id]; id != "" && p != nil {
			return p
		}
	}
	if len(tp.pending) == 1 {
		for _, p := range tp.pending {
			return p
		}
	}
	return nil
}

// serveCall runs a tools/call on the co-process, forwarding the tool's
// requests to the MCP client as elicitation: directly for clients of
// protocols before 2026-07-28, as a multi round-trip input request (the
// call parked under a requestState) for newer ones. A client without
// elicitation gets nothing asked: the request is cancelled.
func (tp *Proc) serveCall(ctx context.Context, req *mcp.CallToolRequest, name string, progress func(event.ToolOutput)) *mcp.CallToolResult {
	var p *pendingCall
	if st := req.Params.RequestState; st != "" {
		tp.mu.Lock()
		p = tp.parked[st]
		delete(tp.parked, st)
		tp.mu.Unlock()
		if p == nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "unknown or already used requestState " + strconv.Quote(st)}}}
		}
		p.mu.Lock()
		p.progress = progress
		a := p.ask
		p.ask = nil
		p.mu.Unlock()
		res, _ := req.Params.InputResponses["ask"].(*mcp.ElicitResult)
		_ = tp.write(askAnswer(a, res))
	} else {
		var failed *event.Result
		if p, failed = tp.start(name, req.Params.Arguments, progress); failed != nil {
			return toMCPResult(failed)
		}
	}
	ss := req.Session
	for {
		select {
		case r := <-p.result:
			return toMCPResult(r)
		case a := <-p.asks:
			ip := ss.InitializeParams()
			if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
				tp.warn(fmt.Sprintf("%s: request %q cancelled: interactive input not available (the MCP client does not support elicitation)", name, a.RequestID))
				_ = tp.write(&event.Answer{RequestID: a.RequestID, Cancelled: true})
				continue
			}
			params := elicitParams(a)
			if params.Mode == "url" && ip.Capabilities.Elicitation.URL == nil {
				tp.warn(fmt.Sprintf("%s: request %q cancelled: the MCP client does not support URL elicitation", name, a.RequestID))
				_ = tp.write(&event.Answer{RequestID: a.RequestID, Cancelled: true})
				continue
			}
			if ip.ProtocolVersion >= "2026-07-28" {
				tp.mu.Lock()
				tp.nparked++
				st := fmt.Sprintf("agent-mcp-ask-%d", tp.nparked)
				tp.parked[st] = p
				tp.mu.Unlock()
				p.mu.Lock()
				p.ask = a
				p.mu.Unlock()
				// A client that goes away without retrying must not leave
				// the tool waiting: its ask is cancelled and the call too.
				go func() {
					_ = ss.Wait()
					tp.unpark(st)
				}()
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"ask": params}, RequestState: st}
			}
			res, err := ss.Elicit(ctx, params)
			if err != nil {
				tp.warn(fmt.Sprintf("%s: request %q: elicitation failed: %v", name, a.RequestID, err))
				res = nil
			}
			_ = tp.write(askAnswer(a, res))
		case <-ctx.Done():
			// The request was cancelled or its client went away: cancel
			// the call, and any more asks, until its result.
			p.mu.Lock()
			p.gone = true
			p.mu.Unlock()
			_ = tp.write(&event.Cancel{ID: p.id})
			for {
				select {
				case r := <-p.result:
					return toMCPResult(r)
				case a := <-p.asks:
					_ = tp.write(&event.Answer{RequestID: a.RequestID, Cancelled: true})
				}
			}
		}
	}
}

// elicitParams turns a co-process request into an elicitation: kind elicit
// passes its payload through; confirm asks for a boolean "confirm"; ask
// (and any other kind) for a string "answer", from the options if given.
func elicitParams(a *event.ToolAsk) *mcp.ElicitParams {
	var p struct {
		Title           string          `json:"title"`
		Message         string          `json:"message"`
		Question        string          `json:"question"`
		Options         []string        `json:"options"`
		Mode            string          `json:"mode"`
		URL             string          `json:"url"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
		ElicitationID   string          `json:"elicitationId"`
	}
	_ = json.Unmarshal(a.Payload, &p)
	msg := p.Message
	if msg == "" {
		msg = p.Question
	}
	if p.Title != "" {
		msg = strings.TrimSpace(p.Title + "\n" + msg)
	}
	if msg == "" {
		msg = "The tool asks for input."
	}
	switch a.Kind {
	case "elicit":
		out := &mcp.ElicitParams{Message: msg, Mode: p.Mode, URL: p.URL}
		if p.Mode == "url" {
			// The spec requires an id the client can match a later
			// notifications/elicitation/complete with.
			out.ElicitationID = p.ElicitationID
			if out.ElicitationID == "" {
				out.ElicitationID = "agent-mcp-" + a.RequestID
			}
		}
		if len(p.RequestedSchema) > 0 && string(p.RequestedSchema) != "null" {
			out.RequestedSchema = p.RequestedSchema
		}
		return out
	case "confirm":
		return &mcp.ElicitParams{Message: msg, RequestedSchema: map[string]any{"type": "object",
			"properties": map[string]any{"confirm": map[string]any{"type": "boolean", "title": "Confirm"}}, "required": []string{"confirm"}}}
	}
	answer := map[string]any{"type": "string", "title": "Answer"}
	if len(p.Options) > 0 {
		answer["enum"] = p.Options
	}
	return &mcp.ElicitParams{Message: msg, RequestedSchema: map[string]any{"type": "object",
		"properties": map[string]any{"answer": answer}, "required": []string{"answer"}}}
}

// askAnswer turns the client's elicitation result into the co-process's
// answer: kind elicit gets {action, content}; confirm true or false (a
// decline is false); ask the answer string. A cancel, a failure or no
// result cancels the request.
func askAnswer(a *event.ToolAsk, res *mcp.ElicitResult) *event.Answer {
	cancelled := &event.Answer{RequestID: a.RequestID, Cancelled: true}
	if a == nil {
		return cancelled
	}
	if res == nil || res.Action == "cancel" || res.Action == "" {
		return cancelled
	}
	var v any
	switch a.Kind {
	case "elicit":
		v = map[string]any{"action": res.Action, "content": res.Content}
	case "confirm":
		ok, _ := res.Content["confirm"].(bool)
		v = res.Action == "accept" && ok
	default:
		if res.Action != "accept" {
			return cancelled
		}
		s, ok := res.Content["answer"].(string)
		if !ok {
			return cancelled
		}
		v = s
	}
	b, _ := json.Marshal(v)
	return &event.Answer{RequestID: a.RequestID, Value: b}
}

// Server builds the MCP server with the selected tools.
func (tp *Proc) Server(cwd string, pick []string, allowWrite, allowExec bool) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "agent-mcp", Version: mcpclient.ImplVersion()},
		&mcp.ServerOptions{Instructions: "agentutils tools working in " + cwd + "; relative paths are resolved there."})
	picked := map[string]bool{}
	for _, p := range pick {
		picked[p] = true
	}
	known := map[string]bool{}
	n := 0
	for _, t := range tp.tools {
		known[t.Name] = true
		class, ann := toolClass(t.Name)
		switch {
		case len(pick) > 0 && !picked[t.Name]:
			continue
		case class == "" && !picked[t.Name]:
			continue
		case class == tooldef.Write && !allowWrite, class == tooldef.Exec && !allowExec:
			continue
		}
		var schema map[string]any
		if err := json.Unmarshal(t.Parameters, &schema); err != nil || schema == nil {
			schema = map[string]any{}
		}
		schema["type"] = "object"
		tool := &mcp.Tool{Name: t.Name, Title: t.Label, Description: t.Description, InputSchema: schema, Annotations: ann}
		exclusive := t.Concurrency == event.Exclusive
		name := t.Name
		s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if exclusive {
				tp.excl.Lock()
				defer tp.excl.Unlock()
			} else {
				tp.excl.RLock()
				defer tp.excl.RUnlock()
			}
			var progress func(event.ToolOutput)
			if tok := req.Params.GetProgressToken(); tok != nil {
				step := 0.0
				progress = func(o event.ToolOutput) {
					step++
					msg := ""
					for _, c := range o.Content {
						if c.Type == "text" {
							msg = lastLine(c.Text)
						}
					}
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: step, Message: msg})
				}
			}
			return tp.serveCall(ctx, req, name, progress), nil
		})
		n++
	}
	for _, p := range pick {
		if !known[p] {
			return nil, exit.Errorf(exit.Usage, "--tools: the tool process has no tool %q", p)
		}
	}
	if n == 0 {
		return nil, exit.Errorf(exit.Usage, "no tools to serve (see --tools, --allow-write, --allow-exec)")
	}
	return s, nil
}

// toMCPResult converts a tool-protocol result.
func toMCPResult(r *event.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError, Content: []mcp.Content{}}
	for _, c := range r.Content {
		switch c.Type {
		case "image":
			data, err := base64.StdEncoding.DecodeString(c.Data)
			if err == nil {
				out.Content = append(out.Content, &mcp.ImageContent{MIMEType: c.MimeType, Data: data})
				continue
			}
			out.Content = append(out.Content, &mcp.TextContent{Text: "[Image: " + c.MimeType + "]"})
		default:
			out.Content = append(out.Content, &mcp.TextContent{Text: c.Text})
		}
	}
	if len(r.Details) > 0 && string(r.Details) != "null" {
		var d any
		if json.Unmarshal(r.Details, &d) == nil {
			out.Meta = mcp.Meta{"agent/details": d}
		}
	}
	return out
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// OriginAllowed says whether a request's Origin may use the server: a
// loopback one (http or https on localhost, 127.0.0.0/8 or ::1, any
// port) or one of allowed, compared without case.
func OriginAllowed(origin string, allowed []string) bool {
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
