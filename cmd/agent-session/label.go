package main

import (
	"errors"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
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
			return withLock(c, path, func(lf *lockedFile, l *loaded) error {
				if _, ok := l.find(target); !ok {
					return exit.Errorf(exit.Usage, "%s: no entry with id %q", path, target)
				}
				ids := l.ids()
				rec := map[string]any{"type": "label", "id": newEntryID(func(s string) bool { return ids[s] }),
					"parentId": nullable(l.leaf()), "timestamp": session.FormatTime(env.Now()), "targetId": target}
				if text != "" {
					rec["label"] = text
				}
				line := mustJSON(rec)
				if err := lf.appendLines(append(line, '\n')); err != nil {
					return err
				}
				removeSidecar(path) // the label is now the last entry, and the leaf
				return printJSON(c, map[string]string{"id": rec["id"].(string)})
			})
		},
	}
}

// withLock loads a session under its lock (migrating an old file on disk
// first) and runs fn; the file is fsynced before the lock is released.
func withLock(c *cli.Context, path string, fn func(lf *lockedFile, l *loaded) error) error {
	lf, err := lockSession(c.Context, path, false)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	defer lf.Close()
	data, err := lf.readAll()
	if err != nil {
		return err
	}
	l, err := parseLoaded(path, data)
	if errors.Is(err, errNoSession) {
		return exit.Errorf(exit.Usage, "%s: not a session file (empty, or no session header)", path)
	}
	if err != nil {
		return err
	}
	warnProblems(c, path, l.problems)
	if l.migrated {
		if len(l.problems) > 0 {
			// The rewrite drops the unreadable lines: keep the original.
			keep := path + ".pre-migration"
			if err := writeFileAtomic(keep, data); err != nil {
				return err
			}
			app.Warnf(c, "%s: the file as it was (with the skipped lines) is kept in %s", path, keep)
		}
		if err := lf.rewrite(l.bytes()); err != nil {
			return err
		}
	}
	if err := fn(lf, l); err != nil {
		return err
	}
	return lf.sync()
}
