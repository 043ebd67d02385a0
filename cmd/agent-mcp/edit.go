package main

import (
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"net/url"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/mcpdiscover"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcpconfig"
)

var scopeFlag = &cli.StringFlag{Name: "scope", Value: "user", Usage: "which of our files to edit: user ($XDG_CONFIG_HOME/agentutils/mcp.json) or project (.agentutils/mcp.json)"}

// editScope edits the mcp.json file --scope names.
func editScope(c *cli.Context, env *cmdEnv, done string, edit func(*mcpconfig.Doc) error) error {
	path, err := filesRunner(c, env).scopeFile(c)
	if err != nil {
		return err
	}
	return editFile(c, path, done, edit)
}

// scopeFile is the file of --scope.
func (r *runner) scopeFile(c *cli.Context) (string, error) {
	switch c.String("scope") {
	case "user":
		return r.userFile(), nil
	case "project":
		return r.projectFile(), nil
	}
	return "", exit.Errorf(exit.Usage, "--scope %q: want user or project", c.String("scope"))
}

// editFile applies fn to one of our mcp.json files, writes it atomically
// and says on stderr what was done and where ("added server \"x\" to PATH").
func editFile(c *cli.Context, path, done string, fn func(*mcpconfig.Doc) error) error {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	out, err := mcpconfig.Edit(data, path, fn)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	if err := mcpdiscover.WriteFile(path, out); err != nil {
		return err
	}
	app.Warnf(c, "%s %s", done, path)
	return nil
}

func addCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "add a server to our mcp.json",
		ArgsUsage: "NAME (--url URL | -- COMMAND [ARG…])",
		Description: "Writes a server into $XDG_CONFIG_HOME/agentutils/mcp.json (--scope user, the default) or " +
			".agentutils/mcp.json of the project (--scope project). A URL without a scheme gets https://; " +
			"--token adds an Authorization: Bearer header.\n\n" +
			"Examples:\n\n    agent-mcp add everything -- npx -y @modelcontextprotocol/server-everything\n" +
			"    agent-mcp add --scope project fs --env ROOT=/srv -- mcp-server-filesystem /srv\n" +
			"    agent-mcp add linear --url mcp.linear.app/mcp\n" +
			"    agent-mcp add api --url https://h.example/mcp --header 'X-Team: a' --token \"$TOKEN\"",
		Flags: []cli.Flag{cwdFlag, scopeFlag,
			&cli.StringFlag{Name: "url", Usage: "the server's URL (an HTTP server)"},
			&cli.StringFlag{Name: "transport", Value: "http", Usage: "http (Streamable HTTP) or sse (legacy HTTP+SSE), with --url"},
			&cli.StringSliceFlag{Name: "header", Usage: "an HTTP header `'K: V'` (repeatable), with --url"},
			&cli.StringFlag{Name: "token", Usage: "a bearer token, with --url"},
			&cli.StringSliceFlag{Name: "env", Usage: "an environment variable `K=V` for a stdio server (repeatable)"},
			&cli.StringFlag{Name: "server-cwd", Usage: "working directory of a stdio server"},
			&cli.IntFlag{Name: "server-timeout", Usage: "the server's connect timeout in ms (written as \"timeout\")"},
		},
		Action: func(c *cli.Context) error {
			name, s, err := addServer(c.Args().Slice(), addFlags{
				url: c.String("url"), transport: c.String("transport"), headers: c.StringSlice("header"),
				token: c.String("token"), env: c.StringSlice("env"), cwd: c.String("server-cwd"), timeout: c.Int("server-timeout"),
				httpOnlySet: c.IsSet("header") || c.IsSet("token") || c.IsSet("transport"),
			})
			if err != nil {
				return err
			}
			return editScope(c, env, fmt.Sprintf("added server %q to", name), func(d *mcpconfig.Doc) error { return d.Add(name, s) })
		},
	}
}

// addFlags are the flags of `agent-mcp add`.
type addFlags struct {
	url, transport, token, cwd string
	headers, env               []string
	timeout                    int
	httpOnlySet                bool // --header, --token or --transport was given
}

// addServer is the server `agent-mcp add NAME …` describes.
func addServer(args []string, f addFlags) (string, mcpconfig.Server, error) {
	var s mcpconfig.Server
	if len(args) < 1 {
		return "", s, exit.Errorf(exit.Usage, "add: want NAME and --url URL or -- COMMAND")
	}
	name, cmd := args[0], args[1:]
	if len(cmd) > 0 && cmd[0] == "--" { // "add NAME -- CMD": urfave keeps the "--"
		cmd = cmd[1:]
	}
	var err error
	switch {
	case f.url != "" && len(cmd) > 0:
		return "", s, exit.Errorf(exit.Usage, "add: give --url or a command, not both")
	case f.url != "":
		if s, err = httpServer(f); err != nil {
			return "", s, err
		}
	case len(cmd) > 0:
		if f.httpOnlySet {
			return "", s, exit.Errorf(exit.Usage, "add: --header, --token and --transport need --url")
		}
		s = mcpconfig.Server{Type: "stdio", Command: cmd[0], Args: cmd[1:], Cwd: f.cwd}
	default:
		return "", s, exit.Errorf(exit.Usage, "add: want --url URL or -- COMMAND [ARG…]")
	}
	for _, kv := range f.env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return "", s, exit.Errorf(exit.Usage, "--env %q: want K=V", kv)
		}
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env[k] = v
	}
	s.Timeout = f.timeout
	return name, s, nil
}

