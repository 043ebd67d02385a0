package permission

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/agentutils/agentutils/lib/shpolicy"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// toolClass is what a tool does, for the modes: the tool table's class (an
// MCP tool, or any other not in it, has none and needs an allow rule).
func toolClass(name string) string {
	t, ok := tooldef.Lookup(name)
	switch {
	case !ok:
		return ""
	case t.OwnState: // the agent's own list, not the workspace: runs in every mode
		return Read
	}
	return string(t.Class) // the classes are the table's
}

// Names are a tool's name and Claude Code's names of it (the table's
// aliases), which rules may use.
func Names(name string) []string {
	t, _ := tooldef.Lookup(name)
	return append([]string{name}, t.Aliases...)
}

// CallOf describes a call of tool name with args for Decide, in the
// working directory dir (home expands ~): names, class, bash's script and
// its redirections' files (those outside dir need approval), the path
// argument (relative to dir when inside it).
func CallOf(dir, home, name string, args json.RawMessage) Call {
	var a struct {
		Command, Path, Cwd string
	}
	json.Unmarshal(args, &a)
	resolve := func(base, p string) string {
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		return filepath.Clean(p)
	}
	inside := func(abs string) (string, bool) {
		rel, err := filepath.Rel(dir, abs)
		return rel, err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
	}
	cwd := resolve(dir, a.Cwd)
	c := Call{Names: Names(name), Class: toolClass(name), Command: a.Command,
		Bash: shpolicy.Options{Resolve: func(p string) string { return resolve(cwd, p) },
			File: func(abs string, write bool) string {
				if _, ok := inside(abs); ok {
					return ""
				}
				return "a file outside the working directory needs approval."
			}}}
	if a.Path != "" {
		c.Path = resolve(dir, a.Path)
		if rel, ok := inside(c.Path); ok {
			c.Path = rel
		}
	}
	return c
}
