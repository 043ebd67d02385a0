// Package mcpconfig discovers MCP server configurations in the files of the
// common MCP clients (our own mcp.json, Claude Code, Claude Desktop, Cursor,
// Codex, Gemini CLI, VS Code, OpenCode, Windsurf) and merges them into one
// list by the reference precedence: providers by priority, first name wins.
//
// It is pure: Locations computes paths from values passed in, Parse turns the
// bytes of one file into servers, Merge applies precedence, trust and the
// disabled list. Reading files is the caller's job.
package mcpconfig

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Server is one MCP server in the canonical shape of our mcp.json.
type Server struct {
	Type         string            `json:"type,omitempty"` // stdio | http | sse
	Command      string            `json:"command,omitempty"`
	Args         []string          `json:"args,omitempty"`
	Env          map[string]string `json:"env,omitempty"`
	Cwd          string            `json:"cwd,omitempty"`
	URL          string            `json:"url,omitempty"`
	Headers      map[string]string `json:"headers,omitempty"`
	Enabled      *bool             `json:"enabled,omitempty"`
	Timeout      int               `json:"timeout,omitempty"`     // connect and list calls, ms
	ToolTimeout  int               `json:"toolTimeout,omitempty"` // each tools/call, ms
	IncludeTools []string          `json:"includeTools,omitempty"`
	ExcludeTools []string          `json:"excludeTools,omitempty"`
	Auth         *Auth             `json:"auth,omitempty"`
	// EnvVars names variables copied from our environment (Codex env_vars).
	EnvVars []string `json:"envVars,omitempty"`
	// EnvHeaders maps a header to the variable holding its value (Codex).
	EnvHeaders map[string]string `json:"envHeaders,omitempty"`
}

// Auth says how to authenticate to an HTTP server.
type Auth struct {
	Type         string `json:"type"` // oauth | apikey
	CredentialID string `json:"credentialId,omitempty"`
	TokenURL     string `json:"tokenUrl,omitempty"`
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
}