// httpServer is the HTTP server of `agent-mcp add --url`.
func httpServer(f addFlags) (mcpconfig.Server, error) {
	u := f.url
	if !strings.Contains(u, "://") {
		u = "https://" + u
	}
	if _, err := url.ParseRequestURI(u); err != nil {
		return mcpconfig.Server{}, exit.Errorf(exit.Usage, "--url %q: %v", u, err)
	}
	if f.transport != "http" && f.transport != "sse" {
		return mcpconfig.Server{}, exit.Errorf(exit.Usage, "--transport %q: want http or sse", f.transport)
	}
	s := mcpconfig.Server{Type: f.transport, URL: u}
	for _, h := range f.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return s, exit.Errorf(exit.Usage, "--header %q: want 'K: V'", h)
		}
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		s.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if f.token != "" {
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		s.Headers["Authorization"] = "Bearer " + f.token
	}
	return s, nil
}

func removeCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:        "remove",
		Aliases:     []string{"rm"},
		Usage:       "remove a server from our mcp.json",
		ArgsUsage:   "NAME",
		Description: "Examples:\n\n    agent-mcp remove everything\n    agent-mcp remove --scope project fs",
		Flags:       []cli.Flag{cwdFlag, scopeFlag},
		Action: func(c *cli.Context) error {
			if err := oneArg(c); err != nil {
				return err
			}
			return editScope(c, env, fmt.Sprintf("removed server %q from", c.Args().First()), func(d *mcpconfig.Doc) error { return d.Remove(c.Args().First()) })
		},
	}
}

func enableCommand(env *cmdEnv, on bool) *cli.Command {
	name, verb := "enable", "enable a disabled server"
	if !on {
		name, verb = "disable", "disable a server without removing it"
	}
	return &cli.Command{
		Name:      name,
		Usage:     verb,
		ArgsUsage: "NAME",
		Description: "A server defined in one of our own mcp.json files gets \"enabled\": false (or loses it); a server " +
			"from another client's configuration is listed in (or dropped from) \"disabledServers\" of the user mcp.json.\n\n" +
			"Examples:\n\n    agent-mcp " + name + " github",
		Flags: configFlags(),
		Action: func(c *cli.Context) error {
			if err := oneArg(c); err != nil {
				return err
			}
			n := c.Args().First()
			r, err := newRunner(c, env)
			if err != nil {
				return err
			}
			var entry *mcpconfig.Entry
			for _, e := range r.res.All {
				if e.Name == n && !e.Shadowed {
					entry = &e
					break
				}
			}
			if entry == nil {
				_, err := r.server(n)
				return err
			}
			if entry.Source == "native" && (entry.Path == r.userFile() || entry.Path == r.projectFile()) {
				return editFile(c, entry.Path, fmt.Sprintf("%sd server %q in", name, n), func(d *mcpconfig.Doc) error { return d.SetEnabled(n, on) })
			}
			if entry.Source == "native" {
				return exit.Errorf(exit.Usage, "server %q is defined in %s: edit that file", n, entry.Path)
			}
			// Another client's server: our user file's disabledServers.
			return editFile(c, r.userFile(), fmt.Sprintf("%sd server %q (%s's) in", name, n, entry.Source), func(d *mcpconfig.Doc) error { d.SetDisabled(n, !on); return nil })
		},
	}
}

func testCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:      "test",
		Usage:     "connect to a server and report what it offers",
		ArgsUsage: "NAME",
		Description: "Connects, initializes and lists tools, resources and prompts; prints the server's name, version, " +
			"protocol version and counts. Exit status 1 when the server fails, 4 when it wants authentication (HTTP 401/403, with an 'agent-mcp auth' hint).\n\n" +
			"Example:\n\n    agent-mcp test everything",
		Flags: connectFlags(&cli.BoolFlag{Name: "json", Usage: "print a JSON object"}),
		Action: func(c *cli.Context) error {
			if err := oneArg(c); err != nil {
				return err
			}
			return oneServer(c, env, c.Args().First(), func(r *runner, s *session) error {
				tools, err := s.listTools(c.Context)
				if err != nil {
					return err
				}
				ir := s.current().InitializeResult()
				var nres, nprompts int
				if caps := ir.Capabilities; caps != nil {
					if caps.Resources != nil {
						nres = count(s.current().Resources(c.Context, nil))
					}
					if caps.Prompts != nil {
						nprompts = count(s.current().Prompts(c.Context, nil))
					}
				}
				if c.Bool("json") {
					return writeJSON(r, map[string]any{"server": s.Entry.Name, "serverInfo": ir.ServerInfo, "protocolVersion": ir.ProtocolVersion,
						"tools": len(tools), "resources": nres, "prompts": nprompts, "instructions": ir.Instructions != ""})
				}
				info := ""
				if ir.ServerInfo != nil {
					info = ir.ServerInfo.Name + " " + ir.ServerInfo.Version
				}
				_, err = fmt.Fprintf(env.Stdout, "%s: ok (%s, protocol %s): %d tools, %d resources, %d prompts\n",
					s.Entry.Name, strings.TrimSpace(info), ir.ProtocolVersion, len(tools), nres, nprompts)
				return err
			})
		},
	}
}

// count is the number of items of a paged list, up to its first error.
func count[T any](items iter.Seq2[T, error]) int {
	n := 0
	for _, err := range items {
		if err != nil {
			break
		}
		n++
	}
	return n
}
