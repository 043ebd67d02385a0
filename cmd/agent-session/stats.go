package main

import (
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/session"
)

func statsCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "print usage and cost totals over every branch of a session",
		ArgsUsage: "FILE",
		Description: `Sums input, output, cache read/write tokens and cost of every assistant message in the
file (all branches), plus the usage subagents reported in task tool results; counts entries and
messages by role.

Example:
   agent-session stats s.jsonl | jq .usage.cost.total`,
		Action: func(c *cli.Context) error {
			path, err := needPath(c, env, "FILE")
			if err != nil {
				return err
			}
			l, err := loadExisting(c, path)
			if err != nil {
				return err
			}
			s := session.Summarize(l.header, l.entries)
			types := map[string]int{}
			for _, e := range l.entries {
				types[e.Type]++
			}
			return printJSON(c, map[string]any{
				"file": path, "id": l.hdr.ID, "entries": len(l.entries), "entryTypes": types,
				"messages": s.MessageCount, "usage": session.Totals(l.entries),
			})
		},
	}
}
