// Package mcpdiscover finds agent-mcp's MCP servers on this machine: it
// reads the configuration files of agentutils and of the common MCP clients
// that exist (lib/mcpconfig's places and parsers), merges them, and decides
// whether the project's own servers may run (--trust, the user's
// "trustedProjects", the trust file, or the person asked); it also keeps the
// trust file and the 30-day cache of servers' tool lists.
package mcpdiscover

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcpconfig"
)

// Options say where to look and what is trusted.
type Options struct {
	Getenv func(string) string
	Dirs   dirs.Dirs
	Cwd    string // the project directory, absolute and clean
	// Extra is an extra mcp.json-format file (--config), absolute, read
	// first; "" for none.
	Extra      string
	OnlySource string // read one provider only ("": all)
	NoProject  bool   // ignore every project-level configuration
	Trust      bool   // use the project's own servers
	// Ask, when set, asks a person whether to use the project's own servers
	// (skipped) when nothing else trusts the project.
	Ask  func(skipped []mcpconfig.Entry) (bool, error)
	Warn func(string)
}

// Discover reads and merges the configurations; trusted tells whether the
// project's own servers are in the result. A broken file of ours (or
// --config) is an exit.Usage error; another client's is skipped with a
// warning: its owner validates it.
func Discover(o Options) (res mcpconfig.Result, trusted bool, err error) {
	places := mcpconfig.Places{
		Home: o.Getenv("HOME"), Cwd: o.Cwd, ConfigDir: o.Dirs.Config,
		XDGConfig: o.Getenv("XDG_CONFIG_HOME"), CodexHome: o.Getenv("CODEX_HOME"),
	}
	if places.XDGConfig != "" && !filepath.IsAbs(places.XDGConfig) {
		places.XDGConfig = ""
	}
	locs := mcpconfig.Locations(places)
	if o.Extra != "" {
		if _, err := os.Stat(o.Extra); err != nil {
			return res, false, exit.Errorf(exit.Usage, "--config: %v", err)
		}
		locs = append([]mcpconfig.Location{{Source: "native", Priority: 1000, Level: mcpconfig.User, Path: o.Extra, Format: "native"}}, locs...)
	}
	found, err := readConfigs(locs, o)
	if err != nil {
		return res, false, err
	}
	opts := mcpconfig.Options{OnlySource: o.OnlySource, NoProject: o.NoProject}
	// Trust needs the user's trustedProjects, so merge once to read them.
	first := mcpconfig.Merge(append([]mcpconfig.Found(nil), found...), opts)
	opts.Trusted = o.Trust
	if !opts.Trusted && len(first.SkippedUntrusted) > 0 {
		if opts.Trusted, err = IsTrusted(TrustFile(o.Dirs), o.Cwd, first.TrustedProjects, o.Getenv); err != nil {
			return res, false, err
		}
	}
	if !opts.Trusted && len(first.SkippedUntrusted) > 0 && o.Ask != nil {
		if opts.Trusted, err = o.Ask(first.SkippedUntrusted); err != nil {
			return res, false, err
		}
	}
	return mcpconfig.Merge(found, opts), opts.Trusted, nil
}

// readConfigs reads and parses the configuration files that exist.
func readConfigs(locs []mcpconfig.Location, o Options) ([]mcpconfig.Found, error) {
	// In the home directory the project files are the user's files: read
	// them once, as user files.
	userPaths := map[string]bool{}
	for _, l := range locs {
		if l.Level == mcpconfig.User {
			userPaths[l.Path] = true
		}
	}
	var found []mcpconfig.Found
	for _, l := range locs {
		if l.Level == mcpconfig.Project && userPaths[l.Path] {
			continue
		}
		data, err := os.ReadFile(l.Path)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EISDIR) {
			continue
		}
		if err != nil {
			return nil, exit.Wrap(exit.Usage, err)
		}
		f, err := mcpconfig.Parse(l, data, o.Getenv)
		if err != nil {
			if l.Source == "native" {
				return nil, exit.Wrap(exit.Usage, err)
			}
			o.Warn("skipping " + err.Error())
			continue
		}
		found = append(found, mcpconfig.Found{Loc: l, File: f})
	}
	return found, nil
}

