package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentutils/agentutils/internal/credstore"
	"github.com/agentutils/agentutils/internal/mcpauth"
	"github.com/agentutils/agentutils/internal/mcpclient"
	"github.com/agentutils/agentutils/internal/mcpdiscover"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/mcpconfig"
	"github.com/agentutils/agentutils/lib/mcptool"
	"github.com/agentutils/agentutils/lib/websearch"
)

// mcpSearch is web_search's MCP back-end: a connection to the configured
// server, opened on the first search and kept until the tool process
// ends (Env.Close), and the tool it calls.
type mcpSearch struct {
	mu   sync.Mutex
	s    *mcpclient.Session
	tool websearch.MCPTool
}

// searchLoopEnv is set in the MCP search server's environment: an
// agent-tool under it (agent-mcp serve's) that would search through MCP
// too refuses, rather than start servers without end.
const searchLoopEnv = "AGENT_SEARCH_MCP_SERVER"

// mcpConnectTimeout bounds the connection to a server whose entry sets
// no timeout (agent-mcp's default).
const mcpConnectTimeout = 30 * time.Second

// open is the connection and the search tool of env.SearchMCP,
// connecting on the first call.
func (m *mcpSearch) open(ctx context.Context, env *Env) (*mcpclient.Session, websearch.MCPTool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.s != nil {
		return m.s, m.tool, nil
	}
	server, want, err := websearch.MCPTarget(env.SearchMCP)
	if err != nil {
		return nil, m.tool, fmt.Errorf("web_search.mcp %v", err)
	}
	if from := env.Getenv(searchLoopEnv); from != "" {
		return nil, m.tool, fmt.Errorf("this tool process runs under the MCP search server %q (%s is set): searching through MCP again would loop; give its agent-tool --search-backend brave or tavily", from, searchLoopEnv)
	}
	e, err := searchServer(env, server)
	if err != nil {
		return nil, m.tool, err
	}
	d := dirs.Resolve(env.Getenv)
	creds := mcpauth.Store{Store: credstore.Store{File: filepath.Join(d.Data, "credentials.json"), Write: mcpdiscover.WriteFile}}
	environ := env.Environ
	if environ == nil {
		environ = os.Environ
	}
	base := environ
	environ = func() []string { return append(base(), searchLoopEnv+"="+server) }
	dl := &mcpclient.Dialer{Cwd: env.Cwd, Environ: environ, Getenv: env.Getenv, Terminate: 2 * time.Second,
		Warn:           func(string) {},
		ServerStderr:   func(string) (io.Writer, error) { return io.Discard, nil }, // its last line is kept for errors
		ConnectTimeout: func(e mcpconfig.Entry) time.Duration { return timeoutOr(e.Server.Timeout, mcpConnectTimeout) },
		AccessToken:    creds.AccessToken, OAuthHandler: creds.Handler}
	s, err := dl.Open(ctx, e, nil)
	if err != nil {
		return nil, m.tool, err
	}
	var tools []websearch.MCPTool
	err = s.Request(ctx, "the tool list of MCP server "+server, func(ctx context.Context, cs *mcp.ClientSession) error {
		tools = nil
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return err
			}
			schema, _ := json.Marshal(t.InputSchema)
			tools = append(tools, websearch.MCPTool{Name: t.Name, InputSchema: schema})
		}
		return nil
	})
	if err == nil {
		m.tool, err = websearch.PickTool(tools, server, want)
	}
	if err != nil {
		s.Close()
		return nil, m.tool, err
	}
	m.s = s
	return s, m.tool, nil
}

func (m *mcpSearch) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.s != nil {
		m.s.Close()
		m.s = nil
	}
}

func timeoutOr(ms int, d time.Duration) time.Duration {
	if ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return d
}

