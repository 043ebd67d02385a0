package websearch

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuild(t *testing.T) {
	b, _ := Lookup("brave")
	r, err := b.Build("", "k", "a b&c", 50)
	if err != nil {
		t.Fatal(err)
	}
	want := Request{Method: "GET", URL: "https://api.search.brave.com/res/v1/web/search?count=20&q=a+b%26c",
		Header: map[string]string{"Accept": "application/json", "X-Subscription-Token": "k"}}
	if d := cmp.Diff(want, r); d != "" {
		t.Error(d)
	}
	tv, _ := Lookup("tavily")
	r, _ = tv.Build("", "k", "q", 3)
	want = Request{Method: "POST", URL: "https://api.tavily.com/search", Body: []byte(`{"max_results":3,"query":"q"}`),
		Header: map[string]string{"Content-Type": "application/json", "Authorization": "Bearer k"}}
	if d := cmp.Diff(want, r); d != "" {
		t.Error(d)
	}
	if _, ok := Lookup("bing"); ok {
		t.Error("an unknown back-end found")
	}
}

func TestParseAndShow(t *testing.T) {
	b, _ := Lookup("brave")
	if _, err := b.Parse([]byte(`<html>`)); err == nil || !strings.HasPrefix(err.Error(), "brave's answer: ") {
		t.Errorf("Parse of HTML: %v", err)
	}
	rs, err := b.Parse([]byte(`{"web":{"results":[{"title":"A &amp; <b>B</b>","url":"u","description":"x\n  y"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]Result{{"A & B", "u", "x y"}}, rs); d != "" {
		t.Error(d)
	}
	if got := Show("q", nil); got != `No results for "q".` {
		t.Error(got)
	}
	long := Show("q", []Result{{"t", "u", strings.Repeat("é", 300)}})
	if !strings.HasSuffix(long, "…") || strings.Count(long, "é") != 250 {
		t.Errorf("snippet not cut at 500 bytes: %d é", strings.Count(long, "é"))
	}
}

// FromMCP against the shapes MCP search servers answer in.
func TestFromMCP(t *testing.T) {
	goRes := []Result{{Title: "Go", URL: "https://go.dev/", Snippet: "The Go language."}, {Title: "Go 1.26", URL: "https://go.dev/doc/go1.26", Snippet: "Release notes."}}
	for _, tc := range []struct {
		name       string
		structured string
		texts      []string
		want       []Result
	}{
		{"structuredContent", `{"query":"go","results":[{"title":"Go","url":"https://go.dev/","snippet":"The <b>Go</b> language."},{"title":"Go 1.26","url":"https://go.dev/doc/go1.26","description":"Release notes."}]}`,
			[]string{"two results"}, goRes},
		{"a JSON object per text block (Brave's MCP server)", "",
			[]string{`{"url":"https://go.dev/","title":"Go","description":"The Go language."}`, `{"url":"https://go.dev/doc/go1.26","title":"Go 1.26","description":"Release notes."}`}, goRes},
		{"JSON text with a list", "", []string{`{"results":[{"title":"Go","url":"https://go.dev/","text":"The Go language."},{"title":"Go 1.26","url":"https://go.dev/doc/go1.26","highlights":["Release notes."]}]}`}, goRes},
		{"labelled blocks (Tavily's MCP server)", "",
			[]string{"Detailed Results:\n\nTitle: Go\nURL: https://go.dev/\nContent: The Go\nlanguage.\n\nTitle: Go 1.26\nURL: https://go.dev/doc/go1.26\nContent: Release notes.\n"},
			[]Result{{Title: "Go", URL: "https://go.dev/", Snippet: "The Go language."}, {Title: "Go 1.26", URL: "https://go.dev/doc/go1.26", Snippet: "Release notes."}}},
		{"numbered items with labels (DuckDuckGo's MCP server)", "",
			[]string{"Found 2 search results:\n\n1. Go\n   URL: https://go.dev/\n   Summary: The Go language.\n\n2. Go 1.26\n   URL: https://go.dev/doc/go1.26\n   Summary: Release notes.\n"}, goRes},
		{"web_search's own text (agent-mcp serve)", "",
			[]string{"Results for \"go\":\n\n1. Go\n   https://go.dev/\n   The Go language.\n\n2. Go 1.26\n   https://go.dev/doc/go1.26\n   Release notes."}, goRes},
		{"markdown links", "",
			[]string{"## Results\n\n- [Go](https://go.dev/): The Go language.\n- **[Go 1.26](https://go.dev/doc/go1.26)** — Release notes."}, goRes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := FromMCP([]byte(tc.structured), tc.texts)
			if !ok {
				t.Fatal("no results")
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Error(d)
			}
		})
	}
	if rs, ok := FromMCP(nil, []string{"No results found for that query."}); ok {
		t.Errorf("results from a text without links: %+v", rs)
	}
}

func TestPickTool(t *testing.T) {
	q := json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"max_results":{"type":"integer"}},"required":["query"]}`)
	term := json.RawMessage(`{"type":"object","properties":{"term":{"type":"string"}},"required":["term"]}`)
	other := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	tools := []MCPTool{{"read_file", other}, {"brave_web_search", q}, {"brave_local_search", q}, {"search_files", other}}
	if _, err := PickTool(tools, "brave", ""); err == nil || err.Error() != `MCP server "brave" offers several search tools (brave_web_search, brave_local_search): name one as brave/TOOL` {
		t.Errorf("ambiguous: %v", err)
	}
	got, err := PickTool(tools, "brave", "brave_web_search")
	if err != nil || string(got.Args("go", 3)) != `{"max_results":3,"query":"go"}` {
		t.Errorf("named: %v %s", err, got.Args("go", 3))
	}
	got, err = PickTool([]MCPTool{{"read_file", other}, {"search", term}}, "ddg", "")
	if err != nil || string(got.Args("go", 3)) != `{"term":"go"}` {
		t.Errorf("found: %v %+v", err, got)
	}
	if _, err := PickTool([]MCPTool{{"list", json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}}, "x", "list"); err == nil || !strings.Contains(err.Error(), "has no query argument") {
		t.Errorf("no query: %v", err)
	}
	if _, err := PickTool([]MCPTool{{"read_file", other}}, "fs", ""); err == nil || !strings.Contains(err.Error(), "offers no search tool") {
		t.Errorf("none: %v", err)
	}
	for _, s := range []string{"", "/t", "a/b/c"} {
		if _, _, err := MCPTarget(s); err == nil {
			t.Errorf("MCPTarget(%q) accepted", s)
		}
	}
	if s, tl, err := MCPTarget("brave/brave_web_search"); s != "brave" || tl != "brave_web_search" || err != nil {
		t.Errorf("MCPTarget: %q %q %v", s, tl, err)
	}
}
