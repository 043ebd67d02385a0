package websearch

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// MCP is the name of the back-end that calls an MCP server's search tool.
const MCP = "mcp"

// MCPTarget reads the MCP back-end's setting (config.toml's
// web_search.mcp, agent-tool --search-mcp): "server/tool", or "server"
// alone to use the server's search tool (PickTool).
func MCPTarget(s string) (server, tool string, err error) {
	server, tool, _ = strings.Cut(strings.TrimSpace(s), "/")
	if server == "" || strings.Contains(tool, "/") {
		return "", "", fmt.Errorf("%q: want SERVER/TOOL or SERVER (an MCP server's name as agent-mcp list shows it)", s)
	}
	return server, tool, nil
}

// MCPTool is a tool an MCP server lists: its name and input schema.
type MCPTool struct {
	Name        string
	InputSchema json.RawMessage
}

// queryArgs are the names a search tool's query argument goes by, in the
// order they are looked for.
var queryArgs = []string{"query", "q", "search_query", "searchQuery", "search_term", "term"}

// countArgs are the names of the argument that asks for a number of
// results.
var countArgs = []string{"count", "max_results", "maxResults", "num_results", "numResults", "limit", "n"}

type schema struct {
	Properties map[string]struct {
		Type any `json:"type"`
	} `json:"properties"`
	Required []string `json:"required"`
}

func (t MCPTool) schema() schema {
	var s schema
	_ = json.Unmarshal(t.InputSchema, &s)
	return s
}

// queryArg is the name of t's string argument for the query: one of
// queryArgs, else (unless strict) its only required argument when that is
// a string; "" when none.
func (t MCPTool) queryArg(strict bool) string {
	s := t.schema()
	for _, n := range queryArgs {
		if p, ok := s.Properties[n]; ok && typed(p.Type, "string") {
			return n
		}
	}
	if strict {
		return ""
	}
	var req []string
	for _, n := range s.Required {
		if p, ok := s.Properties[n]; ok && typed(p.Type, "string") {
			req = append(req, n)
		}
	}
	if len(req) == 1 && len(s.Required) == 1 {
		return req[0]
	}
	return ""
}

// typed says whether a JSON schema's type (a name or a list) allows want.
func typed(t any, want string) bool {
	switch v := t.(type) {
	case string:
		return v == want
	case []any:
		for _, x := range v {
			if x == want {
				return true
			}
		}
	case nil:
		return want == "string" // untyped: anything goes
	}
	return false
}

