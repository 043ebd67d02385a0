package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/mcpbridge"
	"github.com/agentutils/agentutils/internal/mcpclient"
	"github.com/agentutils/agentutils/lib/editdist"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcptool"
)

func callCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:      "call",
		Usage:     "call one tool of a server",
		ArgsUsage: "SERVER TOOL [ARGS_JSON|-]",
		Description: "Calls TOOL with the arguments object ARGS_JSON ('-' reads it from stdin; missing means {}) and prints " +
			"{\"content\":[…],\"details\":{…},\"isError\":…} on stdout: text and image blocks as MCP sent them, other blocks " +
			"as text, structuredContent in details. Exit status 1 when the tool reports an error or the server fails, 2 for an unknown " +
			"server or tool or bad arguments, 4 when the server wants authentication (HTTP 401/403: run 'agent-mcp auth SERVER'), " +
			"124 when a time limit ran out (the server is sent notifications/cancelled).\n\n" +
			"When the server dies during the call, the call is sent again after a reconnect only if it cannot have run or " +
			"the tool is marked read-only, or idempotent and not destructive (idempotentHint: true, destructiveHint: false); " +
			"otherwise the crash is an error (exit 1).\n\n" +
			"A server that asks for a model completion (sampling/createMessage) gets one from --sampling-model (or " +
			"AGENT_MCP_SAMPLING_MODEL; agent-chat's catalog, models.toml and key variables; --record/--replay cassettes); " +
			"without a model, sampling is not offered and such a request is declined with a note on stderr. The request's " +
			"tools and toolChoice reach the model.\n\n" +
			"A tool that must run as a task (execution.taskSupport \"required\") is called as one and polled (tasks/get at the " +
			"server's pollInterval) until its result. A URL the server asks the person to open (URL elicitation, or a -32042 " +
			"error) is shown on stderr, never opened. structuredContent that does not match the tool's outputSchema makes the " +
			"result an error.\n\n" +
			"Examples:\n\n    agent-mcp call everything echo '{\"message\":\"hi\"}'\n" +
			"   echo '{\"path\":\"/tmp\"}' | agent-mcp call fs list_directory - --text\n" +
			"    agent-mcp call github search_issues '{\"q\":\"bug\"}' --raw | jq .structuredContent",
		Flags: callFlags(append([]cli.Flag{
			&cli.BoolFlag{Name: "text", Usage: "print only the joined text of the result"},
			&cli.BoolFlag{Name: "raw", Usage: "print the MCP CallToolResult as the server sent it"},
		}, samplingFlags()...)...),
		Action: func(c *cli.Context) error {
			o, err := callOptionsOf(c.Args().Slice(), c.Bool("text"), c.Bool("raw"), env.Stdin)
			if err != nil {
				return err
			}
			return runCall(c, env, o)
		},
	}
}

// callOptions is what `agent-mcp call` was asked to do.
type callOptions struct {
	server, tool string
	args         json.RawMessage
	text, raw    bool
}

// callOptionsOf checks the arguments of `agent-mcp call` (stdin is read for
// ARGS_JSON "-").
func callOptionsOf(args []string, text, raw bool, stdin io.Reader) (callOptions, error) {
	if len(args) < 2 || len(args) > 3 {
		return callOptions{}, exit.Errorf(exit.Usage, "call: want SERVER TOOL [ARGS_JSON|-]")
	}
	if text && raw {
		return callOptions{}, exit.Errorf(exit.Usage, "--text and --raw exclude each other")
	}
	o := callOptions{server: args[0], tool: args[1], text: text, raw: raw}
	var err error
	if len(args) == 3 {
		o.args, err = readArgs(args[2], stdin)
	} else {
		o.args, err = readArgs("", stdin)
	}
	return o, err
}

// runCall calls the tool and prints its result.
func runCall(c *cli.Context, env *cmdEnv, o callOptions) error {
	r, err := newRunner(c, env)
	if err != nil {
		return err
	}
	if r.sampler, err = newSampler(c, env); err != nil {
		return err
	}
	if r.sampler != nil {
		defer r.sampler.close()
	}
	e, err := r.server(o.server)
	if err != nil {
		return err
	}
	if !mcptool.Allowed(e.Server.IncludeTools, e.Server.ExcludeTools, o.tool) {
		return exit.Errorf(exit.Usage, "tool %q of server %q is excluded by its includeTools/excludeTools", o.tool, e.Name)
	}
	var opts *mcp.ClientOptions
	var token any
	if env.StderrTTY { // progress for people: one line on stderr, redrawn
		pr := &progressLine{w: env.Stderr, prefix: e.Name + " " + o.tool}
		opts, token = &mcp.ClientOptions{ProgressNotificationHandler: pr.handle}, "agent-mcp-call"
		defer pr.clear()
	}
	return r.withSession(c.Context, e, opts, func(s *session) error {
		raw, err := s.callTool(c.Context, o.tool, o.args, token)
		if err != nil {
			return s.explainCallError(c.Context, o.tool, err)
		}
		var res struct {
			IsError bool `json:"isError"`
		}
		if json.Unmarshal(raw, &res) == nil && res.IsError {
			// Some servers (the TypeScript SDK's McpServer) answer an
			// unknown tool with an isError result, not an error.
			if err := s.noSuchTool(c.Context, o.tool); err != nil {
				return err
			}
		}
		return printCall(r, env.Stdout, e.Name, o, raw, res.IsError)
	})
}

