package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentutils/agentutils/lib/exit"
)

// recordedServer writes a configuration with the server "t", mcptestserver
// over stdio with env, and returns the home directory.
func recordedServer(t *testing.T, env map[string]string) string {
	t.Helper()
	home := t.TempDir()
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"t": map[string]any{"command": filepath.Join(testServer(t), "mcptestserver"), "env": env}}})
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// TestToolTimeoutCancels: a call that runs out of --tool-timeout sends
// notifications/cancelled with the request's id and a reason before the
// connection closes, and exits 124. The server records every line it reads.
func TestToolTimeoutCancels(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "received.jsonl")
	home := recordedServer(t, map[string]string{"MCPTEST_RECORD": rec})
	var errb strings.Builder
	code, _ := runIn(t, home, &errb, "call", "t", "slow", `{"ms":60000}`, "--tool-timeout", "200ms")
	if code != exit.Timeout || !strings.Contains(errb.String(), `tool "slow" of "t" timed out after 200ms`) {
		t.Fatalf("exit %d (want %d): %s", code, exit.Timeout, errb.String())
	}
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	var callID json.RawMessage
	var cancelled *struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		switch m.Method {
		case "tools/call":
			callID = m.ID
		case "notifications/cancelled":
			if err := json.Unmarshal(m.Params, &cancelled); err != nil {
				t.Fatal(err)
			}
		}
	}
	if callID == nil || cancelled == nil || string(cancelled.RequestID) != string(callID) || cancelled.Reason == "" {
		t.Fatalf("want notifications/cancelled with the requestId of tools/call (%s) and a reason; the server read:\n%s", callID, data)
	}
}

// TestCrashNoResend: a server that exits during a call is not sent the
// call again unless the tool says so (idempotentHint: true, destructiveHint:
// false; MCPTEST_DIE_IDEMPOTENT); the crash is an error with exit 1.
func TestCrashNoResend(t *testing.T) {
	once := filepath.Join(t.TempDir(), "died")
	rec := filepath.Join(t.TempDir(), "received.jsonl")
	home := recordedServer(t, map[string]string{"MCPTEST_DIE_ONCE": once, "MCPTEST_RECORD": rec})
	var errb strings.Builder
	code, out := runIn(t, home, &errb, "call", "t", "die", "--text")
	want := `MCP server "t" exited or closed the connection during the call of "die"; not sent again: the call may have run and the tool is not marked idempotent`
	if code != exit.Failure || out != "" || !strings.Contains(errb.String(), want) {
		t.Fatalf("die: exit %d, stdout %q, stderr:\n%s\nwant exit 1 and %q", code, out, errb.String(), want)
	}
	if data, _ := os.ReadFile(rec); strings.Contains(string(data), `"tools/call"`) {
		t.Fatalf("the call was sent again after the crash:\n%s", data) // rec holds the last server's input
	}
	os.Remove(once)
	home = recordedServer(t, map[string]string{"MCPTEST_DIE_ONCE": once, "MCPTEST_DIE_IDEMPOTENT": "1"})
	errb.Reset()
	code, out = runIn(t, home, &errb, "call", "t", "die", "--text")
	if code != 0 || out != "survived\n" || !strings.Contains(errb.String(), "reconnecting") {
		t.Fatalf("die, idempotent: exit %d, stdout %q, stderr:\n%s", code, out, errb.String())
	}
}

func TestCallOptionsOf(t *testing.T) {
	cases := []struct {
		args      []string
		text, raw bool
		stdin     string
		want      callOptions
		err       string
	}{
		{args: []string{"s", "t"}, want: callOptions{server: "s", tool: "t", args: json.RawMessage("{}")}},
		{args: []string{"s", "t", `{"a":1}`}, text: true, want: callOptions{server: "s", tool: "t", args: json.RawMessage(`{"a":1}`), text: true}},
		{args: []string{"s", "t", "-"}, raw: true, stdin: ` {"b":2} `, want: callOptions{server: "s", tool: "t", args: json.RawMessage(`{"b":2}`), raw: true}},
		{args: []string{"s"}, err: "call: want SERVER TOOL [ARGS_JSON|-]"},
		{args: []string{"s", "t", "{}", "x"}, err: "call: want SERVER TOOL [ARGS_JSON|-]"},
		{args: []string{"s", "t"}, text: true, raw: true, err: "--text and --raw exclude each other"},
		{args: []string{"s", "t", "[1]"}, err: "ARGS_JSON: the arguments must be a JSON object, not an array"},
	}
	for _, c := range cases {
		got, err := callOptionsOf(c.args, c.text, c.raw, strings.NewReader(c.stdin))
		if c.err != "" {
			if err == nil || err.Error() != c.err || exit.Code(err) != exit.Usage {
				t.Errorf("%q: error %v, want %q (exit 2)", c.args, err, c.err)
			}
			continue
		}
		if err != nil || got.server != c.want.server || got.tool != c.want.tool || string(got.args) != string(c.want.args) || got.text != c.want.text || got.raw != c.want.raw {
			t.Errorf("%q: %+v, %v; want %+v", c.args, got, err, c.want)
		}
	}
}

