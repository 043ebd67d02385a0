package main

import (
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
)

func resumeCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "find a session by path, id prefix or file name and print its path",
		ArgsUsage: "ID-OR-PREFIX-OR-PATH",
		Description: `A path (containing a slash, or ending in .jsonl) is used as it is. Anything else is
matched case-insensitively against session ids (prefix), file names (prefix) and the id part of
file names (suffix), first among this directory's sessions, then among all. A session of another
directory is refused unless --fork-here copies it into this directory's sessions.

Examples:
   agent-session open "$(agent-session resume 0a1b)" | agent-chat "where were we?"
   agent-session resume --fork-here 0a1b2c3d`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fork-here", Usage: "fork a session of another directory into this one"},
			&cli.BoolFlag{Name: "json", Usage: `print {"file","id"} instead of the path`},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return exit.Errorf(exit.Usage, "resume takes one argument: a session id, prefix or path")
			}
			arg := c.Args().First()
			print := func(file string) error {
				writeBreadcrumb(env, env.Dir, file)
				if c.Bool("json") {
					l, err := sessionstore.Load(file)
					if err != nil {
						return err
					}
					return printJSON(c, map[string]string{"file": file, "id": l.Hdr.ID})
				}
				_, err := c.App.Writer.Write([]byte(file + "\n"))
				return err
			}
			if strings.ContainsAny(arg, `/\`) || isSessionFile(arg) {
				file := absPath(env, arg)
				if _, err := loadExisting(c, file); err != nil {
					return err
				}
				return print(file)
			}
			local, err := scanSessions(c, sessionDirsFor(env, env.Dir), false)
			if err != nil {
				return err
			}
			if in, ok := matchSession(local, arg); ok {
				return print(in.Path)
			}
			all, err := scanSessions(c, []string{dirs.Resolve(env.Getenv).Sessions()}, true)
			if err != nil {
				return err
			}
			in, ok := matchSession(all, arg)
			if !ok {
				return exit.Errorf(exit.Failure, "Session %q not found.", arg)
			}
			if filepath.Clean(in.Cwd) == filepath.Clean(env.Dir) {
				return print(in.Path)
			}
			if !c.Bool("fork-here") {
				return exit.Errorf(exit.Usage, "session %s belongs to %s; pass --fork-here to fork it into %s", in.ID, in.Cwd, env.Dir)
			}
			file, _, err := forkSession(env, in.Path, sessionsDirFor(env, env.Dir), env.Dir)
			if err != nil {
				return err
			}
			return print(file)
		},
	}
}

// matchSession finds the first session (newest first) matching arg.
func matchSession(infos []sessionInfo, arg string) (sessionInfo, bool) {
	a := strings.ToLower(arg)
	for _, in := range infos {
		base := strings.ToLower(filepath.Base(in.Path))
		stem := strings.TrimSuffix(strings.TrimSuffix(base, ".zst"), ".jsonl")
		_, idPart, _ := strings.Cut(stem, "_")
		if strings.HasPrefix(strings.ToLower(in.ID), a) || strings.HasPrefix(base, a) || (idPart != "" && strings.HasSuffix(idPart, a)) {
			return in, true
		}
	}
	return sessionInfo{}, false
}