// printCall prints a call's result as --raw, --text or the tool-result
// JSON asked for; a tool error exits 1.
func printCall(r *runner, w io.Writer, server string, o callOptions, raw json.RawMessage, isError bool) error {
	if o.raw {
		if _, err := fmt.Fprintf(w, "%s\n", raw); err != nil {
			return err
		}
		if isError {
			return exit.Silent(exit.Failure)
		}
		return nil
	}
	out, err := mcptool.Convert(server, o.tool, raw)
	if err != nil {
		return &mcpclient.ConnErr{Server: server, Kind: "protocol", Err: err}
	}
	if o.text {
		if _, err := fmt.Fprintln(w, mcptool.JoinText(out.Content)); err != nil {
			return err
		}
	} else if err := writeJSON(r, out); err != nil {
		return err
	}
	if out.IsError {
		return exit.Silent(exit.Failure)
	}
	return nil
}

// readArgs parses the arguments object of a call.
func readArgs(arg string, stdin io.Reader) (json.RawMessage, error) {
	src := "ARGS_JSON"
	data := []byte(arg)
	if arg == "-" {
		src = "stdin"
		var err error
		if data, err = io.ReadAll(stdin); err != nil {
			return nil, err
		}
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return json.RawMessage("{}"), nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, exit.Errorf(exit.Usage, "%s: invalid JSON: %v", src, err)
	}
	if dec.More() {
		return nil, exit.Errorf(exit.Usage, "%s: more than one JSON value", src)
	}
	if _, ok := v.(map[string]any); !ok {
		kind := "a value"
		switch v.(type) {
		case []any:
			kind = "an array"
		case string:
			kind = "a string"
		case json.Number:
			kind = "a number"
		case bool:
			kind = "a boolean"
		case nil:
			kind = "null"
		}
		return nil, exit.Errorf(exit.Usage, "%s: the arguments must be a JSON object, not %s", src, kind)
	}
	return data, nil
}

// callTool runs tools/call with a progress token and the tool timeout and
// returns the result as the server's JSON. A call abandoned on a timeout or
// a cancelled ctx gets notifications/cancelled (the SDK sends it; close waits
// for it). A call whose connection broke is sent again on a new connection
// only when it never went out or the tool says that is safe (resendable).
func (s *session) callTool(ctx context.Context, tool string, args json.RawMessage, progressToken any) (json.RawMessage, error) {
	timeout := s.r.toolTimeoutFor(s.Entry)
	cctx, cancel := mcpclient.BoundCtx(ctx, timeout)
	defer cancel()
	var raw json.RawMessage
	call := func(cs *mcp.ClientSession) error {
		p := &mcp.CallToolParams{Name: tool, Arguments: args}
		if progressToken != nil {
			p.SetProgressToken(progressToken)
		}
		if s.TaskSupport(tool) == "required" {
			r, err := mcpclient.CallTask(cctx, s.Raw(), p)
			raw = r
			return err
		}
		res, err := cs.CallTool(cctx, p)
		if err != nil && cctx.Err() != nil {
			s.Watch.Expect()
		}
		// A tool that must run as a task refuses a plain call (-32601, or
		// an error result from the TypeScript SDK): learn its taskSupport
		// from the list, and run it so.
		if (mcpclient.RPCCode(err) == jsonrpc.CodeMethodNotFound || (err == nil && res.IsError)) && s.TaskSupport(tool) == "" {
			if _, lerr := s.listTools(cctx); lerr == nil && s.TaskSupport(tool) == "required" {
				r, err := mcpclient.CallTask(cctx, s.Raw(), p)
				raw = r
				return err
			}
		}
		if err != nil {
			return err
		}
		raw, err = json.Marshal(res)
		return err
	}
	err := s.DoAgain(cctx, call, func(sent error) error { return s.resendable(cctx, tool, sent) })
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, mcpclient.TimeoutErr(cctx, err, fmt.Sprintf("tool %q of %q", tool, s.Entry.Name), timeout)
	}
	// structuredContent is checked against the tool's outputSchema (listed
	// now when the result has some and the tool was not listed yet).
	schema, listed := s.OutputSchema(tool)
	if !listed && mcpclient.HasStructured(raw) {
		if _, err := s.listTools(ctx); err == nil {
			schema, _ = s.OutputSchema(tool)
		}
	}
	return mcpclient.CheckStructured(tool, schema, raw), nil
}