func TestTemplateMatch(t *testing.T) {
	cases := []struct {
		tmpl, uri string
		want      bool
	}{
		{"demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/text/1", true},
		{"demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/blob/1", false},
		{"demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/text/1/2", false},
		{"file://{+path}", "file:///etc/hostname", true},
		{"repo://{owner}/{name}/issues", "repo://a/b/issues", true},
		{"a.b://{x}", "aXb://1", false},
	}
	for _, c := range cases {
		if got := templateMatch(c.tmpl, c.uri); got != c.want {
			t.Errorf("templateMatch(%q, %q) = %v", c.tmpl, c.uri, got)
		}
	}
}

func TestAddServer(t *testing.T) {
	cases := []struct {
		args []string
		f    addFlags
		want string // the server as JSON, or the error
	}{
		{[]string{"ev", "--", "npx", "-y", "pkg"}, addFlags{transport: "http"}, `{"type":"stdio","command":"npx","args":["-y","pkg"]}`},
		{[]string{"fs", "mcp-fs", "/srv"}, addFlags{transport: "http", env: []string{"ROOT=/srv"}, cwd: "/tmp", timeout: 5000},
			`{"type":"stdio","command":"mcp-fs","args":["/srv"],"env":{"ROOT":"/srv"},"cwd":"/tmp","timeout":5000}`},
		{[]string{"l"}, addFlags{url: "mcp.linear.app/mcp", transport: "http"}, `{"type":"http","url":"https://mcp.linear.app/mcp"}`},
		{[]string{"api"}, addFlags{url: "https://h.example/mcp", transport: "sse", headers: []string{"X-Team: a"}, token: "t"},
			`{"type":"sse","url":"https://h.example/mcp","headers":{"Authorization":"Bearer t","X-Team":"a"}}`},
		{nil, addFlags{}, "add: want NAME and --url URL or -- COMMAND"},
		{[]string{"x"}, addFlags{transport: "http"}, "add: want --url URL or -- COMMAND [ARG…]"},
		{[]string{"x", "cmd"}, addFlags{url: "h", transport: "http"}, "add: give --url or a command, not both"},
		{[]string{"x", "cmd"}, addFlags{transport: "http", httpOnlySet: true}, "add: --header, --token and --transport need --url"},
		{[]string{"x"}, addFlags{url: "h", transport: "ws"}, `--transport "ws": want http or sse`},
		{[]string{"x"}, addFlags{url: "h", transport: "http", headers: []string{"nocolon"}}, `--header "nocolon": want 'K: V'`},
		{[]string{"x", "cmd"}, addFlags{transport: "http", env: []string{"=v"}}, `--env "=v": want K=V`},
	}
	for _, c := range cases {
		_, s, err := addServer(c.args, c.f)
		got := ""
		if err != nil {
			got = err.Error()
			if exit.Code(err) != exit.Usage {
				t.Errorf("%q: exit %d", c.args, exit.Code(err))
			}
		} else {
			b, _ := json.Marshal(s)
			got = string(b)
		}
		if got != c.want {
			t.Errorf("%q %+v:\n got %s\nwant %s", c.args, c.f, got, c.want)
		}
	}
}

// TestToolTimeoutCancelsHTTP: the same over Streamable HTTP; the server
// (the SDK's, in-process) records the notifications/cancelled it is POSTed.
func TestToolTimeoutCancelsHTTP(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	release := make(chan struct{}) // ends the call when no cancel came
	s.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-ctx.Done():
			case <-release:
			}
			return nil, ctx.Err()
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	var mu sync.Mutex
	var cancels []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"notifications/cancelled"`) {
			mu.Lock()
			cancels = append(cancels, string(body))
			mu.Unlock()
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	defer close(release)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), []byte(`{"mcpServers":{"h":{"url":"`+srv.URL+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	code, _ := runIn(t, home, &errb, "call", "h", "slow", "--tool-timeout", "200ms")
	if code != exit.Timeout {
		t.Fatalf("exit %d (want %d): %s", code, exit.Timeout, errb.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(cancels) != 1 || !strings.Contains(cancels[0], `"requestId"`) || !strings.Contains(cancels[0], `"reason"`) {
		t.Fatalf("notifications/cancelled POSTed: %q", cancels)
	}
}