// searchServer is the configured MCP server named name, found as
// agent-mcp finds its servers (the project's own only when the project
// is trusted: this process asks no one).
func searchServer(env *Env, name string) (mcpconfig.Entry, error) {
	res, _, err := mcpdiscover.Discover(mcpdiscover.Options{Getenv: env.Getenv, Dirs: dirs.Resolve(env.Getenv), Cwd: filepath.Clean(env.Cwd), Warn: func(string) {}})
	if err != nil {
		return mcpconfig.Entry{}, err
	}
	if e, ok := res.Lookup(name); ok {
		if e.Disabled {
			return e, fmt.Errorf("web_search's MCP server %q is disabled (%s): enable it with 'agent-mcp enable %s'", name, e.Path, name)
		}
		return e, nil
	}
	for _, e := range res.SkippedUntrusted {
		if e.Name == name {
			return e, fmt.Errorf("web_search's MCP server %q is configured by the untrusted project %s (%s): trust the project with 'agent-mcp list --trust' first", name, env.Cwd, e.Path)
		}
	}
	var known []string
	for _, e := range res.Servers {
		known = append(known, e.Name)
	}
	return mcpconfig.Entry{}, fmt.Errorf("web_search's MCP server %q is not configured (servers: %s; see agent-mcp add --help)", name, strings.Join(known, ", "))
}

// mcpSearchRun searches through the MCP server's search tool: the
// results it gives, mapped to title, URL and snippet, or its text as it
// is when nothing in it looks like a result.
func mcpSearchRun(ctx context.Context, env *Env, query string, count int) (event.ToolOutput, error) {
	s, tool, err := env.search.open(ctx, env)
	if err != nil {
		return event.ToolOutput{}, fmt.Errorf("Cannot search through MCP: %v", err)
	}
	name := s.Entry.Name + "/" + tool.Name
	ctx, cancel := context.WithTimeout(ctx, timeoutOr(s.Entry.Server.ToolTimeout, searchTimeout))
	defer cancel()
	var raw json.RawMessage
	err = s.Do(ctx, func(cs *mcp.ClientSession) error { // a search may run twice
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: tool.Args(query, count)})
		if err != nil {
			return err
		}
		raw, err = json.Marshal(res)
		return err
	})
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return event.ToolOutput{}, fmt.Errorf("Searching with %s timed out after %s.", name, timeoutOr(s.Entry.Server.ToolTimeout, searchTimeout))
		}
		return event.ToolOutput{}, fmt.Errorf("Cannot search with %s: %v", name, err)
	}
	out, err := mcptool.Convert(s.Entry.Name, tool.Name, raw)
	if err != nil {
		return event.ToolOutput{}, fmt.Errorf("Cannot search with %s: %v", name, err)
	}
	var texts []string
	for _, c := range out.Content {
		if c.Type == "text" {
			texts = append(texts, c.Text)
		}
	}
	if out.IsError {
		return event.ToolOutput{}, fmt.Errorf("Searching with %s: %s", name, headOf(strings.Join(texts, "\n"), 2000))
	}
	rs, ok := websearch.FromMCP(out.Details.StructuredContent, texts)
	if !ok {
		text := strings.TrimSpace(strings.Join(texts, "\n\n"))
		if text == "" {
			return event.ToolOutput{Content: []event.Content{event.Text(websearch.Show(query, nil))},
				Details: details(map[string]any{"backend": websearch.MCP, "mcpTool": name, "results": []websearch.Result{}})}, nil
		}
		return event.ToolOutput{Content: []event.Content{event.Text(fmt.Sprintf("Results for %q from %s, as it gave them:\n\n%s", query, name, headOf(text, 20000)))},
			Details: details(map[string]any{"backend": websearch.MCP, "mcpTool": name})}, nil
	}
	if len(rs) > count {
		rs = rs[:count]
	}
	return event.ToolOutput{Content: []event.Content{event.Text(websearch.Show(query, rs))},
		Details: details(map[string]any{"backend": websearch.MCP, "mcpTool": name, "results": rs})}, nil
}
