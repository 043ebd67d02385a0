package main

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
	"github.com/urfave/cli/v2"
)

// What the subcommands share: their arguments, the session directories,
// loading a session named on the command line, reporting its problems.

// warnProblems reports skipped lines on stderr, with file and line.
func warnProblems(c *cli.Context, path string, ps []session.Problem) {
	for _, w := range sessionstore.ProblemWarnings(path, ps) {
		app.Warnf(c, "%s", w)
	}
}

// newSessionID is a 16-hex snowflake from the clock and a random sequence.
func newSessionID(env *app.Env) string { return sessionstore.NewSessionID(env.Now()) }

// sessionsDirFor is where new sessions for cwd are created.
func sessionsDirFor(env *app.Env, cwd string) string {
	return filepath.Join(dirs.Resolve(env.Getenv).Sessions(), session.EncodeCwd(cwd))
}

// sessionDirsFor lists the directories that may hold sessions of cwd: ours
// (--abs--) and the reference agent's home-relative form (-rel).
func sessionDirsFor(env *app.Env, cwd string) []string {
	root := dirs.Resolve(env.Getenv).Sessions()
	ds := []string{filepath.Join(root, session.EncodeCwd(cwd))}
	if home := env.Getenv("HOME"); home != "" {
		if rel, err := filepath.Rel(home, cwd); err == nil && !strings.HasPrefix(rel, "..") {
			enc := "-"
			if rel != "." {
				enc += strings.NewReplacer("/", "-", "\\", "-", ":", "-").Replace(rel)
			}
			ds = append(ds, filepath.Join(root, enc))
		}
	}
	return ds
}

// absPath resolves a path argument against the command's working directory.
func absPath(env *app.Env, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(env.Dir, p)
}

// cwdFlag is --cwd as an absolute path, the working directory when unset.
func cwdFlag(c *cli.Context, env *app.Env) string {
	if c.IsSet("cwd") {
		return absPath(env, c.String("cwd"))
	}
	return env.Dir
}

// needPath returns the FILE argument or a usage error.
func needPath(c *cli.Context, env *app.Env, what string) (string, error) {
	if c.NArg() < 1 {
		return "", exit.Errorf(exit.Usage, "missing %s (see '%s --help')", what, c.Command.HelpName)
	}
	return absPath(env, c.Args().First()), nil
}

// loadExisting loads a session that must exist.
func loadExisting(c *cli.Context, path string) (*sessionstore.Loaded, error) {
	l, err := sessionstore.Load(path)
	if errors.Is(err, sessionstore.ErrNoSession) {
		return nil, exit.Errorf(exit.Usage, "%s: no such session file (create one with 'agent-session new')", path)
	}
	if err != nil {
		return nil, err
	}
	warnProblems(c, path, l.Problems)
	return l, nil
}

// loadArg loads the session file the command's first argument names, which
// must exist; path is its absolute path.
func loadArg(c *cli.Context, env *app.Env) (l *sessionstore.Loaded, path string, err error) {
	if path, err = needPath(c, env, "FILE"); err == nil {
		l, err = loadExisting(c, path)
	}
	return l, path, err
}
