package main

import (
	"fmt"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/mcpconfig"
)

func serversCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:  "servers",
		Usage: "show the discovered server configurations (no connection)",
		Description: "Lists every MCP server agent-mcp would use, with the file it comes from, in precedence order " +
			"(our mcp.json, Claude Code, Claude Desktop, Codex, Gemini CLI, OpenCode, Cursor, Windsurf, VS Code, ./mcp.json; " +
			"project before user within a provider; the first definition of a name wins).\n\n" +
			"Examples:\n\n    agent-mcp servers\n    agent-mcp servers --all --json | jq -r .path",
		Flags: configFlags(
			&cli.BoolFlag{Name: "all", Usage: "also show shadowed duplicates and disabled servers"},
			&cli.BoolFlag{Name: "json", Usage: "one JSON object per server"},
			&cli.BoolFlag{Name: "show-secrets", Usage: "with --json, print header and env values that look like credentials instead of <redacted>"},
		),
		Action: func(c *cli.Context) error {
			r, err := newRunner(c, env)
			if err != nil {
				return err
			}
			list := r.res.Servers
			if c.Bool("all") {
				list = r.res.All
			}
			shown := 0
			for _, e := range list {
				if c.Bool("all") || !e.Disabled {
					shown++
				}
			}
			if shown == 0 {
				noServers(c)
			}
			if c.Bool("json") {
				for _, e := range list {
					if !c.Bool("all") && e.Disabled {
						continue
					}
					if !c.Bool("show-secrets") {
						e.Server = redactServer(e.Server)
					}
					if err := writeJSON(r, e); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
			for _, e := range list {
				if !c.Bool("all") && e.Disabled {
					continue
				}
				var flags []string
				if e.Disabled {
					flags = append(flags, "disabled")
				}
				if e.Shadowed {
					flags = append(flags, "shadowed")
				}
				line := strings.Join([]string{e.Name, e.Server.Type, target(e.Server), e.Source, e.Path}, "\t")
				if len(flags) > 0 {
					line += "\t" + strings.Join(flags, ",")
				}
				fmt.Fprintln(tw, line)
			}
			return tw.Flush()
		},
	}
}

// noServers says on stderr that there is nothing to show, and how to add
// a server (stdout stays empty: no server is not an error).
func noServers(c *cli.Context) {
	app.Warnf(c, "no MCP servers to use: add one with 'agent-mcp add NAME -- COMMAND' (or --url URL); 'agent-mcp servers --all' shows disabled ones")
}

// target is the command line or URL of a server, for people.
func target(s mcpconfig.Server) string {
	if s.URL != "" {
		return s.URL
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

var secretKey = regexp.MustCompile(`(?i)auth|token|secret|key|password|passwd|credential|cookie`)

// redactServer hides header and env values whose names look like credentials:
// after ${VAR} expansion they hold the real secrets.
func redactServer(s mcpconfig.Server) mcpconfig.Server {
	hide := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			if secretKey.MatchString(k) && v != "" {
				v = "<redacted>"
			}
			out[k] = v
		}
		return out
	}
	s.Headers, s.Env = hide(s.Headers), hide(s.Env)
	if s.Auth != nil && s.Auth.ClientSecret != "" {
		a := *s.Auth
		a.ClientSecret = "<redacted>"
		s.Auth = &a
	}
	return s
}
