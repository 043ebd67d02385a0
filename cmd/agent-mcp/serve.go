package main

import (
	"errors"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/configfile"
	"github.com/agentutils/agentutils/internal/mcpserve"
	"github.com/agentutils/agentutils/internal/proctree"
	sbflags "github.com/agentutils/agentutils/internal/sandbox/flags"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/redact"
	"github.com/agentutils/agentutils/lib/tooldef"
)

func serveCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve agent-tool's tools as an MCP server (stdio or Streamable HTTP)",
		Description: "Starts the tool co-process (--tools-cmd, default `agent-tool serve`), and offers its tools to any MCP " +
			"client (Claude Desktop, Cursor, another agent) over stdio, or over Streamable HTTP with --http. Only read-only " +
			"tools (" + strings.Join(tooldef.Names(func(t tooldef.Tool) bool { return t.Class == tooldef.Read }), ", ") + ") are offered unless --allow-write (" +
			strings.Join(tooldef.Names(tooldef.Changes), ", ") + ") or " +
			"--allow-exec (bash) is given; --tools picks names (tools outside the known classes are offered only when named). " +
			"Tools carry MCP annotations (readOnlyHint, destructiveHint, openWorldHint). A call's progress becomes " +
			"notifications/progress when the client asked for it, notifications/cancelled becomes `cancel`, results keep " +
			"text and image blocks, and the tool's details go to _meta[\"agent/details\"]. Exclusive tools run alone. " +
			"A tool's interactive request (kind confirm, ask or elicit) goes to the client as elicitation when the client " +
			"supports it (a boolean \"confirm\" or a string \"answer\" form; a multi round-trip input request for protocol " +
			"2026-07-28 clients), and the answer goes back to the tool; other clients are asked nothing and the request is cancelled.\n\n" +
			"Over stdio and HTTP it speaks MCP 2025-11-25 tasks: a tools/call with \"task\" is answered with its task at once and runs in " +
			"the background (tasks/get, tasks/result, tasks/list, tasks/cancel, notifications/tasks/status; over HTTP what the task " +
			"asks the client comes on the tasks/result stream); resources, prompts and completion requests get " +
			"-32601. The default --tools-cmd runs the agent-tool installed beside agent-mcp when there is one.\n\n" +
			"Over HTTP the address must be a loopback one unless --listen-any, and a bearer token (--token or " +
			"AGENT_MCP_SERVE_TOKEN) is required off loopback. A request with an Origin header other than a loopback one " +
			"(or one given with --allow-origin) gets 403. The default --tools-cmd confines every path the tools take " +
			"to --cwd (agent-tool --root), and agent-tool runs bash in its sandbox (--sandbox, --sandbox-writable and " +
			"--sandbox-net are passed to an agent-tool --tools-cmd).\n\n" +
			"Examples:\n\n" +
			"    agent-mcp serve                                   # stdio, for a client's config: {\"command\":\"agent-mcp\",\"args\":[\"serve\"]}\n" +
			"    agent-mcp serve --allow-write --cwd ~/src/project\n" +
			"    agent-mcp serve --http 127.0.0.1:8765 --token \"$TOKEN\"",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "cwd", Usage: "project directory given to the tools (default: the current directory)"},
			&cli.StringFlag{Name: "tools-cmd", Value: "agent-tool serve --root .", Usage: "the tool co-process, run with sh -c in --cwd (the default confines every path to --cwd)"},
			&cli.StringSliceFlag{Name: "tools", Usage: "offer only these tools (comma-separated or repeated)"},
			&cli.BoolFlag{Name: "allow-write", Usage: "also offer the tools that change files"},
			&cli.BoolFlag{Name: "allow-exec", Usage: "also offer bash"},
			&cli.StringFlag{Name: "http", Usage: "serve Streamable HTTP on `ADDR` (host:port) instead of stdio"},
			&cli.BoolFlag{Name: "listen-any", Usage: "with --http, allow an address that is not loopback"},
			&cli.StringFlag{Name: "token", Usage: "with --http, require Authorization: Bearer TOKEN (default: $AGENT_MCP_SERVE_TOKEN)"},
			&cli.StringSliceFlag{Name: "allow-origin", Usage: "with --http, also accept requests whose Origin header is `ORIGIN` (e.g. https://app.example); repeatable"},
		}, sbflags.Flags()...),
		Action: func(c *cli.Context) error { return serveRun(c, env) },
	}
}

// serveFlags are serve's checked flags.
type serveFlags struct {
	cwd, token, addr string
	pick             []string
}

