package main

import (
	"encoding/json"
	"fmt"
	"github.com/bmatcuk/doublestar/v4"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	sbflags "github.com/agentutils/agentutils/internal/sandbox/flags"
	"github.com/agentutils/agentutils/internal/tools"
	"github.com/agentutils/agentutils/lib/sandbox"
	"github.com/agentutils/agentutils/lib/shpolicy"
	"github.com/agentutils/agentutils/lib/tooldef"
)

var (
	allowFlag    = &cli.StringFlag{Name: "allow", Usage: "comma-separated `LIST` of the only tools that may run"}
	denyFlag     = &cli.StringFlag{Name: "deny", Usage: "comma-separated `LIST` of tools that may not run"}
	readOnlyFlag = &cli.BoolFlag{Name: "read-only", Usage: "refuse " + strings.Join(tooldef.Names(tooldef.Changes), ", ") + ", and bash unless --bash-allow permits the command"}
	rootFlag     = &cli.StringFlag{Name: "root", Usage: "confine tool paths to `DIR` (symlinks that leave it included)"}
	protectFlag  = &cli.StringSliceFlag{Name: "protect", Usage: "`GLOB` of paths the changing tools may not touch (e.g. '.git/**', '**/*.pem'); repeatable"}
	bashAllow    = &cli.StringSliceFlag{Name: "bash-allow", Usage: "command `PREFIX` bash may run (e.g. 'go test', 'git status'); every command of the script must match one, redirections may touch files only inside the root (reads) and not in --read-only (writes), never /dev/tcp; repeatable"}
)

func callFlags() []cli.Flag {
	return append([]cli.Flag{stateFlag, editModeFlag, hooksDirFlag, settingsFlag, allowFlag, denyFlag, readOnlyFlag, rootFlag, protectFlag, bashAllow, shellEnvFlag, privateNetFlag, keepJobsFlag, maxJobsFlag, noLSPFlag, lspWaitFlag, searchFlag, searchEndpointFlag, searchMCPFlag},
		sbflags.Flags()...)
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
	if env.Sandbox != nil && env.Sandbox.Mode == sandbox.ReadOnly && tooldef.ChangesFiles(t) {
		return fmt.Sprintf("Tool %s is not available: the sandbox is read-only.", name)
	}
	if t.Script != "" {
		if why := ru.bash(env, args); why != "" {
			return why
		}
	}
	// Every path argument, resolved as the tools resolve it (tools.Paths,
	// Env.Resolve): whitespace, ~ and patch headers included.
	paths := tools.Paths(name, args)
	if tooldef.Changes(t) {
		for _, p := range paths {
			if why := ru.protected(env, p); why != "" {
				return why
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

// bash is the refusal of a bash call by --bash-allow and --read-only, or
// "". Without --bash-allow, read-only refuses bash; with it, the script
// is judged whole (lib/shpolicy): a redirection may read a file only inside
// the root (--root, else the working directory) and write one only there,
// not in read-only mode and not a --protect'ed one.
func (ru rules) bash(env *tools.Env, args json.RawMessage) string {
	var a struct {
		Command string `json:"command"`
		Cwd     string `json:"cwd"`
	}
	json.Unmarshal(args, &a)
	if len(ru.bashAllow) == 0 {
		if ru.readOnly {
			return "Tool bash is not available: this session is read-only (use --bash-allow to permit commands)."
		}
		return ""
	}
	root := env.Root
	if root == "" {
		root = env.Cwd
	}
	confined := &tools.Env{Cwd: env.Cwd, Getenv: env.Getenv, Root: root}
	at := &tools.Env{Cwd: env.Resolve(a.Cwd), Getenv: env.Getenv} // where bash runs
	return shpolicy.Check(a.Command, shpolicy.Options{Prefixes: ru.bashAllow, ReadOnly: ru.readOnly, Resolve: at.Resolve,
		File: func(abs string, write bool) string {
			if why := confined.Outside(abs); why != "" {
				return why
			}
			if write {
				return ru.protected(env, abs)
			}
			return ""
		}})
}

// protected is the refusal of changing path p under --protect, or "".
func (ru rules) protected(env *tools.Env, p string) string {
	if len(ru.protect) == 0 {
		return ""
	}
	realCwd, _ := tools.RealPath(env.Cwd)
	// The path as named and as it really is: a symlink into a protected
	// directory is protected too.
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
