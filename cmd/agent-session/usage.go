package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/provider"
	"github.com/agentutils/agentutils/internal/recordlimit"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/transcript"
	"github.com/agentutils/agentutils/lib/usage"
)

func usageCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "usage",
		Usage: "total the tokens and cost of pi, oh-my-pi, Claude Code, Codex, Gemini CLI, opencode and agentutils sessions",
		Description: `Reads the session directories of pi (~/.pi/agent/sessions), oh-my-pi (~/.omp/agent/sessions),
Claude Code (~/.claude/projects and ~/.config/claude/projects, or $CLAUDE_CONFIG_DIR/projects),
Codex ($CODEX_HOME/sessions or ~/.codex/sessions), Gemini CLI (~/.gemini/tmp: the chats/ of each
project), opencode ($XDG_DATA_HOME/opencode/storage or ~/.local/share/opencode/storage: its
session/ files with their message/ and part/ directories) and agentutils
($XDG_DATA_HOME/agentutils/sessions) in place (nothing is written) and totals input, output,
cache read and cache write tokens and cost by day (local time), month, model or project (the
session's working directory; for Gemini CLI, the one .project_root names, else the name of its
directory under ~/.gemini/tmp). A response
without a cost of its own (Claude Code, Codex, Gemini CLI) is priced from the model catalog
(agent-chat --list-models; a models.toml adds prices); models the catalog lacks are listed as
unpriced. An API response read twice (Claude Code copies a resumed session's messages into the
new file; Gemini CLI keeps a migrated .json beside its .jsonl) counts once, as ccusage counts
it. A table on a terminal, JSON in a pipe or with --json. A directory flag given replaces that
agent's default; a missing default directory is skipped.

Examples:
   agent-session usage
   agent-session usage --by model --since 2026-01-01 --json | jq .total.cost
   agent-session usage --by project --timezone UTC --codex-dir none --pi-dir none`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "by", Value: "day", Usage: "group by day, month, model or project"},
			&cli.StringFlag{Name: "since", Usage: "only days from `YYYY-MM-DD` on"},
			&cli.StringFlag{Name: "until", Usage: "only days up to `YYYY-MM-DD`"},
			&cli.StringFlag{Name: "timezone", Usage: "days in time zone `NAME` (IANA, e.g. UTC; default local)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON even on a terminal"},
			&cli.StringSliceFlag{Name: "claude-dir", Usage: "Claude Code projects `DIR` (repeatable; none: skip)"},
			&cli.StringSliceFlag{Name: "codex-dir", Usage: "Codex sessions `DIR` (repeatable; none: skip)"},
			&cli.StringSliceFlag{Name: "pi-dir", Usage: "pi sessions `DIR` (repeatable; none: skip)"},
			&cli.StringSliceFlag{Name: "omp-dir", Usage: "oh-my-pi sessions `DIR` (repeatable; none: skip)"},
			&cli.StringSliceFlag{Name: "gemini-dir", Usage: "Gemini CLI `DIR` of project temp directories (repeatable; none: skip)"},
			&cli.StringSliceFlag{Name: "opencode-dir", Usage: "opencode storage `DIR` (repeatable; none: skip)"},
			&cli.StringSliceFlag{Name: "sessions-dir", Usage: "agentutils sessions `DIR` (repeatable; none: skip)"},
			&cli.StringFlag{Name: "models-file", Usage: "models.toml with prices (default $XDG_CONFIG_HOME/agentutils/models.toml)"},
		},
		Action: func(c *cli.Context) error {
			cat, err := provider.LoadCatalog(env.Abs(c.String("models-file")), env.Getenv)
			if err != nil {
				return err
			}
			loc := time.Local
			if tz := c.String("timezone"); tz != "" {
				if loc, err = time.LoadLocation(tz); err != nil {
					return exit.Errorf(exit.Usage, "--timezone: %v", err)
				}
			}
			opt := usage.Options{By: c.String("by"), Since: c.String("since"), Until: c.String("until"), Loc: loc,
				Price: usage.PriceFrom(cat.Models)}
			if _, err := usage.Aggregate(nil, opt); err != nil {
				return exit.Wrap(exit.Usage, err)
			}
			var entries []usage.Entry
			for _, src := range usageSources(c, env) {
				more, err := readAgentDirs(c, env, src)
				if err != nil {
					return err
				}
				entries = append(entries, more...)
			}
			rep, err := usage.Aggregate(entries, opt)
			if err != nil {
				return exit.Wrap(exit.Usage, err)
			}
			if env.StdoutTTY && !c.Bool("json") {
				return printUsage(c.App.Writer, rep)
			}
			return printJSON(c, rep)
		},
	}
}

// usageSource is one agent's session directories.
type usageSource struct {
	agent    string
	dirs     []string
	explicit bool // given by a flag: a missing one is an error
}

