// Package websearch is the pure part of the web_search tool's back-ends:
// each documented search API's request (from a query, a count and the
// key) and how its answer becomes results of title, URL and snippet; for
// the MCP back-end, which of a server's tools to call, with what
// arguments, and how its answer becomes results. The tool
// (internal/tools) sends the requests.
package websearch

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Result is one hit.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// Request is an HTTP request to send.
type Request struct {
	Method, URL string
	Header      map[string]string
	Body        []byte
}

// Backend is one search API.
type Backend struct {
	Name     string // brave, tavily
	KeyEnv   string // the variable holding the key
	Endpoint string // the API's URL
	build    func(endpoint, key, query string, count int) (Request, error)
	parse    func(body []byte) ([]Result, error)
}

// Build is the request for query, asking for count results.
func (b Backend) Build(endpoint, key, query string, count int) (Request, error) {
	if endpoint == "" {
		endpoint = b.Endpoint
	}
	return b.build(endpoint, key, query, count)
}

// Parse reads the API's answer.
func (b Backend) Parse(body []byte) ([]Result, error) {
	rs, err := b.parse(body)
	if err != nil {
		return nil, fmt.Errorf("%s's answer: %v", b.Name, err)
	}
	for i := range rs {
		rs[i].Title = clean(rs[i].Title)
		rs[i].Snippet = clean(rs[i].Snippet)
	}
	return rs, nil
}

// Backends are the HTTP back-ends, in the order they are tried when none
// is named: the first whose key is set.
var Backends = []Backend{
	{Name: "brave", KeyEnv: "BRAVE_API_KEY", Endpoint: "https://api.search.brave.com/res/v1/web/search", build: braveRequest, parse: braveParse},
	{Name: "tavily", KeyEnv: "TAVILY_API_KEY", Endpoint: "https://api.tavily.com/search", build: tavilyRequest, parse: tavilyParse},
}

// Lookup is the back-end called name.
func Lookup(name string) (Backend, bool) {
	for _, b := range Backends {
		if b.Name == name {
			return b, true
		}
	}
	return Backend{}, false
}

// Brave Search: GET with q and count (at most 20), the key in
// X-Subscription-Token; the hits are web.results[] {title, url,
// description}, the description with <strong> marks.
func braveRequest(endpoint, key, query string, count int) (Request, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return Request{}, err
	}
	q := u.Query()
	q.Set("q", query)
	q.Set("count", strconv.Itoa(min(count, 20)))
	u.RawQuery = q.Encode()
	return Request{Method: "GET", URL: u.String(), Header: map[string]string{"Accept": "application/json", "X-Subscription-Token": key}}, nil
}

func braveParse(body []byte) ([]Result, error) {
	var r struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(r.Web.Results))
	for _, h := range r.Web.Results {
		out = append(out, Result{Title: h.Title, URL: h.URL, Snippet: h.Description})
	}
	return out, nil
}

// Tavily: POST a JSON body {query, max_results} (at most 20), the key as
// a bearer token; the hits are results[] {title, url, content}.
func tavilyRequest(endpoint, key, query string, count int) (Request, error) {
	body, err := json.Marshal(map[string]any{"query": query, "max_results": min(count, 20)})
	if err != nil {
		return Request{}, err
	}
	return Request{Method: "POST", URL: endpoint, Body: body,
		Header: map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + key}}, nil
}

func tavilyParse(body []byte) ([]Result, error) {
	var r struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(r.Results))
	for _, h := range r.Results {
		out = append(out, Result{Title: h.Title, URL: h.URL, Snippet: h.Content})
	}
	return out, nil
}

var tag = regexp.MustCompile(`<[^>]*>`)

// clean is text without HTML tags and entities, on one line.
func clean(s string) string {
	s = html.UnescapeString(tag.ReplaceAllString(s, ""))
	return strings.Join(strings.Fields(s), " ")
}

// Show is the results as the model reads them: a numbered title, the URL
// and the snippet (at most 500 bytes) of each.
func Show(query string, rs []Result) string {
	if len(rs) == 0 {
		return fmt.Sprintf("No results for %q.", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Results for %q:\n", query)
	for i, r := range rs {
		fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, r.Title, r.URL)
		if s := cut(r.Snippet, 500); s != "" {
			fmt.Fprintf(&b, "   %s\n", s)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