// Entry is a discovered server with where it came from.
type Entry struct {
	Name     string `json:"name"`
	Server   Server `json:"config"`
	Source   string `json:"source"` // provider id
	Path     string `json:"path"`
	Level    string `json:"level"` // user | project
	Shadowed bool   `json:"shadowed,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
}

// Levels of a location.
const (
	User    = "user"
	Project = "project"
)

// Location is one file a provider reads.
type Location struct {
	Source   string // provider id: native, claude, …
	Priority int
	Level    string
	Path     string
	Format   string // parser: native, claude-json, codex, gemini, opencode, vscode, windsurf, mcpservers
	// Key selects a part of the file: for claude-json the absolute project
	// directory whose "local" servers to read.
	Key string
	// FirstOf groups alternatives: of the locations sharing a non-empty
	// FirstOf only the first file that has servers counts.
	FirstOf string
}

// Places are the inputs of Locations.
type Places struct {
	Home      string // $HOME
	Cwd       string // project directory
	ConfigDir string // our user config dir ($XDG_CONFIG_HOME/agentutils)
	XDGConfig string // $XDG_CONFIG_HOME, or empty for ~/.config
	CodexHome string // $CODEX_HOME, or empty for ~/.codex
}

// Sources lists the provider ids in priority order.
var Sources = []string{"native", "claude", "claude-desktop", "codex", "gemini", "opencode", "cursor", "windsurf", "vscode", "mcp-json"}

// Locations lists every file to read, highest precedence first.
func Locations(p Places) []Location {
	j := func(a string, b ...string) string {
		return strings.Join(append([]string{strings.TrimRight(a, "/")}, b...), "/")
	}
	xdg := p.XDGConfig
	if xdg == "" {
		xdg = j(p.Home, ".config")
	}
	codex := p.CodexHome
	if codex == "" {
		codex = j(p.Home, ".codex")
	}
	proj := j(p.Cwd, ".agentutils")
	return []Location{
		{"native", 100, Project, j(proj, "mcp.json"), "native", "", ""},
		{"native", 100, Project, j(proj, ".mcp.json"), "native", "", ""},
		{"native", 100, User, j(p.ConfigDir, "mcp.json"), "native", "", ""},
		{"native", 100, User, j(p.ConfigDir, ".mcp.json"), "native", "", ""},
		// Claude Code: local scope (private, per project, in the user's
		// file) beats project (.mcp.json) beats user.
		{"claude", 80, User, j(p.Home, ".claude.json"), "claude-local", p.Cwd, ""},
		{"claude", 80, Project, j(p.Cwd, ".mcp.json"), "mcpservers", "", ""},
		{"claude", 80, Project, j(p.Cwd, ".claude", ".mcp.json"), "mcpservers", "", "claude-project"},
		{"claude", 80, Project, j(p.Cwd, ".claude", "mcp.json"), "mcpservers", "", "claude-project"},
		{"claude", 80, User, j(p.Home, ".claude.json"), "mcpservers", "", "claude-user"},
		{"claude", 80, User, j(p.Home, ".claude", "mcp.json"), "mcpservers", "", "claude-user"},
		{"claude-desktop", 75, User, j(xdg, "Claude", "claude_desktop_config.json"), "mcpservers", "", "desktop"},
		{"claude-desktop", 75, User, j(p.Home, "Library", "Application Support", "Claude", "claude_desktop_config.json"), "mcpservers", "", "desktop"},
		{"codex", 70, Project, j(p.Cwd, ".codex", "config.toml"), "codex", "", ""},
		{"codex", 70, User, j(codex, "config.toml"), "codex", "", ""},
		{"gemini", 60, Project, j(p.Cwd, ".gemini", "settings.json"), "gemini", "", ""},
		{"gemini", 60, User, j(p.Home, ".gemini", "settings.json"), "gemini", "", ""},
		{"opencode", 55, Project, j(p.Cwd, "opencode.json"), "opencode", "", ""},
		{"opencode", 55, User, j(xdg, "opencode", "opencode.json"), "opencode", "", ""},
		{"cursor", 50, Project, j(p.Cwd, ".cursor", "mcp.json"), "mcpservers", "", ""},
		{"cursor", 50, User, j(p.Home, ".cursor", "mcp.json"), "mcpservers", "", ""},
		{"windsurf", 50, Project, j(p.Cwd, ".windsurf", "mcp_config.json"), "windsurf", "", ""},
		{"windsurf", 50, User, j(p.Home, ".codeium", "windsurf", "mcp_config.json"), "windsurf", "", ""},
		{"vscode", 20, Project, j(p.Cwd, ".vscode", "mcp.json"), "vscode", "", ""},
		{"vscode", 20, User, j(xdg, "Code", "User", "mcp.json"), "vscode", "", ""},
		{"vscode", 20, User, j(xdg, "Code", "User", "settings.json"), "vscode", "", ""},
		{"mcp-json", 5, Project, j(p.Cwd, "mcp.json"), "mcpservers", "", ""},
	}
}

// File is what Parse found in one file.
type File struct {
	Servers         map[string]Server
	Order           []string // server names in file order
	DisabledServers []string // native user file only
	TrustedProjects []string // native user file only
}

// Parse reads one file of the given location. getenv expands ${VAR} and
// ${VAR:-default} in every string (not for Codex, whose format has its own
// env_vars). Errors name the file.
func Parse(loc Location, data []byte, getenv func(string) string) (*File, error) {
	f := &File{Servers: map[string]Server{}}
	var err error
	switch loc.Format {
	case "codex":
		err = parseCodex(f, data)
	default:
		err = parseJSON(f, loc, data, getenv)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loc.Path, err)
	}
	for _, n := range f.Order {
		s := f.Servers[n]
		if s.Type == "" {
			if s.URL != "" && s.Command == "" {
				s.Type = "http"
			} else {
				s.Type = "stdio"
			}
		}
		f.Servers[n] = s
	}
	return f, nil
}

// object is a JSON object that keeps its key order.
type object struct {
	keys []string
	m    map[string]json.RawMessage
}

func (o *object) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &o.m); err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		o.keys = append(o.keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

func parseJSON(f *File, loc Location, data []byte, getenv func(string) string) error {
	if strings.TrimSpace(string(data)) == "" {
		return nil
	}
	data = stripJSONC(data, loc.Format == "vscode" || loc.Format == "opencode")
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return jsonError(data, err)
	}
	var raw json.RawMessage
	switch loc.Format {
	case "native", "mcpservers", "gemini", "windsurf":
		raw = top["mcpServers"]
	case "claude-local":
		var projects map[string]struct {
			MCPServers json.RawMessage `json:"mcpServers"`
		}
		if p, ok := top["projects"]; ok {
			if err := json.Unmarshal(p, &projects); err != nil {
				return fmt.Errorf("projects: %w", err)
			}
		}
		raw = projects[loc.Key].MCPServers
	case "opencode":
		raw = top["mcp"]
	case "vscode":
		raw = top["servers"]
		if raw == nil {
			if m, ok := top["mcp"]; ok {
				var mm map[string]json.RawMessage
				_ = json.Unmarshal(m, &mm)
				raw = mm["servers"]
			}
		}
		if raw == nil {
			raw = top["mcp.servers"]
		}
	}
	if loc.Format == "native" {
		for _, k := range []string{"disabledServers", "trustedProjects"} {
			if v, ok := top[k]; ok {
				var list []string
				if err := json.Unmarshal(v, &list); err != nil {
					return fmt.Errorf("%s: want a list of strings", k)
				}
				if k == "disabledServers" {
					f.DisabledServers = list
				} else {
					f.TrustedProjects = list
				}
			}
		}
	}
	if raw == nil || string(raw) == "null" {
		return nil
	}
	var servers object
	if err := json.Unmarshal(raw, &servers); err != nil {
		return fmt.Errorf("servers: want an object of server configurations")
	}
	for _, name := range servers.keys {
		var m map[string]any
		if err := json.Unmarshal(servers.m[name], &m); err != nil {
			return fmt.Errorf("server %q: want an object", name)
		}
		m = expandAll(m, getenv).(map[string]any)
		s, err := fromMap(loc.Format, m)
		if err != nil {
			return fmt.Errorf("server %q: %w", name, err)
		}
		if s.Command == "" && s.URL == "" {
			continue // nothing to run (e.g. a Gemini entry of a kind we do not know)
		}
		if _, dup := f.Servers[name]; !dup {
			f.Order = append(f.Order, name)
		}
		f.Servers[name] = s
	}
	return nil
}

// fromMap maps one server object of a format onto Server.
func fromMap(format string, m map[string]any) (Server, error) {
	var s Server
	var err error
	str := func(k string) string {
		v, ok := m[k]
		if !ok || v == nil {
			return ""
		}
		if t, ok := v.(string); ok {
			return t
		}
		if err == nil {
			err = fmt.Errorf("%q: want a string", k)
		}
		return ""
	}
	strs := func(k string) []string {
		v, ok := m[k].([]any)
		if !ok {
			if m[k] != nil && err == nil {
				err = fmt.Errorf("%q: want a list of strings", k)
			}
			return nil
		}
		out := make([]string, 0, len(v))
		for _, x := range v {
			t, ok := x.(string)
			if !ok && err == nil {
				err = fmt.Errorf("%q: want a list of strings", k)
			}
			out = append(out, t)
		}
		return out
	}
	smap := func(k string) map[string]string {
		v, ok := m[k].(map[string]any)
		if !ok {
			if m[k] != nil && err == nil {
				err = fmt.Errorf("%q: want an object of strings", k)
			}
			return nil
		}
		out := map[string]string{}
		for kk, x := range v {
			switch t := x.(type) {
			case string:
				out[kk] = t
			case float64, bool:
				out[kk] = fmt.Sprint(t)
			default:
				if err == nil {
					err = fmt.Errorf("%q: value of %q is not a string", k, kk)
				}
			}
		}
		return out
	}
	s.Type = str("type")
	if s.Type == "" {
		s.Type = str("transport") // the reference's VS Code key
	}
	if c, ok := m["command"].([]any); ok && format == "opencode" {
		for i, x := range c {
			t, _ := x.(string)
			if i == 0 {
				s.Command = t
			} else {
				s.Args = append(s.Args, t)
			}
		}
	} else {
		s.Command = str("command")
		s.Args = strs("args")
	}
	s.Env = smap("env")
	if format == "opencode" && m["environment"] != nil {
		s.Env = smap("environment")
	}
	s.Cwd = str("cwd")
	s.URL = str("url")
	s.Headers = smap("headers")
	switch format {
	case "gemini":
		// Gemini CLI: httpUrl is Streamable HTTP, url is legacy SSE.
		if h := str("httpUrl"); h != "" {
			s.URL, s.Type = h, "http"
		} else if s.URL != "" && s.Type == "" {
			s.Type = "sse"
		}
	case "windsurf":
		if u := str("serverUrl"); u != "" && s.URL == "" {
			s.URL = u
		}
	case "opencode":
		switch s.Type {
		case "local":
			s.Type = "stdio"
		case "remote":
			s.Type = "http"
		}
	}
	switch s.Type {
	case "", "stdio", "http", "sse":
	case "streamable-http", "streamableHttp", "streamable_http":
		s.Type = "http"
	default:
		if err == nil {
			err = fmt.Errorf("unknown server type %q", s.Type)
		}
	}
	if v, ok := m["enabled"]; ok {
		b, ok := boolish(v)
		if ok {
			s.Enabled = &b
		}
	}
	if v, ok := m["disabled"]; ok { // Cline, Windsurf
		if b, ok := boolish(v); ok && b {
			f := false
			s.Enabled = &f
		}
	}
	s.Timeout = number(m["timeout"])
	s.ToolTimeout = number(m["toolTimeout"])
	s.IncludeTools = strs("includeTools")
	s.ExcludeTools = strs("excludeTools")
	if a, ok := m["auth"].(map[string]any); ok {
		s.Auth = &Auth{}
		s.Auth.Type, _ = a["type"].(string)
		s.Auth.CredentialID, _ = a["credentialId"].(string)
		s.Auth.TokenURL, _ = a["tokenUrl"].(string)
		s.Auth.ClientID, _ = a["clientId"].(string)
		s.Auth.ClientSecret, _ = a["clientSecret"].(string)
	}
	if err != nil {
		return s, err
	}
	return s, Validate(s)
}

// Validate checks a server configuration as the reference does.
func Validate(s Server) error {
	switch {
	case s.Command != "" && s.URL != "":
		return fmt.Errorf(`both "command" and "url" are set`)
	case (s.Type == "stdio" || s.Type == "") && s.Command == "" && s.URL == "":
		return fmt.Errorf(`stdio server requires "command" field`)
	case s.Type == "stdio" && s.Command == "":
		return fmt.Errorf(`stdio server requires "command" field`)
	case (s.Type == "http" || s.Type == "sse") && s.URL == "":
		return fmt.Errorf(`%s server requires "url" field`, s.Type)
	}
	return nil
}

var nameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,100}$`)