// neverRan reports a call failure that shows the server never ran the call:
// the connection was known closed before the request was written, or an
// HTTP server did not know the session (404) or refused the connection.
func neverRan(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, mcp.ErrSessionMissing) ||
		strings.Contains(strings.ToLower(err.Error()), "connection refused")
}

// resendable is nil when a call of tool that failed with err (the connection
// broke) may be sent again on the new connection: the server never ran it
// (neverRan), or the server marks the tool
// read-only or idempotent and not destructive. Otherwise it is the crash as a
// connection error (exit 1).
func (s *session) resendable(ctx context.Context, tool string, err error) error {
	if neverRan(err) {
		return nil
	}
	tools, lerr := s.listTools(ctx)
	for _, t := range tools {
		if t.Name == tool && t.Annotations != nil && mcptool.Resendable(&mcptool.Annotations{
			ReadOnly: t.Annotations.ReadOnlyHint, Destructive: t.Annotations.DestructiveHint, Idempotent: t.Annotations.IdempotentHint}) {
			return nil
		}
	}
	msg := fmt.Sprintf("MCP server %q exited or closed the connection during the call of %q; not sent again: "+
		"the call may have run and the tool is not marked idempotent (idempotentHint: true, destructiveHint: false) or read-only", s.Entry.Name, tool)
	if lerr != nil {
		msg += " (its tool list could not be read after the reconnect: " + lerr.Error() + ")"
	}
	return &mcpclient.ConnErr{Server: s.Entry.Name, Kind: "connection", Err: fmt.Errorf("%s: %w", msg, err)}
}

// explainCallError turns a failed call into a clear error: an unknown tool
// (with close names) is a usage error, a timeout exits 124.
func (s *session) explainCallError(ctx context.Context, tool string, err error) error {
	var ce *mcpclient.ConnErr
	if errors.As(err, &ce) || ctx.Err() != nil {
		return err
	}
	if ae := s.AuthErr(); ae != nil { // the token expired or was revoked mid-session
		return ae
	}
	if s.r.sampler == nil && mcpclient.SamplingRefused(err) {
		return &mcpclient.ConnErr{Server: s.Entry.Name, Kind: "connection", Err: fmt.Errorf("%s: %s: the server asked for sampling, declined: %s", s.Entry.Name, tool, mcpclient.NoSampling)}
	}
	if text, ok := mcpclient.URLRequired(err); ok {
		return &mcpclient.ConnErr{Server: s.Entry.Name, Kind: "tool_error", Err: fmt.Errorf("%s: %s: %s", s.Entry.Name, tool, text)}
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) || strings.Contains(err.Error(), "unknown tool") || strings.Contains(err.Error(), "not found") {
		if err := s.noSuchTool(ctx, tool); err != nil {
			return err
		}
		if je != nil && je.Code == jsonrpc.CodeInvalidParams {
			return exit.Errorf(exit.Usage, "%s: %s: MCP error %d: %s", s.Entry.Name, tool, je.Code, je.Message)
		}
	}
	if mcpclient.Retriable(err) {
		return &mcpclient.ConnErr{Server: s.Entry.Name, Kind: "connection", Err: s.gone(tool, err)}
	}
	return &mcpclient.ConnErr{Server: s.Entry.Name, Kind: "connection", Err: fmt.Errorf("%s: %s: %w", s.Entry.Name, tool, err)}
}

// noSuchTool is the usage error (with close names) for a tool the
// server does not list; nil when it lists it or the list cannot be had.
func (s *session) noSuchTool(ctx context.Context, tool string) error {
	tools, err := s.listTools(ctx)
	if err != nil {
		return nil
	}
	var names []string
	for _, t := range tools {
		if t.Name == tool {
			return nil
		}
		names = append(names, t.Name)
	}
	msg := fmt.Sprintf("server %q has no tool %q", s.Entry.Name, tool)
	if sug := editdist.Suggest(tool, names); len(sug) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(sug, ", "))
	}
	return exit.Errorf(exit.Usage, "%s", msg)
}

// gone explains a call that failed on a connection that went away again
// after the reconnect and retry.
func (s *session) gone(tool string, err error) error {
	msg := fmt.Sprintf("MCP server %q closed the connection during the call of %q, also after a reconnect (did it exit or crash?)", s.Entry.Name, tool)
	if tail := s.StderrLast(); tail != "" {
		msg += " (server stderr: " + tail + ")"
	}
	return fmt.Errorf("%s: %w", msg, err)
}

// progressLine shows a call's progress notifications on a terminal as one
// line that each notification redraws; clear erases it when the call ends.
type progressLine struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	shown  bool
}

func (p *progressLine) handle(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\x1b[Kagent-mcp: %s: %s", p.prefix, mcpbridge.ProgressText(req.Params))
	p.shown = true
}

func (p *progressLine) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