// TrustFile lists the projects a person trusted (mcpconfig.ParseTrust).
func TrustFile(d dirs.Dirs) string { return filepath.Join(d.Data, "trust.json") }

// ReadTrust reads the trust file: a missing one is an empty list; one that
// cannot be read or is malformed is a configuration error (exit 2) that
// names the file and the place.
func ReadTrust(path string) ([]map[string]any, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "trust file: %v", err)
	}
	list, err := mcpconfig.ParseTrust(data)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "trust file %s: %v (fix or remove it; it lists the projects whose own MCP servers may run)", path, err)
	}
	return list, nil
}

// RecordTrust adds cwd to the trust file ([{root, trustedAt}]), at now.
func RecordTrust(path, cwd string, now func() time.Time) error {
	list, err := ReadTrust(path)
	if err != nil {
		return err
	}
	list = append(list, map[string]any{"root": cwd, "trustedAt": now().UTC().Format(time.RFC3339)})
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(data, '\n'))
}

// IsTrusted looks cwd up in the user config's list (fromConfig), then in
// the trust file.
func IsTrusted(trustFile, cwd string, fromConfig []string, getenv func(string) string) (bool, error) {
	under := func(roots []string) bool {
		for _, root := range roots {
			root = filepath.Clean(mcpconfig.Expand(root, getenv))
			if root == cwd || strings.HasPrefix(cwd, root+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	if under(fromConfig) {
		return true, nil
	}
	list, err := ReadTrust(trustFile)
	return err == nil && under(mcpconfig.TrustRoots(list)), err
}

// WriteFile replaces a file of agent-mcp's (configuration, credentials,
// trust, tool cache) with atomicfile.Write: a new file is 0600 and a new
// directory 0700, since they may hold tokens.
func WriteFile(path string, data []byte) error {
	return atomicfile.WritePrivate(path, data)
}

// The tool cache: one file per server under $XDG_CACHE_HOME/agentutils/mcp-tools/.

const toolCacheTTL = 30 * 24 * time.Hour

// ToolCache holds servers' tool lists for 30 days, each valid while the
// server's configuration is unchanged.
type ToolCache struct {
	Dir string           // …/mcp-tools
	Now func() time.Time // the clock of expiry
	// FileID names a server's file (a hash of the name, as credentials'
	// ids are made).
	FileID func(server string) string
}

type toolCache struct {
	Version    int         `json:"version"`
	Server     string      `json:"server"`
	ConfigHash string      `json:"configHash"`
	Tools      []*mcp.Tool `json:"tools"`
	ExpiresAt  int64       `json:"expiresAt"` // unix ms
}

// File is server's cache file.
func (c ToolCache) File(server string) string { return filepath.Join(c.Dir, c.FileID(server)+".json") }

// Write caches e's tools (best effort).
func (c ToolCache) Write(e mcpconfig.Entry, tools []*mcp.Tool) {
	b, err := json.Marshal(toolCache{Version: 1, Server: e.Name, ConfigHash: mcpconfig.Hash(e.Server), Tools: tools,
		ExpiresAt: c.Now().Add(toolCacheTTL).UnixMilli()})
	if err == nil {
		_ = WriteFile(c.File(e.Name), b)
	}
}

// Read is e's cached tools while they are fresh and its configuration is
// the one they were listed with.
func (c ToolCache) Read(e mcpconfig.Entry) ([]*mcp.Tool, bool) {
	b, err := os.ReadFile(c.File(e.Name))
	if err != nil {
		return nil, false
	}
	var tc toolCache
	if json.Unmarshal(b, &tc) != nil || tc.Version != 1 || tc.Server != e.Name ||
		tc.ConfigHash != mcpconfig.Hash(e.Server) || tc.ExpiresAt < c.Now().UnixMilli() {
		return nil, false
	}
	return tc.Tools, true
}
