package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/internal/mcpbridge"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcpconfig"
	"github.com/agentutils/agentutils/lib/mcptool"
)

func bridgeCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:  "bridge",
		Usage: "serve every configured MCP tool to agent-chat as a tool co-process",
		Description: "Speaks the tool co-process protocol (formats/tool-protocol) on stdin/stdout: after `hello` it " +
			"connects to the enabled servers in parallel and answers with their tools, named `mcp__<server>__<tool>` " +
			"(at most 64 characters: longer names are cut and get a hash suffix; a clash is reported in `errors`). " +
			"Servers still connecting after --start-wait (250 ms) are served from the 30-day tool cache when it has them (their calls " +
			"wait for the connection); servers that fail are listed in `errors`. Results keep text and images, render " +
			"audio, blobs, embedded resources and resource links as text, and keep structuredContent in details. MCP " +
			"progress becomes `update`, `cancel` sends notifications/cancelled, server instructions go into " +
			"`instructions` (4000 characters per server, labelled as server-provided), a server's elicitation becomes a " +
			"`request` of kind elicit (the `answer` value is the content, or {action, content}), and a tool list changed by " +
			"the server or by a reconnect is sent again with replace: true. The project directory is hello's cwd unless --cwd is given. " +
			"Servers' sampling requests are answered with --sampling-model as in `agent-mcp call`, else declined.\n\n" +
			"--naming v12 gives `mcp_<server>_<tool>` and --naming v15 `mcp__<server>_<tool>` (lowercase, digits dropped), " +
			"the reference agent's forms.\n\n" +
			"Hooks: when hello says \"hooks\": true (the parent leaves the tool hooks to its co-processes), the PreToolUse and " +
			"PostToolUse hooks of --settings files and --hooks-dir directories run around each call, with Claude Code's " +
			"contract (exit 2 blocks with stderr as the reason; a JSON verdict may deny, rewrite the arguments, replace the " +
			"content or add context; a failing PreToolUse hook blocks unless its on_error is \"allow\"); matchers see the " +
			"agent name, e.g. `mcp__github__create_issue` or `mcp__github__.*`. agent-chat fires hooks itself and says \"hooks\": false.\n\n" +
			"Examples:\n\n    agent-chat --tools-cmd 'agent-tool serve' --tools-cmd 'agent-mcp bridge' 'summarise issue 42'\n" +
			"    agent-chat --tools-cmd 'agent-mcp bridge --servers github,linear --trust' 'triage my issues'",
		Flags: callFlags(append([]cli.Flag{
			&cli.StringSliceFlag{Name: "servers", Usage: "only these servers (comma-separated or repeated)"},
			&cli.StringFlag{Name: "naming", Value: "default", Usage: "tool name form: default, v12 or v15 (the reference agent's older forms, for old transcripts)"},
			&cli.StringSliceFlag{Name: "settings", Usage: "Claude-Code-style settings `FILE` whose hooks.PreToolUse/PostToolUse run around each call when hello.hooks is true; repeatable"},
			&cli.StringSliceFlag{Name: "hooks-dir", Usage: "`DIR` with pre/<tool> and post/<tool> hook executables (<tool> is the agent name or *), run when hello.hooks is true; repeatable"},
			&cli.DurationFlag{Name: "start-wait", Value: mcpbridge.StartGate, EnvVars: []string{"AGENT_MCP_START_WAIT"}, Usage: "how long hello waits for servers still connecting before it answers with their cached tools"},
		}, samplingFlags()...)...),
		Action: func(c *cli.Context) error {
			if _, err := mcptool.Name(c.String("naming"), "s", "t"); err != nil {
				return exit.Errorf(exit.Usage, "--naming: %v", err)
			}
			longRunningGC(env)
			hs, err := loadHooks(c, env)
			if err != nil {
				return err
			}
			return mcpbridge.Run(c.Context, env.Stdin, env.Stdout, mcpbridge.Options{
				Naming: c.String("naming"), StartWait: c.Duration("start-wait"), Hooks: hs, Stderr: env.Stderr,
				Setup: func(hello *event.Hello) (*mcpbridge.Servers, error) { return bridgeServers(c, env, hello) },
			})
		},
	}
}

// bridgeServers reads the configuration for hello's project (unless --cwd
// names one) and gives the bridge the servers of --servers (default: every
// enabled one), connected by the runner.
func bridgeServers(c *cli.Context, env *cmdEnv, hello *event.Hello) (*mcpbridge.Servers, error) {
	if hello.Cwd != "" && !c.IsSet("cwd") {
		_ = c.Set("cwd", hello.Cwd)
	}
	r, err := newRunner(c, env)
	if err != nil {
		return nil, err
	}
	r.terminate = 2 * time.Second
	if r.sampler, err = newSampler(c, env); err != nil {
		return nil, err
	}
	var names []string
	for _, w := range c.StringSlice("servers") {
		names = append(names, strings.Split(w, ",")...)
	}
	es, err := r.selected(names)
	if err != nil {
		return nil, err
	}
	srvs := &mcpbridge.Servers{Entries: es, Cached: r.readToolCache, Cwd: r.cwd,
		SpillDir: filepath.Join(r.dirs.Cache, "mcp-output"), Sampling: r.sampler != nil,
		Open: func(ctx context.Context, e mcpconfig.Entry, opts *mcp.ClientOptions) (mcpbridge.Conn, error) {
			s, err := r.open(ctx, e, opts)
			if err != nil {
				return nil, err
			}
			return bridgeConn{s}, nil
		}}
	if r.sampler != nil {
		srvs.Close = r.sampler.close
	}
	return srvs, nil
}

// bridgeConn is a session as the bridge uses it.
type bridgeConn struct{ *session }

func (b bridgeConn) ListTools(ctx context.Context) ([]*mcp.Tool, error) { return b.listTools(ctx) }
func (b bridgeConn) CallTool(ctx context.Context, tool string, args json.RawMessage, token any) (json.RawMessage, error) {
	return b.callTool(ctx, tool, args, token)
}
func (b bridgeConn) Gone(tool string, err error) error { return b.gone(tool, err) }
func (b bridgeConn) OnReconnect(fn func())             { b.session.OnReconnect = fn }

// loadHooks reads the hooks of --settings files and --hooks-dir
// directories, keeping the tool events (the only ones of a co-process).
func loadHooks(c *cli.Context, env *cmdEnv) ([]hooks.Hook, error) {
	var settings, dirs []string
	for _, f := range c.StringSlice("settings") {
		settings = append(settings, env.Abs(f))
	}
	for _, d := range c.StringSlice("hooks-dir") {
		dirs = append(dirs, env.Abs(d))
	}
	hs, warnings, err := hooks.Load(settings, dirs)
	if err != nil {
		return nil, exit.Wrap(exit.Usage, err)
	}
	for _, w := range warnings {
		app.Warnf(c, "%s", w)
	}
	var out []hooks.Hook
	for _, h := range hs {
		switch h.Event {
		case hooks.PreToolUse, hooks.PostToolUse, hooks.PostToolUseFailure, hooks.ToolResult:
			out = append(out, h)
		}
	}
	return out, nil
}