func usageSources(c *cli.Context, env *app.Env) []usageSource {
	home := env.Getenv("HOME")
	claude := []string{filepath.Join(home, ".config", "claude", "projects"), filepath.Join(home, ".claude", "projects")}
	if v := env.Getenv("CLAUDE_CONFIG_DIR"); v != "" {
		claude = nil
		for _, d := range strings.Split(v, ",") {
			if d = strings.TrimSpace(d); d != "" {
				claude = append(claude, filepath.Join(d, "projects"))
			}
		}
	}
	codex := filepath.Join(home, ".codex", "sessions")
	if v := env.Getenv("CODEX_HOME"); v != "" {
		codex = filepath.Join(v, "sessions")
	}
	data := env.Getenv("XDG_DATA_HOME")
	if data == "" {
		data = filepath.Join(home, ".local", "share")
	}
	defaults := []usageSource{
		{agent: "pi", dirs: []string{filepath.Join(home, ".pi", "agent", "sessions")}},
		{agent: "omp", dirs: []string{filepath.Join(home, ".omp", "agent", "sessions")}},
		{agent: "claude", dirs: claude},
		{agent: "codex", dirs: []string{codex}},
		{agent: "gemini", dirs: []string{filepath.Join(home, ".gemini", "tmp")}},
		{agent: "opencode", dirs: []string{filepath.Join(data, "opencode", "storage")}},
		{agent: "agentutils", dirs: []string{dirs.Resolve(env.Getenv).Sessions()}},
	}
	flags := map[string]string{"pi": "pi-dir", "omp": "omp-dir", "claude": "claude-dir", "codex": "codex-dir", "gemini": "gemini-dir",
		"opencode": "opencode-dir", "agentutils": "sessions-dir"}
	for i, s := range defaults {
		if given := c.StringSlice(flags[s.agent]); len(given) > 0 {
			s.dirs, s.explicit = nil, true
			for _, d := range given {
				if d != "none" {
					s.dirs = append(s.dirs, env.Abs(d))
				}
			}
			defaults[i] = s
		}
	}
	return defaults
}

// readAgentDirs reads every transcript under an agent's directories.
func readAgentDirs(c *cli.Context, env *app.Env, src usageSource) ([]usage.Entry, error) {
	var out []usage.Entry
	for _, dir := range src.dirs {
		if _, err := os.Stat(dir); err != nil {
			if !src.explicit && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, exit.Wrap(exit.Usage, err)
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real // a symlinked ~/.claude/projects: walk where it points
		}
		files, err := usageFiles(src.agent, dir)
		if err != nil {
			return nil, exit.Wrap(exit.Usage, err)
		}
		// files are read in parallel; their entries are kept in file order,
		// so the first reading of a response is the same on every run
		got := make([][]usage.Entry, len(files))
		errs := make([]error, len(files))
		next := make(chan int)
		var wg sync.WaitGroup
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var buf []byte // a worker's read buffer, reused from file to file
				for i := range next {
					if src.agent == "claude" {
						got[i], buf, errs[i] = readClaudeUsage(c, dir, files[i], buf)
						continue
					}
					got[i], errs[i] = readUsageFile(c, src.agent, dir, files[i])
				}
			}()
		}
		for i := range files {
			next <- i
		}
		close(next)
		wg.Wait()
		for i := range files {
			if errs[i] != nil {
				return nil, errs[i]
			}
			out = append(out, got[i]...)
		}
	}
	return out, nil
}

// usageFiles lists an agent's session files under dir, in name order:
// opencode's session info files (storage/session/<project>/*.json; their
// messages are read beside), Gemini CLI's chat recordings (<project
// directory>/chats/, sub-agents' too), every other agent's JSONL files.
func usageFiles(agent, dir string) ([]string, error) {
	if agent == "opencode" {
		return filepath.Glob(filepath.Join(dir, "session", "*", "*.json"))
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n := d.Name()
		switch {
		case agent == "gemini":
			if (strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".jsonl")) && strings.Contains(p, string(filepath.Separator)+"chats"+string(filepath.Separator)) {
				files = append(files, p)
			}
		case strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".jsonl.zst") || strings.HasSuffix(n, ".jsonl.gz"):
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// readClaudeUsage reads one Claude Code transcript by the fast path
// (usage.FromClaude: the importer's totals without building messages)
// into buf, which it returns for the next file.
func readClaudeUsage(c *cli.Context, dir, path string, buf []byte) ([]usage.Entry, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, buf, err
	}
	defer f.Close()
	var data []byte
	st, err := f.Stat()
	if err == nil && st.Mode().IsRegular() && st.Size() > 0 {
		// read into buf, grown to the file's size once, and kept for the next file
		if int64(cap(buf)) < st.Size()+1 {
			buf = make([]byte, 0, st.Size()+512)
		}
		w := bytes.NewBuffer(buf[:0])
		_, err = w.ReadFrom(sessionstore.BoundLines(f, path))
		data, buf = w.Bytes(), w.Bytes()[:0]
	} else { // a device, a pipe (no size to read to)
		data, err = recordlimit.ReadAll(f, path, sessionstore.MaxRecord)
	}
	if err != nil {
		if exit.Code(err) == exit.Usage { // a line over the record limit: this file only
			fmt.Fprintf(c.App.ErrWriter, "agent-session usage: skipped %v\n", err)
			return nil, buf, nil
		}
		return nil, buf, fmt.Errorf("%s: %v", path, err)
	}
	if data, err = gunzipped(data, path); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "agent-session usage: skipped %v\n", err)
		return nil, buf, nil
	}
	entries, problems := usage.FromClaude(data, projectOf(dir, path))
	for _, p := range problems {
		fmt.Fprintf(c.App.ErrWriter, "agent-session usage: %s:%d: skipped: %v\n", path, p.Line, p.Err)
	}
	return entries, buf, nil
}

