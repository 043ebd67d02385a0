package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/mcpauth"
	"github.com/agentutils/agentutils/internal/mcpbridge"
	"github.com/agentutils/agentutils/internal/mcpclient"
	"github.com/agentutils/agentutils/internal/mcpdiscover"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcpconfig"
	"github.com/agentutils/agentutils/lib/mcptool"
)

// listTools pages through tools/list within the connect timeout.
func (s *session) listTools(ctx context.Context) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	err := s.Request(ctx, fmt.Sprintf("tools/list of %q", s.Entry.Name), func(lctx context.Context, cs *mcp.ClientSession) error {
		tools = nil
		if ir := cs.InitializeResult(); ir != nil && ir.Capabilities != nil && ir.Capabilities.Tools == nil {
			return nil
		}
		for t, err := range cs.Tools(lctx, nil) {
			if err != nil {
				return err
			}
			tools = append(tools, t)
		}
		return nil
	})
	if err == nil {
		s.r.toolCache().Write(s.Entry, tools)
	}
	return tools, err
}

// serverStatus is one line of `list --json`.
type serverStatus struct {
	Server          string   `json:"server"`
	Status          string   `json:"status"` // connected | failed
	ProtocolVersion string   `json:"protocolVersion,omitempty"`
	ServerInfo      any      `json:"serverInfo,omitempty"`
	Tools           []string `json:"tools"`
	Cached          bool     `json:"cached,omitempty"`
	Error           string   `json:"error,omitempty"`
	Kind            string   `json:"kind,omitempty"`
	AuthRequired    bool     `json:"auth_required,omitempty"`
}

func listCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "connect to servers and show their status and tool names",
		ArgsUsage: "[SERVER…]",
		Description: "Connects to every enabled server (or the ones named), in parallel, and prints one line per server. " +
			"A server with icons gets a line under it naming its first icon (never fetched). " +
			"Exit status 1 when any server failed, 4 when every failed server wants authentication (HTTP 401/403).\n\n" +
			"Examples:\n\n    agent-mcp list\n    agent-mcp list --json github | jq .tools\n    agent-mcp list --cached",
		Flags: connectFlags(
			&cli.BoolFlag{Name: "json", Usage: "one JSON object per server"},
			&cli.BoolFlag{Name: "cached", Usage: "answer from the tool cache where it has an entry, without connecting"},
		),
		Action: func(c *cli.Context) error {
			r, es, err := selectedServers(c, env)
			if err != nil {
				return err
			}
			if len(es) == 0 {
				noServers(c)
			}
			statuses := make([]serverStatus, len(es))
			var wg sync.WaitGroup
			for i, e := range es {
				wg.Add(1)
				go func() {
					defer wg.Done()
					statuses[i] = r.status(c.Context, e, c.Bool("cached"))
				}()
			}
			wg.Wait()
			failed, auth := 0, 0
			tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
			for _, st := range statuses {
				if st.Status != "connected" {
					failed++
					if st.AuthRequired {
						auth++
					}
				}
				if c.Bool("json") {
					if err := writeJSON(r, st); err != nil {
						return err
					}
					continue
				}
				if st.Status == "connected" {
					note := ""
					if st.Cached {
						note = " (cached)"
					}
					fmt.Fprintf(tw, "%s\tconnected%s\t%d tools\t%s\n", st.Server, note, len(st.Tools), strings.Join(st.Tools, " "))
					if ic := iconLine(st.ServerInfo); ic != "" {
						fmt.Fprintf(tw, "\t\t\t%s\n", ic)
					}
				} else {
					fmt.Fprintf(tw, "%s\tfailed\t\t%s\n", st.Server, st.Error)
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if c.Context.Err() != nil {
				return exit.Wrap(exit.Interrupted, c.Context.Err())
			}
			if failed > 0 && auth == failed {
				return exit.Silent(exit.Auth)
			}
			if failed > 0 {
				return exit.Silent(exit.Failure)
			}
			return nil
		},
	}
}

func (r *runner) status(ctx context.Context, e mcpconfig.Entry, cached bool) serverStatus {
	st := serverStatus{Server: e.Name, Tools: []string{}}
	if cached {
		if tools, ok := r.readToolCache(e); ok {
			st.Status, st.Cached = "connected", true
			for _, t := range tools {
				st.Tools = append(st.Tools, t.Name)
			}
			return st
		}
	}
	s, err := r.open(ctx, e, nil)
	if err == nil {
		defer s.Close()
		var tools []*mcp.Tool
		tools, err = s.listTools(ctx)
		ir := s.current().InitializeResult()
		st.ProtocolVersion, st.ServerInfo = ir.ProtocolVersion, ir.ServerInfo
		for _, t := range tools {
			if mcptool.Allowed(e.Server.IncludeTools, e.Server.ExcludeTools, t.Name) {
				st.Tools = append(st.Tools, t.Name)
			}
		}
	}
	if err != nil {
		st.Status, st.Error = "failed", err.Error()
		st.Kind = "connection"
		var ce *mcpclient.ConnErr
		if errors.As(err, &ce) {
			st.Kind = ce.Kind
		}
		st.AuthRequired = st.Kind == "auth_required"
		app.Warnf(r.c, "%s", err)
		return st
	}
	st.Status = "connected"
	return st
}

