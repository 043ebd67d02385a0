package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentutils/agentutils/lib/exit"
)

// sdkServer401 is the SDK's Streamable HTTP server behind a bearer-token
// check that answers 401 with a WWW-Authenticate challenge.
func sdkServer401(t *testing.T) string {
	s := mcp.NewServer(&mcp.Implementation{Name: "locked", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "in"}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer letmein" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="locked", resource_metadata="https://example.com/.well-known/oauth-protected-resource"`)
			http.Error(w, "token required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestExitCodes runs the bad input of issue 9 and the failure classes
// against real servers (mcptestserver over stdio, the SDK's HTTP server)
// and checks the exact exit status and message of each.
func TestExitCodes(t *testing.T) {
	srv := filepath.Join(testServer(t), "mcptestserver")
	url := sdkServer401(t)
	home := t.TempDir()
	stdio := func(args ...string) string {
		b, _ := json.Marshal(map[string]any{"command": srv, "args": args})
		return string(b)
	}
	cfg := `{"mcpServers":{
		"t":` + stdio() + `,
		"dies":` + stdio("--mode", "exit") + `,
		"garbage":` + stdio("--mode", "garbage") + `,
		"hangs":` + stdio("--mode", "hang") + `,
		"old":` + stdio("--mode", "old") + `,
		"locked":{"url":"` + url + `"},
		"open":{"url":"` + url + `","headers":{"Authorization":"Bearer letmein"}},
		"refused":{"url":"http://127.0.0.1:1/mcp"}}}`
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string // a substring of stderr
		stdout string // a substring of stdout
	}{
		{"ok", []string{"call", "t", "echo", `{"message":"x"}`, "--text"}, exit.OK, "", "x\n"},
		{"unknown server", []string{"call", "tt", "echo"}, exit.Usage, `unknown server "tt" (did you mean t?)`, ""},
		{"unknown tool", []string{"call", "t", "ecoh"}, exit.Usage, `server "t" has no tool "ecoh" (did you mean echo`, ""},
		{"unknown tool, isError answer", []string{"call", "old", "helo"}, exit.Usage, `server "old" has no tool "helo" (did you mean hello`, ""},
		{"invalid JSON", []string{"call", "t", "echo", `{"message":`}, exit.Usage, "ARGS_JSON: invalid JSON: unexpected EOF", ""},
		{"not an object", []string{"call", "t", "echo", `"hi"`}, exit.Usage, "the arguments must be a JSON object, not a string", ""},
		{"two values", []string{"call", "t", "echo", `{} {}`}, exit.Usage, "ARGS_JSON: more than one JSON value", ""},
		{"tool error", []string{"call", "t", "fail"}, exit.Failure, "", `"isError":true`},
		{"exits at once", []string{"call", "dies", "echo"}, exit.Failure, `MCP server "dies": `, ""},
		{"exit reason", []string{"call", "dies", "echo"}, exit.Failure, "(server stderr: fatal: cannot open database)", ""},
		{"dies during the call", []string{"call", "t", "die"}, exit.Failure, `MCP server "t" exited or closed the connection during the call of "die"; not sent again`, ""},
		{"garbage on stdout", []string{"call", "garbage", "echo"}, exit.Failure, `(server stdout, not JSON-RPC: this is not JSON-RPC)`, ""},
		{"never answers", []string{"call", "hangs", "echo", "--timeout", "300ms"}, exit.Timeout, `connection to MCP server "hangs" timed out after 300ms`, ""},
		{"slow tool", []string{"call", "t", "slow", `{"ms":60000}`, "--tool-timeout", "200ms"}, exit.Timeout, `tool "slow" of "t" timed out after 200ms`, ""},
		{"401", []string{"call", "locked", "echo"}, exit.Auth, `MCP server "locked": HTTP 401: token required [WWW-Authenticate: Bearer realm="locked", resource_metadata=`, ""},
		{"401 hint", []string{"call", "locked", "echo"}, exit.Auth, "(run 'agent-mcp auth locked')", ""},
		{"401 list", []string{"list", "--json", "locked"}, exit.Auth, "", `"kind":"auth_required","auth_required":true`},
		{"401 tools", []string{"tools", "locked"}, exit.Auth, "HTTP 401", ""},
		{"401 test", []string{"test", "locked"}, exit.Auth, "HTTP 401", ""},
		{"401 among others", []string{"list", "locked", "dies"}, exit.Failure, "HTTP 401", ""},
		{"with the token", []string{"call", "open", "echo", "--text"}, exit.OK, "", "in\n"},
		{"refused", []string{"call", "refused", "echo"}, exit.Failure, "connection refused", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var errb strings.Builder
			code, out := runIn(t, home, &errb, c.args...)
			if code != c.code || !strings.Contains(errb.String(), c.stderr) || !strings.Contains(out, c.stdout) {
				t.Fatalf("agent-mcp %s: exit %d (want %d)\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), code, c.code, out, errb.String())
			}
		})
	}
}