// readUsageFile reads one pi, oh-my-pi, agentutils, Codex, Gemini CLI or
// opencode transcript through the reader or importer of its format;
// lines that cannot be read are reported on stderr and skipped.
func readUsageFile(c *cli.Context, agent, dir, path string) ([]usage.Entry, error) {
	if agent == "pi" || agent == "omp" || agent == "agentutils" {
		l, err := loadUsageSession(path)
		if err != nil {
			if errors.Is(err, sessionstore.ErrNoSession) {
				return nil, nil
			}
			fmt.Fprintf(c.App.ErrWriter, "agent-session usage: skipped %v\n", err)
			return nil, nil
		}
		warnProblems(c, path, l.Problems)
		raws := make([][]byte, len(l.Entries))
		for i, e := range l.Entries {
			raws[i] = e.Raw
		}
		return usage.FromEntries(agent, l.Hdr.Cwd, raws), nil
	}
	data, err := readGunzipped(path)
	if err != nil {
		if exit.Code(err) == exit.Usage {
			fmt.Fprintf(c.App.ErrWriter, "agent-session usage: skipped %v\n", err)
			return nil, nil
		}
		return nil, err
	}
	n := 0
	newID := func() string { n++; return fmt.Sprintf("%08x", n) }
	opt := transcript.Options{NewID: newID, Cwd: projectOf(dir, path)}
	res, err := convertTranscript(agent, path, data, opt) // Claude Code's: readClaudeUsage
	if errors.Is(err, errStorage) {
		fmt.Fprintf(c.App.ErrWriter, "agent-session usage: skipped %v\n", err)
		return nil, nil
	}
	if err != nil {
		return nil, nil // no messages: nothing to count
	}
	for _, p := range res.Problems {
		fmt.Fprintf(c.App.ErrWriter, "agent-session usage: %s:%d: skipped: %v\n", path, p.Line, p.Err)
	}
	var out []usage.Entry
	for _, s := range res.Sessions {
		out = append(out, usage.FromEntries(agent, s.Header.Cwd, s.Entries)...)
	}
	return out, nil
}

// projectOf is the project of a transcript without a cwd: its directory
// under the agent's root (Claude Code's project directory name).
func projectOf(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return ""
	}
	if i := strings.IndexByte(rel, filepath.Separator); i > 0 {
		return rel[:i]
	}
	return ""
}

// printUsage is the report for people.
func printUsage(w io.Writer, rep usage.Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := len(rep.By) // the key column is left-aligned: padded here, as tabwriter aligns all or none
	for _, r := range rep.Rows {
		width = max(width, len(r.Key))
	}
	fmt.Fprintf(tw, "%-*s\t  agents\tinput\toutput\tcache read\tcache write\ttotal tokens\tcost\t\n", width, rep.By)
	row := func(r usage.Row) {
		fmt.Fprintf(tw, "%-*s\t  %s\t%s\t%s\t%s\t%s\t%s\t$%.2f\t\n", width, r.Key, strings.Join(r.Agents, ","), usage.Thousands(r.Input), usage.Thousands(r.Output),
			usage.Thousands(r.CacheRead), usage.Thousands(r.CacheWrite), usage.Thousands(r.TotalTokens), r.Cost)
	}
	for _, r := range rep.Rows {
		row(r)
	}
	row(rep.Total)
	if err := tw.Flush(); err != nil {
		return err
	}
	if rep.Duplicates > 0 {
		fmt.Fprintf(w, "%d responses read twice were counted once.\n", rep.Duplicates)
	}
	if len(rep.Unpriced) > 0 {
		fmt.Fprintf(w, "unpriced (not in the model catalog): %s\n", strings.Join(rep.Unpriced, ", "))
	}
	return nil
}

// loadUsageSession loads a pi or agentutils session file for usage; a
// gzipped one (an archive, "*.jsonl.gz", which the walk lists) is read
// decompressed, as transcripts are.
func loadUsageSession(path string) (*sessionstore.Loaded, error) {
	if !strings.HasSuffix(path, ".gz") {
		return sessionstore.Load(path)
	}
	data, err := readGunzipped(path)
	if err != nil {
		return nil, err
	}
	return sessionstore.Parse(path, data)
}