// printTools prints the allowed tools of e: JSON lines with --json, else
// table rows on tw.
func printTools(r *runner, tw io.Writer, c *cli.Context, e mcpconfig.Entry, tools []*mcp.Tool) error {
	for _, t := range tools {
		if !mcptool.Allowed(e.Server.IncludeTools, e.Server.ExcludeTools, t.Name) {
			continue
		}
		d, err := mcpbridge.AgentTool(c.String("naming"), e.Name, t, false)
		if err != nil {
			return err
		}
		if c.String("names") == "raw" {
			d.Name = t.Name
		}
		if c.Bool("json") {
			if err := writeJSON(r, d); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\n", d.Name, firstLine(d.Description))
	}
	return nil
}

func toolsCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:      "tools",
		Usage:     "show the full tool definitions of servers",
		ArgsUsage: "[SERVER…]",
		Description: "Prints the tools of every enabled server (or the ones named): a table for people, or with --json one " +
			"tool per line in agent-tool's tool shape ({name, label, description, parameters, concurrency, nonAbortable}) " +
			"plus x_mcp {server, tool, title, annotations, icons}.\n\n" +
			"Examples:\n\n    agent-mcp tools everything\n    agent-mcp tools --json --names raw github | jq -r .name",
		Flags: connectFlags(
			&cli.BoolFlag{Name: "json", Usage: "one JSON tool definition per line"},
			&cli.StringFlag{Name: "names", Value: "agent", Usage: "agent (the names bridge gives the model) or raw (the MCP name)"},
			&cli.StringFlag{Name: "naming", Value: "default", Usage: "agent name form: default, v12 or v15"},
		),
		Action: func(c *cli.Context) error {
			if n := c.String("names"); n != "agent" && n != "raw" {
				return exit.Errorf(exit.Usage, "--names %q: want agent or raw", n)
			}
			if _, err := mcptool.Name(c.String("naming"), "s", "t"); err != nil {
				return exit.Errorf(exit.Usage, "--naming: %v", err)
			}
			r, es, err := selectedServers(c, env)
			if err != nil {
				return err
			}
			failed := false
			tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
			for _, e := range es {
				s, err := r.open(c.Context, e, nil)
				if err != nil {
					if len(es) == 1 {
						return err
					}
					app.Warnf(c, "%s", err)
					failed = true
					continue
				}
				tools, err := s.listTools(c.Context)
				s.Close()
				if err != nil {
					if len(es) == 1 {
						return err
					}
					app.Warnf(c, "%s: %v", e.Name, err)
					failed = true
					continue
				}
				if err := printTools(r, tw, c, e, tools); err != nil {
					return err
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if failed {
				return exit.Silent(exit.Failure)
			}
			return nil
		},
	}
}

// iconLine is the line `list` shows under a server with icons: the first
// icon's address (a data: URI as its media type and size), its type and
// sizes, and how many more there are. Icons are never fetched.
func iconLine(info any) string {
	impl, _ := info.(*mcp.Implementation)
	if impl == nil || len(impl.Icons) == 0 {
		return ""
	}
	ic := impl.Icons[0]
	src := ic.Source
	if head, data, ok := strings.Cut(src, ","); ok && strings.HasPrefix(head, "data:") {
		src = fmt.Sprintf("%s,… (%d bytes)", head, len(data))
	} else if len(src) > 100 {
		src = src[:97] + "..."
	}
	var attrs []string
	if ic.MIMEType != "" {
		attrs = append(attrs, ic.MIMEType)
	}
	attrs = append(attrs, ic.Sizes...)
	if ic.Theme != "" {
		attrs = append(attrs, string(ic.Theme))
	}
	if n := len(impl.Icons) - 1; n > 0 {
		attrs = append(attrs, fmt.Sprintf("+%d more", n))
	}
	if len(attrs) > 0 {
		src += " (" + strings.Join(attrs, ", ") + ")"
	}
	return "icon: " + src
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}

// toolCache is the cache of servers' tool lists, under $XDG_CACHE_HOME/agentutils/mcp-tools/.
func (r *runner) toolCache() mcpdiscover.ToolCache {
	return mcpdiscover.ToolCache{Dir: filepath.Join(r.dirs.Cache, "mcp-tools"), Now: r.env.Now, FileID: func(name string) string {
		return strings.TrimPrefix(mcpauth.ID(mcpconfig.Entry{Server: mcpconfig.Server{URL: "server:" + name}}), "mcp_oauth_")
	}}
}

func (r *runner) readToolCache(e mcpconfig.Entry) ([]*mcp.Tool, bool) { return r.toolCache().Read(e) }

func cacheCommand(env *cmdEnv) *cli.Command {
	return &cli.Command{
		Name:  "cache",
		Usage: "manage the tool cache",
		Subcommands: []*cli.Command{{
			Name:        "clear",
			Usage:       "delete cached tool lists (of the named servers, or all)",
			ArgsUsage:   "[SERVER…]",
			Description: "Examples:\n\n    agent-mcp cache clear\n    agent-mcp cache clear github",
			Action: func(c *cli.Context) error {
				r := filesRunner(c, env)
				if c.NArg() == 0 {
					return os.RemoveAll(r.toolCache().Dir)
				}
				for _, n := range c.Args().Slice() {
					if err := os.Remove(r.toolCache().File(n)); err != nil && !os.IsNotExist(err) {
						return err
					}
				}
				return nil
			},
		}},
	}
}
