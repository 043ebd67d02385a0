package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

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
messages by role. On a terminal it prints a table; in a pipe, or with --json, one JSON object.

Examples:
   agent-session stats s.jsonl
   agent-session stats --json s.jsonl | jq .usage.cost`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON even on a terminal"}},
		Action: func(c *cli.Context) error {
			l, path, err := loadArg(c, env)
			if err != nil {
				return err
			}
			s := session.Summarize(l.Header, l.Entries)
			types := map[string]int{}
			for _, e := range l.Entries {
				types[e.Type]++
			}
			u := session.Totals(l.Entries)
			if env.StdoutTTY && !c.Bool("json") {
				return printStats(c.App.Writer, path, l.Hdr.ID, len(l.Entries), types, s.MessageCount, u)
			}
			return printJSON(c, map[string]any{
				"file": path, "id": l.Hdr.ID, "entries": len(l.Entries), "entryTypes": types,
				"messages": s.MessageCount, "usage": u,
			})
		},
	}
}

// printStats is stats for people: one aligned line per fact.
func printStats(w io.Writer, path, id string, entries int, types map[string]int, messages int, u session.Usage) error {
	names := make([]string, 0, len(types))
	for t := range types {
		names = append(names, t)
	}
	sort.Strings(names)
	var parts []string
	for _, t := range names {
		parts = append(parts, fmt.Sprintf("%s %d", t, types[t]))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "file\t%s\n", path)
	fmt.Fprintf(tw, "id\t%s\n", id)
	fmt.Fprintf(tw, "entries\t%d (%s)\n", entries, strings.Join(parts, ", "))
	fmt.Fprintf(tw, "messages\t%d (%d from the model)\n", messages, u.Messages)
	fmt.Fprintf(tw, "tokens\t%d in, %d out, %d cache read, %d cache write\n", u.Input, u.Output, u.CacheRead, u.CacheWrite)
	fmt.Fprintf(tw, "cost\t$%.4f\n", u.Cost)
	return tw.Flush()
}
