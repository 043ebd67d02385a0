package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/batch"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/usage"
)

// withResultStats extends stats to result files (formats/task-result): when
// its arguments are result files it prints the aggregate (lib/batch), else
// it is stats of one session as before.
func withResultStats(env *app.Env, cmd *cli.Command) *cli.Command {
	cmd.ArgsUsage = "FILE | RESULTS-FILE..."
	cmd.Description += `

Given result files of agent-session run-task (formats/task-result: OUT/results.jsonl, or
OUT/results/*.json), it prints the pass rate, turns, tokens, cost and wall time over all of
them, by model and by task: a table on a terminal, JSON in a pipe or with --json. With --html,
one self-contained page (no script, nothing fetched) with three plots — cost per task, tokens
over turns (read from each result's session file), outcome by model — and the tables; -o
writes any of them to a file instead of stdout.

   agent-session stats out/results.jsonl
   agent-session stats --json out/results/*.json | jq .byModel
   agent-session stats --html -o report.html out/results.jsonl`
	hasJSON := false
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			hasJSON = hasJSON || n == "json"
		}
	}
	if !hasJSON {
		cmd.Flags = append(cmd.Flags, &cli.BoolFlag{Name: "json", Usage: "print JSON even on a terminal"})
	}
	cmd.Flags = append(cmd.Flags,
		&cli.BoolFlag{Name: "html", Usage: "result files: one self-contained HTML page with plots"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "result files: write to `FILE` instead of stdout"})
	sessionStats := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		if c.NArg() == 1 && (c.Bool("html") || c.IsSet("output")) {
			if _, err := os.Stat(absPath(env, c.Args().First())); err != nil {
				return exit.Wrap(exit.Usage, err) // say "no such file", not "not a result file"
			}
		}
		o, err := resultStatsOptionsOf(c.Args().Slice(), c.Bool("json"), c.Bool("html"), c.String("output"),
			func(a string) bool { return isResultFile(absPath(env, a)) })
		if err != nil {
			return exit.Wrap(exit.Usage, err)
		}
		if !o.results {
			return sessionStats(c)
		}
		return resultStats(c, env, o)
	}
	return cmd
}

// resultStatsOptions is what stats does with result files.
type resultStatsOptions struct {
	results bool     // the arguments are result files (else: one session's stats)
	files   []string // as given
	format  string   // "table", "json" or "html"; "" for table on a terminal, JSON in a pipe
	output  string   // a file to write, "" for stdout
}

// resultStatsOptionsOf is the pure step from flags and arguments to options.
func resultStatsOptionsOf(args []string, asJSON, asHTML bool, output string, isResults func(string) bool) (resultStatsOptions, error) {
	o := resultStatsOptions{files: args, output: output}
	o.results = len(args) > 1 || (len(args) == 1 && isResults(args[0]))
	switch {
	case !o.results && (asHTML || output != ""):
		what := "no file given"
		if len(args) == 1 {
			what = args[0] + " is not a result file"
		}
		return o, fmt.Errorf("%s: --html and --output take result files (formats/task-result)", what)
	case asHTML && asJSON:
		return o, errors.New("choose one of --json, --html")
	case asHTML:
		o.format = "html"
	case asJSON:
		o.format = "json"
	}
	return o, nil
}

// resultStats reads the result files and writes the report.
func resultStats(c *cli.Context, env *app.Env, o resultStatsOptions) error {
	var rs []batch.Result
	var from []string // each result's file
	for _, a := range o.files {
		more, err := readResults(absPath(env, a), a)
		if err != nil {
			return &exit.Error{Code: exit.Usage, Err: err}
		}
		rs = append(rs, more...)
		for range more {
			from = append(from, absPath(env, a))
		}
	}
	rep := batch.Aggregate(rs)
	var out bytes.Buffer
	switch {
	case o.format == "html":
		page := batch.Page{Title: "Batch report", Generated: "generated " + env.Now().UTC().Format("2006-01-02 15:04 UTC"),
			Sources: o.files, Results: rs}
		page.Turns, page.Missing = sessionTurns(rs, from)
		page.Links = trajectories(rs, from, o.output, env)
		out.Write(batch.HTML(page))
	case o.format == "table" || (o.format == "" && env.StdoutTTY && o.output == ""):
		if err := batch.WriteTable(&out, rep, true); err != nil {
			return err
		}
	default:
		js, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		out.Write(append(js, '\n'))
	}
	if o.output != "" {
		return sessionstore.WriteFileAtomic(absPath(env, o.output), out.Bytes())
	}
	_, err := c.App.Writer.Write(out.Bytes())
	return err
}

// sessionTurns reads each result's session for its tokens per turn. A
// session path that is not there as written is looked for beside the
// results file (OUT/sessions/ID/ from OUT/results.jsonl or
// OUT/results/ID.json): results written on another host, or moved.
func sessionTurns(rs []batch.Result, from []string) ([]batch.Turns, []string) {
	var turns []batch.Turns
	var missing []string
	for i, r := range rs {
		l, err := loadFirst(sessionCandidates(r, from[i]))
		if err != nil {
			missing = append(missing, r.ID)
			continue
		}
		raws := make([][]byte, len(l.Entries))
		for j, e := range l.Entries {
			raws[j] = e.Raw
		}
		t := batch.Turns{ID: r.ID, Outcome: r.Outcome}
		for _, e := range usage.FromEntries("agentutils", "", raws) {
			t.Tokens = append(t.Tokens, e.Input+e.Output+e.CacheRead+e.CacheWrite)
		}
		turns = append(turns, t)
	}
	batch.SortTurns(turns)
	return turns, missing
}

// trajectories finds each task's HTML export that agent-batch writes
// (OUT/trajectories/ID.html beside OUT/results.jsonl or OUT/results/),
// as hrefs relative to the report written to output (absolute on stdout).
func trajectories(rs []batch.Result, from []string, output string, env *app.Env) map[string]string {
	links := map[string]string{}
	for i, r := range rs {
		dir := filepath.Dir(from[i])
		for _, p := range []string{filepath.Join(dir, "trajectories", r.ID+".html"), filepath.Join(dir, "..", "trajectories", r.ID+".html")} {
			if _, err := os.Stat(p); err != nil {
				continue
			}
			href := p
			if output != "" {
				if rel, err := filepath.Rel(filepath.Dir(absPath(env, output)), p); err == nil {
					href = filepath.ToSlash(rel)
				}
			}
			links[r.ID] = href
			break
		}
	}
	return links
}

func sessionCandidates(r batch.Result, resultsFile string) []string {
	if r.Session == "" {
		return nil
	}
	dir := filepath.Dir(resultsFile)
	base := filepath.Base(r.Session)
	out := []string{r.Session}
	if !filepath.IsAbs(r.Session) {
		out = []string{filepath.Join(dir, r.Session)}
	}
	return append(out, filepath.Join(dir, "sessions", r.ID, base), filepath.Join(dir, "..", "sessions", r.ID, base))
}

func loadFirst(paths []string) (*sessionstore.Loaded, error) {
	err := sessionstore.ErrNoSession
	for _, p := range paths {
		var l *sessionstore.Loaded
		if l, err = sessionstore.Load(p); err == nil {
			return l, nil
		}
	}
	return nil, err
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
