package mcpconfig

import (
	"fmt"
	"sort"

	"github.com/BurntSushi/toml"

	"github.com/agentutils/agentutils/lib/config"
)

// codexServer is one [mcp_servers.NAME] table of ~/.codex/config.toml.
type codexServer struct {
	Command           string            `toml:"command"`
	Args              []string          `toml:"args"`
	Env               map[string]string `toml:"env"`
	EnvVars           []string          `toml:"env_vars"`
	Cwd               string            `toml:"cwd"`
	URL               string            `toml:"url"`
	HTTPHeaders       map[string]string `toml:"http_headers"`
	EnvHTTPHeaders    map[string]string `toml:"env_http_headers"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var"`
	StartupTimeoutSec float64           `toml:"startup_timeout_sec"`
	StartupTimeoutMs  float64           `toml:"startup_timeout_ms"`
	ToolTimeoutSec    float64           `toml:"tool_timeout_sec"`
	Enabled           *bool             `toml:"enabled"`
	EnabledTools      []string          `toml:"enabled_tools"`
	DisabledTools     []string          `toml:"disabled_tools"`
}

func parseCodex(f *File, data []byte) error {
	var doc struct {
		MCPServers map[string]codexServer `toml:"mcp_servers"`
	}
	if err := config.CheckKeyParts(data); err != nil {
		return err
	}
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		if pe, ok := err.(toml.ParseError); ok {
			return fmt.Errorf("line %d: %s", pe.Position.Line, pe.Message)
		}
		return err
	}
	// File order: the order in which the tables were defined.
	order := map[string]int{}
	for i, k := range md.Keys() {
		if len(k) == 2 && k[0] == "mcp_servers" {
			if _, ok := order[k[1]]; !ok {
				order[k[1]] = i
			}
		}
	}
	names := make([]string, 0, len(doc.MCPServers))
	for n := range doc.MCPServers {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return order[names[i]] < order[names[j]] })
	for _, n := range names {
		c := doc.MCPServers[n]
		s := Server{
			Command: c.Command, Args: c.Args, Env: c.Env, Cwd: c.Cwd, URL: c.URL,
			Headers: c.HTTPHeaders, Enabled: c.Enabled, EnvVars: c.EnvVars,
			IncludeTools: c.EnabledTools, ExcludeTools: c.DisabledTools,
		}
		if len(c.EnvHTTPHeaders) > 0 {
			s.EnvHeaders = c.EnvHTTPHeaders
		}
		if c.BearerTokenEnvVar != "" {
			if s.EnvHeaders == nil {
				s.EnvHeaders = map[string]string{}
			}
			s.EnvHeaders["Authorization"] = "Bearer ${" + c.BearerTokenEnvVar + "}"
		}
		switch {
		case c.StartupTimeoutMs > 0:
			s.Timeout = int(c.StartupTimeoutMs)
		case c.StartupTimeoutSec > 0:
			s.Timeout = int(c.StartupTimeoutSec * 1000)
		}
		if c.ToolTimeoutSec > 0 {
			s.ToolTimeout = int(c.ToolTimeoutSec * 1000)
		}
		if s.URL != "" {
			s.Type = "http"
		}
		if s.Command == "" && s.URL == "" {
			continue
		}
		if err := Validate(s); err != nil {
			return fmt.Errorf("server %q: %w", n, err)
		}
		f.Servers[n] = s
		f.Order = append(f.Order, n)
	}
	return nil
}
