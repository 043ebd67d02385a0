package main

import (
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
)

func newApp(env *app.Env) *cli.App { return newAppWith(&cmdEnv{Env: env}) }

// cmdEnv is the environment of agent-mcp's commands: the process's, and
// the seams a test may set.
type cmdEnv struct {
	*app.Env
	// transport, when set, gives the transport of a server by name; nil
	// from it means the configured one. Tests connect the Go SDK's
	// in-memory servers this way.
	transport func(server string) mcp.Transport
}

func newAppWith(env *cmdEnv) *cli.App {
	// Servers are connected in parallel, and their stderr lines and our
	// warnings meet on one stream: one write at a time.
	if _, ok := env.Stderr.(*syncWriter); !ok {
		env.Stderr = &syncWriter{w: env.Stderr}
	}
	a := &cli.App{
		Name:  "agent-mcp",
		Usage: "use MCP servers from the shell and from agent-chat",
		Description: "agent-mcp finds the MCP servers configured for agentutils and for the common MCP clients " +
			"(.mcp.json, Claude Code, Claude Desktop, Codex, Gemini CLI, Cursor, Windsurf, VS Code, OpenCode), " +
			"connects to them over stdio, Streamable HTTP or legacy SSE, and lists or calls their tools, " +
			"resources and prompts. Results are JSON in the tool-result shape of agentutils " +
			"({\"content\":[…],\"details\":{…},\"isError\":false}). `agent-mcp bridge` serves every configured " +
			"MCP tool to agent-chat as a tool co-process, named `mcp__<server>__<tool>`.\n\n" +
			"Project-level servers (files inside the project directory) run commands from the repository, " +
			"so they are used only for trusted projects: pass --trust, or list the project in \"trustedProjects\" " +
			"of the user file $XDG_CONFIG_HOME/agentutils/mcp.json (or in $XDG_DATA_HOME/agentutils/trust.json). " +
			"On a terminal (stdin and stderr), the commands that run servers ask once: yes records the project in " +
			"trust.json, once trusts it for this run; in pipes, and in bridge and serve, nobody is asked.\n\n" +
			"Examples:\n\n" +
			"    agent-mcp servers --all\n" +
			"    agent-mcp add everything -- npx -y @modelcontextprotocol/server-everything\n" +
			"    agent-mcp tools everything\n" +
			"    agent-mcp call everything echo '{\"message\":\"hi\"}' --text\n" +
			"    agent-chat --tools-cmd 'agent-tool serve' --tools-cmd 'agent-mcp bridge' 'list my open issues'",
		Commands: []*cli.Command{
			serversCommand(env),
			listCommand(env),
			toolsCommand(env),
			callCommand(env),
			resourcesCommand(env),
			readCommand(env),
			promptsCommand(env),
			promptCommand(env),
			completeCommand(env),
			addCommand(env),
			removeCommand(env),
			enableCommand(env, true),
			enableCommand(env, false),
			testCommand(env),
			authCommand(env),
			logoutCommand(env),
			cacheCommand(env),
			bridgeCommand(env),
			serveCommand(env),
		},
	}
	// urfave/cli gives every command a "help" subcommand with the alias "h",
	// which would swallow a server named h ("agent-mcp call h echo").
	for _, c := range a.Commands {
		c.HideHelpCommand = len(c.Subcommands) == 0
	}
	return a
}

// syncWriter serialises writes to a stream shared by goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// configFlags are accepted by every subcommand that reads the
// configuration: where it is and which of it to use.
func configFlags(extra ...cli.Flag) []cli.Flag {
	return append([]cli.Flag{
		cwdFlag,
		&cli.StringFlag{Name: "config", Usage: "an extra mcp.json-format `FILE`, read first (highest precedence)"},
		&cli.BoolFlag{Name: "trust", Usage: "use this project's own MCP server configurations (they run commands from the repository)"},
		&cli.BoolFlag{Name: "no-project-config", Usage: "ignore every project-level configuration"},
		&cli.StringFlag{Name: "only-source", Usage: "read only one provider: native, claude, claude-desktop, codex, gemini, opencode, cursor, windsurf, vscode, mcp-json"},
	}, extra...)
}

var cwdFlag = &cli.StringFlag{Name: "cwd", Usage: "project directory (default: the current directory)"}

// connectFlags are configFlags and those of the subcommands that connect
// to servers.
func connectFlags(extra ...cli.Flag) []cli.Flag {
	return configFlags(append([]cli.Flag{
		&cli.DurationFlag{Name: "timeout", Usage: "connect and list time limit (0: none; default: the server's \"timeout\", AGENT_MCP_TIMEOUT_MS, else 30s)"},
		&cli.StringFlag{Name: "log-level", Usage: "send logging/setLevel `LEVEL` (debug, info, notice, warning, error, critical, alert, emergency) to servers that offer logging; their notifications/message are shown on stderr"},
		&cli.StringFlag{Name: "server-log", Usage: "write each stdio server's stderr to `DIR`/<server>.log instead of our stderr"},
	}, extra...)...)
}

// callFlags are connectFlags and the tool timeout, for the subcommands
// that call tools.
func callFlags(extra ...cli.Flag) []cli.Flag {
	return connectFlags(append([]cli.Flag{
		&cli.DurationFlag{Name: "tool-timeout", Usage: "time limit of one tools/call (0: none; default: the server's \"toolTimeout\", AGENT_MCP_TOOL_TIMEOUT_MS, else none)"},
	}, extra...)...)
}
