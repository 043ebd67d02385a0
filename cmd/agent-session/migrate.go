package main

import (
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
)

func migrateCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "migrate",
		Usage:     "rewrite a version 1 or 2 session file as version 3 (atomically)",
		ArgsUsage: "FILE...",
		Description: `v1 entries get ids and a linear parent chain (compaction firstKeptEntryIndex becomes
firstKeptEntryId); v2 hookMessage messages become custom. A v3 file is left as it is. Prints
{"file","from","to"} per file. open and append migrate in memory and before writing anyway.

Example:
   agent-session migrate ~/.pi/agent/sessions/*/*.jsonl`,
		Action: func(c *cli.Context) error {
			for i := 0; i < c.NArg(); i++ {
				path := absPath(env, c.Args().Get(i))
				from := 3
				err := withLockRaw(c, path, func(lf *sessionstore.File, l *sessionstore.Loaded, version int) error {
					from = version
					return nil // withLockRaw already rewrote an old file
				})
				if err != nil {
					return err
				}
				if err := printJSON(c, map[string]any{"file": path, "from": from, "to": 3}); err != nil {
					return err
				}
			}
			if c.NArg() == 0 {
				_, err := needPath(c, env, "FILE")
				return err
			}
			return nil
		},
	}
}

// withLockRaw is withLock that also reports the version found on disk.
func withLockRaw(c *cli.Context, path string, fn func(lf *sessionstore.File, l *sessionstore.Loaded, version int) error) error {
	version := 3
	return withLock(c, path, func(lf *sessionstore.File, l *sessionstore.Loaded) error {
		if l.Migrated {
			version = l.DiskVersion
		}
		return fn(lf, l, version)
	})
}
