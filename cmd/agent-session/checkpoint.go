package main

import (
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/checkpoint"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

func checkpointCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "checkpoint",
		Usage:     "record what changed in the current directory since the session's last checkpoint",
		ArgsUsage: "FILE",
		Description: `Scans the current directory as agent-chat --checkpoint does before a prompt (never .git,
nor agentutils' own data) and appends a checkpoint entry at the leaf: the files that changed
since the session's last checkpoint, their content kept in the blob store. agent-session rewind
brings the files back to it. Prints {"id","changes","files","unkept"}.

Examples:
   agent-session checkpoint "$S"
   C=$(agent-session checkpoint "$S" | jq -r .id) && echo ruined > notes.txt && agent-session rewind "$S" "$C"`,
		Action: func(c *cli.Context) error {
			path, err := needPath(c, env, "FILE")
			if err != nil {
				return err
			}
			if c.NArg() != 1 {
				return exit.Errorf(exit.Usage, "checkpoint takes FILE")
			}
			st := checkpoint.NewStore(dirs.Resolve(env.Getenv))
			return withLock(c, path, func(lf *sessionstore.File, l *sessionstore.Loaded) error {
				sc, err := st.Take(path, env.Dir, env.Now().UnixNano())
				if err != nil {
					return err
				}
				for _, w := range sc.Warnings {
					app.Warnf(c, "checkpoint: %s", w)
				}
				e := sc.Entry()
				ids := l.IDs()
				e.ID = sessionstore.NewEntryID(func(s string) bool { return ids[s] })
				e.ParentID = nullableStr(l.Leaf())
				e.Timestamp = session.FormatTime(env.Now())
				if err := lf.AppendLines(append(mustJSON(e), '\n')); err != nil {
					return err
				}
				sessionstore.RemoveSidecar(path)
				return printJSON(c, map[string]any{"id": e.ID, "changes": len(e.Changes), "files": e.Files, "unkept": e.Unkept})
			})
		},
	}
}