// ValidName reports whether we may write a server under this name.
func ValidName(n string) bool { return nameRE.MatchString(n) }

func boolish(v any) (bool, bool) {
	switch t := v.(type) {
	case bool:
		return t, true
	case string:
		switch t {
		case "true", "1":
			return true, true
		case "false", "0":
			return false, true
		}
	case float64:
		return t != 0, true
	}
	return false, false
}

func number(v any) int {
	switch t := v.(type) {
	case float64:
		if t > 0 {
			return int(t)
		}
	case string:
		if n, err := strconv.Atoi(t); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

var varRE = regexp.MustCompile(`\$\{([^}:]+)(?::-([^}]*))?\}`)

// Expand replaces ${NAME} and ${NAME:-default}; an unset NAME without a
// default stays as written. Bare $NAME is left alone.
func Expand(s string, getenv func(string) string) string {
	if !strings.Contains(s, "${") || getenv == nil {
		return s
	}
	return varRE.ReplaceAllStringFunc(s, func(m string) string {
		g := varRE.FindStringSubmatch(m)
		if v := getenv(g[1]); v != "" {
			return v
		}
		if strings.Contains(m, ":-") {
			return g[2]
		}
		return m
	})
}

func expandAll(v any, getenv func(string) string) any {
	switch t := v.(type) {
	case string:
		return Expand(t, getenv)
	case []any:
		for i := range t {
			t[i] = expandAll(t[i], getenv)
		}
	case map[string]any:
		for k := range t {
			t[k] = expandAll(t[k], getenv)
		}
	}
	return v
}

// jsonError turns a decoding error into "line N: …".
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	off := int64(-1)
	if e, ok := err.(*json.SyntaxError); ok {
		se = e
		off = se.Offset
	}
	if e, ok := err.(*json.UnmarshalTypeError); ok {
		off = e.Offset
	}
	if off < 0 {
		return err
	}
	line := 1 + strings.Count(string(data[:min(int(off), len(data))]), "\n")
	return fmt.Errorf("line %d: %v", line, err)
}

// stripJSONC removes // and /* */ comments and trailing commas, which VS
// Code and OpenCode allow in their JSON files.
func stripJSONC(b []byte, on bool) []byte {
	if !on {
		return b
	}
	out := make([]byte, 0, len(b))
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			if i < len(b) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			i += 2
			for i+1 < len(b) && !(b[i] == '*' && b[i+1] == '/') {
				if b[i] == '\n' {
					out = append(out, '\n')
				}
				i++
			}
			i++
		case c == ',':
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
				j++
			}
			if j < len(b) && (b[j] == '}' || b[j] == ']') {
				continue
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// Found is a parsed file with its location.
type Found struct {
	Loc  Location
	File *File
}

// Options steer Merge.
type Options struct {
	// Trusted says whether project-level servers may run.
	Trusted bool
	// OnlySource keeps one provider (empty: all).
	OnlySource string
	// NoProject drops every project-level server.
	NoProject bool
}

// Result is the merged view.
type Result struct {
	Servers []Entry // winners in precedence order, disabled ones marked
	All     []Entry // winners and shadowed duplicates
	// SkippedUntrusted counts project servers dropped for lack of trust.
	SkippedUntrusted []Entry
	TrustedProjects  []string
}

// Merge applies precedence (found is in Locations order; a stable sort by
// priority keeps that order within a provider), FirstOf groups, trust and
// the disabled list of the user's native file.
func Merge(found []Found, o Options) Result {
	sort.SliceStable(found, func(i, j int) bool { return found[i].Loc.Priority > found[j].Loc.Priority })
	var r Result
	var disabled []string
	usedGroup := map[string]bool{}
	seen := map[string]bool{}
	for _, f := range found {
		if f.Loc.Source == "native" && f.Loc.Level == User {
			disabled = append(disabled, f.File.DisabledServers...)
			r.TrustedProjects = append(r.TrustedProjects, f.File.TrustedProjects...)
		}
	}
	for _, f := range found {
		if len(f.File.Order) == 0 {
			continue
		}
		if g := f.Loc.FirstOf; g != "" {
			if usedGroup[g] {
				continue
			}
			usedGroup[g] = true
		}
		if o.OnlySource != "" && f.Loc.Source != o.OnlySource {
			continue
		}
		for _, n := range f.File.Order {
			e := Entry{Name: n, Server: f.File.Servers[n], Source: f.Loc.Source, Path: f.Loc.Path, Level: f.Loc.Level}
			if e.Level == Project && (o.NoProject || !o.Trusted) {
				if !o.NoProject {
					r.SkippedUntrusted = append(r.SkippedUntrusted, e)
				}
				continue
			}
			if e.Server.Enabled != nil && !*e.Server.Enabled {
				e.Disabled = true
			}
			own := f.Loc.Source == "native"
			for _, d := range disabled {
				if d == n && !own {
					e.Disabled = true
				}
			}
			if seen[n] {
				e.Shadowed = true
				r.All = append(r.All, e)
				continue
			}
			seen[n] = true
			r.Servers = append(r.Servers, e)
			r.All = append(r.All, e)
		}
	}
	return r
}

// Lookup finds an enabled server by name.
func (r Result) Lookup(name string) (Entry, bool) {
	for _, e := range r.Servers {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}