// PickTool is the tool of tools that web_search calls: the one named
// want, else the one search tool: a name holding "search" and a string
// argument named as queryArgs are, "web_search" or "search" winning over
// the others.
func PickTool(tools []MCPTool, server, want string) (MCPTool, error) {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	if want != "" {
		for _, t := range tools {
			if t.Name == want {
				if t.queryArg(false) == "" {
					return t, fmt.Errorf("MCP tool %s/%s has no query argument (a string named query or q, or its only required string)", server, want)
				}
				return t, nil
			}
		}
		return MCPTool{}, fmt.Errorf("MCP server %q has no tool %q (tools: %s)", server, want, strings.Join(names, ", "))
	}
	var found []MCPTool
	for _, t := range tools {
		if strings.Contains(strings.ToLower(t.Name), "search") && t.queryArg(true) != "" {
			found = append(found, t)
		}
	}
	for _, pref := range []string{"web_search", "search"} {
		for _, t := range found {
			if strings.EqualFold(t.Name, pref) {
				return t, nil
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return MCPTool{}, fmt.Errorf("MCP server %q offers no search tool (a tool named like *search* with a query argument; tools: %s): name one as %s/TOOL", server, strings.Join(names, ", "), server)
	}
	var fn []string
	for _, t := range found {
		fn = append(fn, t.Name)
	}
	return MCPTool{}, fmt.Errorf("MCP server %q offers several search tools (%s): name one as %s/TOOL", server, strings.Join(fn, ", "), server)
}

// Args are the arguments of a call of t for query: the query under the
// tool's name for it, and count under its name for a number of results
// when it has one.
func (t MCPTool) Args(query string, count int) json.RawMessage {
	a := map[string]any{t.queryArg(false): query}
	s := t.schema()
	for _, n := range countArgs {
		if p, ok := s.Properties[n]; ok && (typed(p.Type, "integer") || typed(p.Type, "number")) {
			a[n] = count
			break
		}
	}
	b, _ := json.Marshal(a)
	return b
}

// FromMCP reads the results out of an MCP search tool's answer: its
// structuredContent when that holds results, else its text blocks (JSON,
// "Title: … URL: …" blocks, or a numbered or bulleted list of links).
// ok is false when nothing in the answer looks like a result with a URL.
func FromMCP(structured json.RawMessage, texts []string) (rs []Result, ok bool) {
	if len(structured) > 0 {
		var v any
		if json.Unmarshal(structured, &v) == nil {
			if rs := fromValue(v); len(rs) > 0 {
				return tidy(rs), true
			}
		}
	}
	for _, t := range texts {
		rs = append(rs, fromText(t)...)
	}
	return tidy(rs), len(rs) > 0
}

// tidy cleans the titles and snippets and gives a result without a title
// its URL as title.
func tidy(rs []Result) []Result {
	for i := range rs {
		rs[i].Title = clean(rs[i].Title)
		rs[i].Snippet = clean(rs[i].Snippet)
		if rs[i].Title == "" {
			rs[i].Title = rs[i].URL
		}
	}
	return rs
}

var (
	urlKeys     = []string{"url", "link", "href", "uri", "source_url", "sourceUrl"}
	titleKeys   = []string{"title", "name", "heading"}
	snippetKeys = []string{"snippet", "description", "content", "text", "summary", "body", "highlights", "extra_snippets"}
	// listKeys hold the hits in the answers of the common search APIs,
	// looked into first.
	listKeys = []string{"results", "web", "items", "organic", "organic_results", "data", "hits", "documents", "sources"}
)

// fromValue finds the results in a decoded JSON value: an object with a
// URL is one, an array holds them, and an object's members are looked
// into, listKeys first.
func fromValue(v any) []Result {
	switch x := v.(type) {
	case []any:
		var out []Result
		for _, e := range x {
			if o, ok := e.(map[string]any); ok {
				if r, ok := resultOf(o); ok {
					out = append(out, r)
				}
			}
		}
		if len(out) > 0 {
			return out
		}
		for _, e := range x {
			if rs := fromValue(e); len(rs) > 0 {
				return rs
			}
		}
	case map[string]any:
		if r, ok := resultOf(x); ok {
			return []Result{r}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.SliceStable(keys, func(i, j int) bool { return rank(keys[i]) < rank(keys[j]) })
		for _, k := range keys {
			if rs := fromValue(x[k]); len(rs) > 0 {
				return rs
			}
		}
	}
	return nil
}

func rank(k string) int {
	if i := slices.Index(listKeys, k); i >= 0 {
		return i
	}
	return len(listKeys)
}

// resultOf is the result an object describes, when it has a URL.
func resultOf(o map[string]any) (Result, bool) {
	u := first(o, urlKeys)
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return Result{}, false
	}
	return Result{Title: first(o, titleKeys), URL: u, Snippet: first(o, snippetKeys)}, true
}

// first is the first of keys in o with a string value (a list of strings
// is joined).
func first(o map[string]any, keys []string) string {
	for _, k := range keys {
		switch v := o[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case []any:
			var ss []string
			for _, e := range v {
				if s, ok := e.(string); ok {
					ss = append(ss, s)
				}
			}
			if len(ss) > 0 {
				return strings.Join(ss, " … ")
			}
		}
	}
	return ""
}

var (
	label    = regexp.MustCompile(`^\s*(?:[-*]\s+)?\**([A-Za-z ]{2,20}?)\**\s*:\s*(.*)$`)
	item     = regexp.MustCompile(`^\s*(?:\d+[.)]|[-*•])\s+(.*)$`)
	mdLink   = regexp.MustCompile(`\[([^\]]*)\]\((https?://[^)\s]+)\)`)
	bareLink = regexp.MustCompile(`https?://[^\s<>()"'\]]+`)
	heading  = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
)

// fromText reads results out of a text block: JSON, labelled blocks
// ("Title: …", "URL: …", "Description: …"), or a list of items (numbered,
// bulleted or markdown headings) each with a link.
func fromText(t string) []Result {
	if s := strings.TrimSpace(t); strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") {
		var v any
		if json.Unmarshal([]byte(s), &v) == nil {
			return fromValue(v)
		}
	}
	if rs := fromLabels(t); len(rs) > 0 {
		return rs
	}
	return fromList(t)
}

// fromLabels reads "Title: …" / "URL: …" / "Description: …" blocks; a
// line under a snippet label continues it.
func fromLabels(t string) []Result {
	var out []Result
	var cur *Result
	inSnippet := false
	lastItem := "" // a list item's text, the title of a URL under it
	flush := func() {
		if cur != nil && cur.URL != "" {
			out = append(out, *cur)
		}
		cur = nil
	}
	for _, line := range strings.Split(t, "\n") {
		m := label.FindStringSubmatch(line)
		if m == nil {
			if it := item.FindStringSubmatch(line); it != nil && line[0] != ' ' && line[0] != '\t' {
				lastItem, inSnippet = it[1], false
				continue
			}
			if inSnippet && cur != nil && strings.TrimSpace(line) != "" {
				cur.Snippet += " " + strings.TrimSpace(line)
			}
			continue
		}
		k, v := strings.ToLower(strings.TrimSpace(m[1])), strings.TrimSpace(m[2])
		inSnippet = false
		switch {
		case slices.Contains(titleKeys, k):
			flush()
			cur = &Result{Title: v}
		case slices.Contains(urlKeys, k) || k == "source":
			if !bareLink.MatchString(v) {
				continue
			}
			if cur == nil || cur.URL != "" {
				flush()
				cur = &Result{Title: lastItem}
			}
			lastItem = ""
			cur.URL = bareLink.FindString(v)
		case slices.Contains(snippetKeys, k):
			if cur != nil {
				cur.Snippet, inSnippet = v, true
			}
		}
	}
	flush()
	return out
}

// fromList reads a list whose items each hold a link: the link's text
// (or the item's first line) is the title, the lines after it the
// snippet.
func fromList(t string) []Result {
	var out []Result
	var cur *Result
	flush := func() {
		if cur != nil && cur.URL != "" {
			cur.Snippet = strings.TrimSpace(cur.Snippet)
			out = append(out, *cur)
		}
		cur = nil
	}
	for _, line := range strings.Split(t, "\n") {
		s := strings.TrimSpace(line)
		start := ""
		if m := item.FindStringSubmatch(line); m != nil && line[0] != ' ' && line[0] != '\t' {
			start = m[1]
		} else if m := heading.FindStringSubmatch(s); m != nil {
			start = m[1]
		}
		if start != "" {
			flush()
			cur = &Result{}
			s = start
		}
		if cur == nil || s == "" {
			continue
		}
		if cur.URL == "" {
			if m := mdLink.FindStringSubmatch(s); m != nil {
				cur.URL = m[2]
				if cur.Title == "" {
					cur.Title = strings.Trim(m[1], "*_ ")
				}
				if rest := strings.TrimSpace(strings.Trim(strings.Replace(s, m[0], "", 1), " -–—:*_")); rest != "" && rest != cur.Title {
					cur.Snippet += " " + rest
				}
				continue
			}
			if u := bareLink.FindString(s); u != "" {
				cur.URL = strings.TrimRight(u, ".,;:")
				if rest := strings.TrimSpace(strings.Trim(strings.Replace(s, u, "", 1), " -–—:<>")); rest != "" && cur.Title == "" {
					cur.Title = rest
				}
				continue
			}
			if cur.Title == "" {
				cur.Title = strings.Trim(s, "*_ ")
				continue
			}
		}
		cur.Snippet += " " + s
	}
	flush()
	return out
}