// serveFlagsFrom checks serve's flags: an --http address off loopback
// needs --listen-any and a token; --token and --listen-any need --http.
func serveFlagsFrom(c *cli.Context, env *cmdEnv) (serveFlags, error) {
	f := serveFlags{cwd: env.Dir, token: c.String("token"), addr: c.String("http")}
	if c.NArg() > 0 {
		return f, exit.Errorf(exit.Usage, "serve: no arguments expected")
	}
	if d := c.String("cwd"); d != "" {
		f.cwd = d
	}
	if f.token == "" {
		f.token = env.Getenv("AGENT_MCP_SERVE_TOKEN")
	}
	if f.addr != "" {
		host, _, err := net.SplitHostPort(f.addr)
		if err != nil {
			return f, exit.Errorf(exit.Usage, "--http %q: %v", f.addr, err)
		}
		ip := net.ParseIP(host)
		loopback := host == "localhost" || (ip != nil && ip.IsLoopback())
		if !loopback && !c.Bool("listen-any") {
			return f, exit.Errorf(exit.Usage, "--http %q is not a loopback address: add --listen-any (and a --token)", f.addr)
		}
		if !loopback && f.token == "" {
			return f, exit.Errorf(exit.Usage, "--http %q off loopback needs --token or AGENT_MCP_SERVE_TOKEN", f.addr)
		}
	} else if c.IsSet("token") || c.Bool("listen-any") {
		return f, exit.Errorf(exit.Usage, "--token and --listen-any need --http")
	}
	for _, t := range c.StringSlice("tools") {
		f.pick = append(f.pick, strings.Split(t, ",")...)
	}
	return f, nil
}

// serveRun starts the tool process and serves its tools over stdio or HTTP.
func serveRun(c *cli.Context, env *cmdEnv) error {
	f, err := serveFlagsFrom(c, env)
	if err != nil {
		return err
	}
	sb, err := sbflags.PassArgs(c, env.Dir)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	longRunningGC(env)
	if f.addr == "" {
		// Over stdio, serve is its client's: it ends when the process that
		// started it dies, even while another holds the socket it reads
		// (a read of stdin that no cancel reaches: SIGKILL; the tool
		// process gets its SIGTERM then, toolproto).
		if err := proctree.DieWithParent(syscall.SIGKILL); err != nil {
			return err
		}
	}
	// The tool process gets no keys: not the token, nor variables whose
	// names look secret, but those shell.env names (agent-chat's rule).
	cfg, err := configfile.Load(f.cwd, env.Getenv, nil)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	environ := redact.Environ(env.Environment(), cfg.ShellEnv(), []string{f.token})
	tp, err := mcpserve.Start(c.Context, env.Stderr, besideSelf(sbflags.PassTo(c.String("tools-cmd"), sb)), f.cwd, environ)
	if err != nil {
		return err
	}
	defer tp.Stop()
	srv, err := tp.Server(f.cwd, f.pick, c.Bool("allow-write"), c.Bool("allow-exec"))
	if err != nil {
		return err
	}
	if f.addr == "" {
		err := srv.Run(c.Context, mcpserve.TaskTransport{ToolsOnly: true, Transport: mcpserve.DrainTransport{Transport: &mcp.StdioTransport{}}})
		if err != nil && c.Context.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
			return err
		}
		return nil
	}
	return serveHTTP(c, srv, f)
}

// besideSelf runs the agent-tool installed beside agent-mcp (else the one
// on PATH) for a tools command that starts with a bare "agent-tool": a
// client that starts serve by its absolute path with a PATH that lacks
// agentutils (desktop clients, Codex) gets its tools all the same.
func besideSelf(command string) string {
	rest, ok := strings.CutPrefix(strings.TrimLeft(command, " \t"), "agent-tool")
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return command
	}
	p := app.Sibling("agent-tool")
	if p == "" {
		return command
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'" + rest
}

// serveHTTP serves srv over Streamable HTTP until interrupted.
func serveHTTP(c *cli.Context, srv *mcp.Server, f serveFlags) error {
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return exit.Errorf(exit.Failure, "--http: %v", err)
	}
	// Tasks, and -32601 for what serve does not offer, as over stdio.
	h := mcpserve.NewTaskHandler(srv, nil, true)
	origins := c.StringSlice("allow-origin")
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The MCP spec: servers MUST validate Origin on Streamable
		// HTTP (DNS rebinding); a browser page elsewhere gets 403.
		if o := r.Header.Get("Origin"); o != "" && !mcpserve.OriginAllowed(o, origins) {
			http.Error(w, "forbidden origin", http.StatusForbidden)
			return
		}
		if f.token != "" {
			if r.Header.Get("Authorization") != "Bearer "+f.token {
				w.Header().Set("WWW-Authenticate", `Bearer realm="agent-mcp"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
	hs := &http.Server{Handler: handler}
	app.Warnf(c, "serving MCP on http://%s/", ln.Addr())
	go func() { <-c.Context.Done(); hs.Close() }()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// longRunningGC lets the heap of a long-running serve or bridge grow to 3x
// its live size between collections (GOGC=200) unless GOGC is set: the
// SDK's JSON decoding allocates a large buffer per message, and with the
// default GOGC=100 garbage collection took about half the CPU time of
// bench-agent-mcp's serve throughput run (2000 read calls, median of 5: bridge+serve+
// agent-tool CPU 1.5 s -> 0.95 s, wall 1.45 s -> 0.88 s; bridge peak RSS 66 -> 76 MB with all 2000
// calls in flight at once; GOGC=400 saved little more for 105 MB).
func longRunningGC(env *cmdEnv) {
	if env.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
}
