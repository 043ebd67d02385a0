package main

import (
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

func nameCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "name",
		Usage:     "set the session's title (rewrites the header atomically)",
		ArgsUsage: "FILE TITLE",
		Description: `Example:
   agent-session name s.jsonl "parser refactor"`,
		Action: func(c *cli.Context) error {
			path, err := needPath(c, env, "FILE")
			if err != nil {
				return err
			}
			if c.NArg() != 2 || c.Args().Get(1) == "" {
				return exit.Errorf(exit.Usage, "name takes FILE and a non-empty TITLE")
			}
			return withLock(c, path, func(lf *sessionstore.File, l *sessionstore.Loaded) error {
				obj, err := session.ParseObject(l.Header)
				if err != nil {
					return err
				}
				obj.Set("title", mustJSON(c.Args().Get(1)))
				l.Header = obj.Bytes()
				return lf.Rewrite(l.Bytes())
			})
		},
	}
}
