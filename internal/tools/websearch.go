package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/websearch"
)

const (
	searchCount   = 5
	searchTimeout = 30 * time.Second
	searchMaxBody = 4 << 20
)

func webSearchTool() Tool {
	return Tool{
		Def: def("web_search", "Search the web: the results' titles, URLs and snippets (fetch a URL to read the page). Through the search back-end configured for this tool process (an MCP server's search tool, Brave Search with $BRAVE_API_KEY, Tavily with $TAVILY_API_KEY).",
			`{"type":"object","properties":{"query":{"type":"string"},"count":{"type":"integer","minimum":1,"maximum":20,"description":"how many results (default 5)"}},"required":["query"],"additionalProperties":false}`),
		Run: runWebSearch,
	}
}

// viaMCP says whether env searches through an MCP server: the mcp
// back-end is named, or none is and one is configured.
func (e *Env) viaMCP() bool {
	return e.SearchBackend == websearch.MCP || e.SearchBackend == "" && e.SearchMCP != ""
}

// backend is the HTTP search back-end of env: the one named, else the
// first whose key is set.
func (e *Env) backend() (websearch.Backend, string, error) {
	if e.SearchBackend != "" {
		b, ok := websearch.Lookup(e.SearchBackend)
		if !ok {
			return b, "", fmt.Errorf("unknown search back-end %q (back-ends: %s)", e.SearchBackend, strings.Join(backendNames(), ", "))
		}
		key := e.Getenv(b.KeyEnv)
		if key == "" {
			return b, "", fmt.Errorf("The %s search back-end needs $%s, and it is not set in this tool process.", b.Name, b.KeyEnv)
		}
		return b, key, nil
	}
	var envs []string
	for _, b := range websearch.Backends {
		if key := e.Getenv(b.KeyEnv); key != "" {
			return b, key, nil
		}
		envs = append(envs, "$"+b.KeyEnv)
	}
	return websearch.Backend{}, "", fmt.Errorf("No search back-end is configured: web search needs one of %s in the tool process's environment, or an MCP server's search tool (config.toml's web_search.mcp) (say so to the user; fetch can still read a URL you know).", strings.Join(envs, ", "))
}

func backendNames() []string {
	out := []string{websearch.MCP}
	for _, b := range websearch.Backends {
		out = append(out, b.Name)
	}
	return out
}

func runWebSearch(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
	var a struct {
		Query string
		Count int
	}
	if err := decode(args, &a); err != nil {
		return event.ToolOutput{}, err
	}
	if a.Query = strings.TrimSpace(a.Query); a.Query == "" {
		return event.ToolOutput{}, fmt.Errorf("query must not be empty")
	}
	if a.Count <= 0 {
		a.Count = searchCount
	}
	if env.viaMCP() {
		if env.SearchMCP == "" {
			return event.ToolOutput{}, fmt.Errorf("The mcp search back-end needs a server: config.toml's web_search.mcp (or agent-tool --search-mcp) is not set.")
		}
		return mcpSearchRun(ctx, env, a.Query, a.Count)
	}
	b, key, err := env.backend()
	if err != nil {
		return event.ToolOutput{}, err
	}
	req, err := b.Build(env.SearchEndpoint, key, a.Query, a.Count)
	if err != nil {
		return event.ToolOutput{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return event.ToolOutput{}, fmt.Errorf("Cannot search with %s: %v", b.Name, err)
	}
	for k, v := range req.Header {
		hr.Header.Set(k, v)
	}
	hr.Header.Set("User-Agent", "agentutils-web-search/1")
	resp, err := fetchClient(env.AllowPrivateNet).Do(hr)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return event.ToolOutput{}, fmt.Errorf("Searching with %s timed out after %s.", b.Name, searchTimeout)
		}
		return event.ToolOutput{}, fmt.Errorf("Cannot search with %s: %v", b.Name, unwrapURL(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, searchMaxBody))
	if err != nil {
		return event.ToolOutput{}, fmt.Errorf("Cannot read %s's answer: %v", b.Name, unwrapURL(err))
	}
	if resp.StatusCode >= 400 {
		return event.ToolOutput{}, fmt.Errorf("Searching with %s: HTTP %s.\n\n%s", b.Name, resp.Status, headOf(string(body), 2000))
	}
	rs, err := b.Parse(body)
	if err != nil {
		return event.ToolOutput{}, err
	}
	if len(rs) > a.Count {
		rs = rs[:a.Count]
	}
	return event.ToolOutput{Content: []event.Content{event.Text(websearch.Show(a.Query, rs))},
		Details: details(map[string]any{"backend": b.Name, "results": rs})}, nil
}
