package tools

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// web_search against local servers that answer as Brave Search and
// Tavily document: the request each gets (the key where the API wants
// it) and the results the model reads.
func TestWebSearch(t *testing.T) {
	var got []string // what the servers were asked
	mux := http.NewServeMux()
	mux.HandleFunc("GET /brave", func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "brave q="+r.URL.Query().Get("q")+" count="+r.URL.Query().Get("count")+" token="+r.Header.Get("X-Subscription-Token"))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":"search","web":{"results":[{"title":"Go <strong>1.26</strong> notes","url":"https://go.dev/doc/go1.26","description":"The <strong>latest</strong> Go release &amp; its notes."},{"title":"Second","url":"https://example.com/2","description":""}]}}`)
	})
	mux.HandleFunc("POST /tavily", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, "tavily "+string(b)+" auth="+r.Header.Get("Authorization"))
		io.WriteString(w, `{"query":"q","results":[{"title":"T1","url":"https://a.example/1","content":"first hit","score":0.9}]}`)
	})
	mux.HandleFunc("/denied", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"invalid key"}`, http.StatusUnauthorized)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	keys := map[string]string{"BRAVE_API_KEY": "bk", "TAVILY_API_KEY": "tk"}
	env := func(backend, path string, keys map[string]string) *Env {
		return &Env{Cwd: t.TempDir(), Now: time.Now, Getenv: func(k string) string { return keys[k] }, AllowPrivateNet: true,
			SearchBackend: backend, SearchEndpoint: srv.URL + path}
	}
	for _, tc := range []struct {
		name  string
		env   *Env
		args  string
		isErr bool
		want  string
		asked string
	}{
		{"brave", env("", "/brave", keys), `{"query":"go release notes","count":3}`, false,
			"Results for \"go release notes\":\n\n1. Go 1.26 notes\n   https://go.dev/doc/go1.26\n   The latest Go release & its notes.\n\n2. Second\n   https://example.com/2",
			"brave q=go release notes count=3 token=bk"},
		{"tavily by name", env("tavily", "/tavily", keys), `{"query":"q"}`, false,
			"Results for \"q\":\n\n1. T1\n   https://a.example/1\n   first hit", `tavily {"max_results":5,"query":"q"} auth=Bearer tk`},
		{"tavily when only its key is set", env("", "/tavily", map[string]string{"TAVILY_API_KEY": "tk"}), `{"query":"q","count":1}`, false,
			"Results for \"q\":\n\n1. T1\n   https://a.example/1\n   first hit", `tavily {"max_results":1,"query":"q"} auth=Bearer tk`},
		{"no key", env("", "/brave", nil), `{"query":"q"}`, true,
			"No search back-end is configured: web search needs one of $BRAVE_API_KEY, $TAVILY_API_KEY in the tool process's environment, or an MCP server's search tool (config.toml's web_search.mcp) (say so to the user; fetch can still read a URL you know).", ""},
		{"named back-end without its key", env("brave", "/brave", map[string]string{"TAVILY_API_KEY": "tk"}), `{"query":"q"}`, true,
			"The brave search back-end needs $BRAVE_API_KEY, and it is not set in this tool process.", ""},
		{"refused", env("", "/denied", keys), `{"query":"q"}`, true, "Searching with brave: HTTP 401 Unauthorized.\n\n{\"error\":\"invalid key\"}\n", ""},
		{"empty query", env("", "/brave", keys), `{"query":" "}`, true, "query must not be empty", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got = nil
			r := Run(context.Background(), []Tool{webSearchTool()}, tc.env, "web_search", json.RawMessage(tc.args), nil)
			if r.IsError != tc.isErr {
				t.Errorf("isError %v: %+v", r.IsError, r)
			}
			if d := cmp.Diff(tc.want, r.Content[0].Text); d != "" {
				t.Error(d)
			}
			if tc.asked != "" && (len(got) != 1 || got[0] != tc.asked) {
				t.Errorf("asked %q, want %q", got, tc.asked)
			}
		})
	}
	// Without the private network allowed, the loopback is refused as fetch refuses it.
	e := env("", "/brave", keys)
	e.AllowPrivateNet = false
	r := Run(context.Background(), []Tool{webSearchTool()}, e, "web_search", json.RawMessage(`{"query":"q"}`), nil)
	if !r.IsError || !strings.Contains(r.Content[0].Text, "is a private or loopback address") {
		t.Errorf("loopback not refused: %+v", r)
	}
}
