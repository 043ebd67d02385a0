package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

func labelCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "label",
		Usage:     "set (or, without TEXT, clear) the label of an entry",
		ArgsUsage: "FILE ENTRY [TEXT]",
		Description: `Appends a label entry; the last label of an entry wins and an empty one clears it.
Labels show in 'agent-session tree' and in exports.

Example:
   agent-session label s.jsonl 3f2a9c1e "before the refactor"`,
		Action: func(c *cli.Context) error {
			path, err := needPath(c, env, "FILE")
			if err != nil {
				return err
			}
			if c.NArg() < 2 || c.NArg() > 3 {
				return exit.Errorf(exit.Usage, "label takes FILE ENTRY [TEXT]")
			}
			target, text := c.Args().Get(1), c.Args().Get(2)
			return withLock(c, path, func(lf *sessionstore.File, l *sessionstore.Loaded) error {
				if _, ok := l.Find(target); !ok {
					return exit.Errorf(exit.Usage, "%s: no entry with id %q", path, target)
				}
				ids := l.IDs()
				rec := map[string]any{"type": "label", "id": sessionstore.NewEntryID(func(s string) bool { return ids[s] }),
					"parentId": nullable(l.Leaf()), "timestamp": session.FormatTime(env.Now()), "targetId": target}
				if text != "" {
					rec["label"] = text
				}
				line := mustJSON(rec)
				if err := lf.AppendLines(append(line, '\n')); err != nil {
					return err
				}
				sessionstore.RemoveSidecar(path) // the label is now the last entry, and the leaf
				return printJSON(c, map[string]string{"id": rec["id"].(string)})
			})
		},
	}
}

// withLock loads a session under its lock (migrating an old file on disk
// first) and runs fn; the file is fsynced before the lock is released.
func withLock(c *cli.Context, path string, fn func(lf *sessionstore.File, l *sessionstore.Loaded) error) error {
	lf, err := sessionstore.Lock(c.Context, path, false)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	defer lf.Close()
	data, err := lf.ReadAll()
	if err != nil {
		return err
	}
	l, err := sessionstore.Parse(path, data)
	if errors.Is(err, sessionstore.ErrNoSession) {
		return exit.Errorf(exit.Usage, "%s: not a session file (empty, or no session header)", path)
	}
	if err != nil {
		return err
	}
	warnProblems(c, path, l.Problems)
	if l.Migrated {
		if len(l.Problems) > 0 {
			// The rewrite drops the unreadable lines: keep the original.
			keep := path + ".pre-migration"
			if err := sessionstore.WriteFileAtomic(keep, data); err != nil {
				return err
			}
			app.Warnf(c, "%s: the file as it was (with the skipped lines) is kept in %s", path, keep)
		}
		if err := lf.Rewrite(l.Bytes()); err != nil {
			return err
		}
	}
	if err := fn(lf, l); err != nil {
		return err
	}
	return lf.Sync()
}
