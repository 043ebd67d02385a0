package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/batch"
	"github.com/agentutils/agentutils/lib/exit"
)

// withResultStats extends stats to result files (formats/task-result): when
// its arguments are result files it prints the aggregate (lib/batch), else
// it is stats of one session as before.
func withResultStats(env *app.Env, cmd *cli.Command) *cli.Command {
	cmd.ArgsUsage = "FILE | RESULTS-FILE..."
	cmd.Description += `

Given result files of agent-session run-task (formats/task-result: OUT/results.jsonl, or
OUT/results/*.json), it prints the pass rate, turns, tokens, cost and wall time over all of
them, by model and by task: a table on a terminal, JSON in a pipe or with --json.

   agent-session stats out/results.jsonl
   agent-session stats --json out/results/*.json | jq .byModel`
	hasJSON := false
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			hasJSON = hasJSON || n == "json"
		}
	}
	if !hasJSON {
		cmd.Flags = append(cmd.Flags, &cli.BoolFlag{Name: "json", Usage: "print JSON even on a terminal"})
	}
	sessionStats := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		if c.Args().Len() == 0 || (c.Args().Len() == 1 && !isResultFile(absPath(env, c.Args().First()))) {
			return sessionStats(c)
		}
		var rs []batch.Result
		for _, a := range c.Args().Slice() {
			more, err := readResults(absPath(env, a), a)
			if err != nil {
				return &exit.Error{Code: exit.Usage, Err: err}
			}
			rs = append(rs, more...)
		}
		rep := batch.Aggregate(rs)
		if env.StdoutTTY && !c.Bool("json") {
			return printReport(c.App.Writer, rep)
		}
		return printJSON(c, rep)
	}
	return cmd
}

// isResultFile reports whether the file's first line is a task result.
func isResultFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var probe struct {
			Type    *string `json:"type"`
			Outcome *string `json:"outcome"`
		}
		return json.Unmarshal(sc.Bytes(), &probe) == nil && probe.Outcome != nil && probe.Type == nil
	}
	return false
}

func readResults(path, name string) ([]batch.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rs []batch.Result
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		r, err := batch.ParseResult(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		rs = append(rs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return rs, nil
}

// printReport is the aggregate for people.
func printReport(w io.Writer, rep batch.Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(g batch.Group) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%.1f%%\t%.1f\t%.0f\t$%.4f\t%.1fs\t\n", g.Key, g.Runs, g.Passed, g.Failed, g.Budget, g.Error,
			100*g.PassRate, g.MeanTurns, g.MeanTokens, g.Cost, g.MeanWall)
	}
	section := func(title string, gs []batch.Group) {
		fmt.Fprintf(tw, "%s\truns\tpassed\tfailed\tbudget\terror\tpass rate\tturns/run\ttokens/run\tcost\twall/run\t\n", title)
		for _, g := range gs {
			row(g)
		}
		fmt.Fprintf(tw, "\t\t\t\t\t\t\t\t\t\t\t\n")
	}
	section("model", rep.ByModel)
	section("task", rep.ByTask)
	row(rep.Total)
	return tw.Flush()
}
