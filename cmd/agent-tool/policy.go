package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"mvdan.cc/sh/v3/syntax"

	"github.com/agentutils/agentutils/internal/tools"
)

var (
	allowFlag    = &cli.StringFlag{Name: "allow", Usage: "comma-separated `LIST` of the only tools that may run"}
	denyFlag     = &cli.StringFlag{Name: "deny", Usage: "comma-separated `LIST` of tools that may not run"}
	readOnlyFlag = &cli.BoolFlag{Name: "read-only", Usage: "refuse write, edit, apply_patch, undo_edit, todo_write, and bash unless --bash-allow permits the command"}
	rootFlag     = &cli.StringFlag{Name: "root", Usage: "confine tool paths to `DIR` (symlinks that leave it included)"}
	bashAllow    = &cli.StringSliceFlag{Name: "bash-allow", Usage: "command `PREFIX` bash may run (e.g. 'go test', 'git status'); every command of the script must match one; repeatable"}
)

func callFlags() []cli.Flag {
	return []cli.Flag{stateFlag, editModeFlag, hooksDirFlag, settingsFlag, allowFlag, denyFlag, readOnlyFlag, rootFlag, bashAllow}
}

var mutating = []string{"write", "edit", "apply_patch", "undo_edit", "todo_write"}

// rules is the allow/deny policy of a run.
type rules struct {
	allow, deny, bashAllow []string
	readOnly               bool
	root                   string
}

func rulesOf(c *cli.Context) rules {
	return rules{allow: list(c.String("allow")), deny: list(c.String("deny")), bashAllow: c.StringSlice("bash-allow"),
		readOnly: c.Bool("read-only"), root: c.String("root")}
}

// check is the reason a call is refused, or "".
func (ru rules) check(env *tools.Env, name string, args json.RawMessage) string {
	if l := ru.allow; len(l) > 0 && !slices.Contains(l, name) {
		return fmt.Sprintf("Tool %s is not allowed here (allowed: %s).", name, strings.Join(l, ", "))
	}
	if slices.Contains(ru.deny, name) {
		return fmt.Sprintf("Tool %s is denied by policy.", name)
	}
	if ru.readOnly && slices.Contains(mutating, name) {
		return fmt.Sprintf("Tool %s is not available: this session is read-only.", name)
	}
	var a struct {
		Path    string `json:"path"`
		Command string `json:"command"`
		Input   string `json:"input"`
	}
	json.Unmarshal(args, &a)
	if name == "bash" {
		prefixes := ru.bashAllow
		if len(prefixes) > 0 {
			if why := bashPolicy(a.Command, prefixes); why != "" {
				return why
			}
		} else if ru.readOnly {
			return "Tool bash is not available: this session is read-only (use --bash-allow to permit commands)."
		}
	}
	if root := ru.root; root != "" {
		paths := []string{}
		if a.Path != "" {
			paths = append(paths, a.Path)
		}
		if name == "apply_patch" {
			for _, l := range strings.Split(a.Input, "\n") {
				l = strings.TrimSpace(l)
				for _, h := range []string{"*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "} {
					if strings.HasPrefix(l, h) {
						paths = append(paths, strings.TrimPrefix(l, h))
					}
				}
			}
		}
		for _, p := range paths {
			if !inside(root, resolve(env.Cwd, p)) {
				return fmt.Sprintf("Path %s is outside the allowed root %s. Use a path inside it.", p, root)
			}
		}
	}
	return ""
}

func list(s string) []string {
	var out []string
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

func resolve(cwd, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// inside says whether p, with its symlinks resolved as far as it exists,
// is within root.
func inside(root, p string) bool {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		r = filepath.Clean(root)
	}
	r, _ = filepath.Abs(r)
	// Resolve the longest existing prefix, so a new file under a symlinked
	// directory is judged by where the directory really is.
	rest := ""
	q := p
	for {
		if real, err := filepath.EvalSymlinks(q); err == nil {
			p = filepath.Join(real, rest)
			break
		}
		if _, err := os.Lstat(q); err == nil {
			// A dangling symlink: refuse rather than guess.
			return false
		}
		parent := filepath.Dir(q)
		if parent == q {
			break
		}
		rest = filepath.Join(filepath.Base(q), rest)
		q = parent
	}
	rel, err := filepath.Rel(r, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// bashPolicy parses the script and checks every simple command against
// the allowed prefixes, so `go test; rm -rf /` is seen whole.
func bashPolicy(script string, prefixes []string) string {
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		return fmt.Sprintf("Command refused: it does not parse (%v).", err)
	}
	var bad string
	syntax.Walk(f, func(n syntax.Node) bool {
		if bad != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			var words []string
			for _, w := range n.Args {
				lit := w.Lit()
				if lit == "" {
					// A word built from expansions can be anything.
					var sb strings.Builder
					syntax.NewPrinter().Print(&sb, w)
					lit = "\x00" + sb.String()
				}
				words = append(words, lit)
			}
			if len(words) == 0 {
				return true
			}
			cmd := strings.Join(words, " ")
			ok := false
			for _, p := range prefixes {
				if cmd == p || strings.HasPrefix(cmd, p+" ") {
					ok = true
				}
			}
			if !ok {
				bad = strings.ReplaceAll(cmd, "\x00", "")
			}
		case *syntax.ProcSubst, *syntax.CoprocClause, *syntax.FuncDecl:
			bad = "(" + fmt.Sprintf("%T", n) + ")"
		}
		return true
	})
	if bad != "" {
		return fmt.Sprintf("Command refused by policy: %q is not an allowed command (allowed prefixes: %s).", bad, strings.Join(prefixes, ", "))
	}
	return ""
}
