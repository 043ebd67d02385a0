// Package sandbox holds the pure part of the bash tool's sandbox: its
// modes, the credential stores it hides and the directories a build may
// write. internal/sandbox enforces them with the kernel's mechanisms.
package sandbox

import (
	"path/filepath"
	"strings"
)

// The modes: writes under the root, nowhere (but the private temp dir),
// or no sandbox at all.
const (
	WorkspaceWrite = "workspace-write"
	ReadOnly       = "read-only"
	Off            = "off"
)

// Modes are the modes, strictest last.
var Modes = []string{WorkspaceWrite, ReadOnly, Off}

// DefaultHide are the credential stores hidden from the sandbox: "~/" is
// the home directory, "{config}/" and "{data}/" agentutils' own
// directories (lib/dirs).
var DefaultHide = []string{
	"~/.ssh", "~/.aws", "~/.gnupg", "~/.netrc", "~/.git-credentials", "~/.config/gh",
	"~/.docker/config.json", "~/.kube", "~/.config/gcloud", "~/.azure", "~/.pypirc", "~/.npmrc",
	"{data}/credentials.json", "{config}/mcp.json",
}

// Expand turns the entries of a hide or writable list into absolute
// paths: ~ is home, {config} and {data} agentutils' directories; a
// relative path is relative to dir.
func Expand(list []string, dir, home, config, data string) []string {
	out := make([]string, 0, len(list))
	for _, p := range list {
		switch {
		case p == "~" || strings.HasPrefix(p, "~/"):
			p = filepath.Join(home, p[1:])
		case strings.HasPrefix(p, "{config}"):
			p = filepath.Join(config, strings.TrimPrefix(p, "{config}"))
		case strings.HasPrefix(p, "{data}"):
			p = filepath.Join(data, strings.TrimPrefix(p, "{data}"))
		case !filepath.IsAbs(p):
			p = filepath.Join(dir, p)
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

// Caches are the toolchain caches a build writes (GOCACHE, GOMODCACHE,
// npm's and pip's), from the environment or their defaults under home.
func Caches(getenv func(string) string, home string) []string {
	pick := func(env, def string) string {
		if v := getenv(env); v != "" && filepath.IsAbs(v) {
			return v
		}
		return def
	}
	cache := pick("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	gopath := pick("GOPATH", filepath.Join(home, "go"))
	if i := strings.IndexByte(gopath, filepath.ListSeparator); i >= 0 {
		gopath = gopath[:i]
	}
	return []string{
		pick("GOCACHE", filepath.Join(cache, "go-build")),
		pick("GOMODCACHE", filepath.Join(gopath, "pkg", "mod")),
		pick("npm_config_cache", filepath.Join(home, ".npm")),
		pick("PIP_CACHE_DIR", filepath.Join(cache, "pip")),
	}
}

// Under reports whether p is dir or below it (both clean and absolute).
func Under(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}
