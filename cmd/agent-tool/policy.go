package main

import (
	"encoding/json"
	"fmt"
	"github.com/bmatcuk/doublestar/v4"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"mvdan.cc/sh/v3/syntax"

	"github.com/agentutils/agentutils/internal/tools"
	"github.com/agentutils/agentutils/lib/tooldef"
)

var (
	allowFlag    = &cli.StringFlag{Name: "allow", Usage: "comma-separated `LIST` of the only tools that may run"}
	denyFlag     = &cli.StringFlag{Name: "deny", Usage: "comma-separated `LIST` of tools that may not run"}
	readOnlyFlag = &cli.BoolFlag{Name: "read-only", Usage: "refuse " + strings.Join(tooldef.Names(tooldef.Changes), ", ") + ", and bash unless --bash-allow permits the command"}
	rootFlag     = &cli.StringFlag{Name: "root", Usage: "confine tool paths to `DIR` (symlinks that leave it included)"}
	protectFlag  = &cli.StringSliceFlag{Name: "protect", Usage: "`GLOB` of paths the changing tools may not touch (e.g. '.git/**', '**/*.pem'); repeatable"}
	bashAllow    = &cli.StringSliceFlag{Name: "bash-allow", Usage: "command `PREFIX` bash may run (e.g. 'go test', 'git status'); every command of the script must match one; repeatable"}
)

func callFlags() []cli.Flag {
	return []cli.Flag{stateFlag, editModeFlag, hooksDirFlag, settingsFlag, allowFlag, denyFlag, readOnlyFlag, rootFlag, protectFlag, bashAllow, privateNetFlag}
}

// rules is the allow/deny policy of a run.
type rules struct {
	allow, deny, bashAllow []string
	readOnly               bool
	protect                []string // globs, relative to the cwd
}

func rulesOf(c *cli.Context) rules {
	return rules{allow: list(c.String("allow")), deny: list(c.String("deny")), bashAllow: c.StringSlice("bash-allow"),
		readOnly: c.Bool("read-only"), protect: c.StringSlice("protect")}
}

// check is the reason a call is refused, or "".
func (ru rules) check(env *tools.Env, name string, args json.RawMessage) string {
	if l := ru.allow; len(l) > 0 && !slices.Contains(l, name) {
		return fmt.Sprintf("Tool %s is not allowed here (allowed: %s).", name, strings.Join(l, ", "))
	}
	if slices.Contains(ru.deny, name) {
		return fmt.Sprintf("Tool %s is denied by policy.", name)
	}
	t, _ := tooldef.Lookup(name) // the tool's class, script and path arguments
	if ru.readOnly && tooldef.Changes(t) {
		return fmt.Sprintf("Tool %s is not available: this session is read-only.", name)
	}
	if t.Script != "" {
		prefixes := ru.bashAllow
		if len(prefixes) > 0 {
			if why := bashPolicy(tools.ArgString(args, t.Script), prefixes); why != "" {
				return why
			}
		} else if ru.readOnly {
			return fmt.Sprintf("Tool %s is not available: this session is read-only (use --bash-allow to permit commands).", name)
		}
	}
	// Every path argument, resolved as the tools resolve it (tools.Paths,
	// Env.Resolve): whitespace, ~ and patch headers included.
	paths := tools.Paths(name, args)
	if len(ru.protect) > 0 && tooldef.Changes(t) {
		realCwd, _ := tools.RealPath(env.Cwd)
		for _, p := range paths {
			// The path as named and as it really is: a symlink into a
			// protected directory is protected too.
			abs := env.Resolve(p)
			real, ok := tools.RealPath(abs)
			if !ok {
				return fmt.Sprintf("Path %s is a dangling symlink; it cannot be changed in this session.", strings.TrimSpace(p))
			}
			for _, rel := range []string{relTo(env.Cwd, abs), relTo(realCwd, real)} {
				for _, g := range ru.protect {
					if ok, _ := doublestar.Match(g, rel); ok {
						return fmt.Sprintf("Path %s is protected (%s); it cannot be changed in this session.", strings.TrimSpace(p), g)
					}
				}
			}
		}
	}
	for _, p := range paths {
		if why := env.Outside(p); why != "" {
			return why
		}
	}
	return ""
}

// relTo is p relative to dir with slashes, or p when it has no such form.
func relTo(dir, p string) string {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
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
