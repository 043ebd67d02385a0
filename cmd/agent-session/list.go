package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/humantime"
	"github.com/agentutils/agentutils/lib/session"
)

func listCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the sessions of this directory (or all), newest first",
		Description: `Prints one JSON object per session: path, id, cwd, title, parentSession, created,
modified, messageCount, firstMessage. Sessions without messages are left out. On a terminal it
prints a table instead (--json forces JSON lines).

Examples:
   agent-session list
   agent-session list --all --search parser | jq -r .path`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "every session of every directory"},
			&cli.StringFlag{Name: "cwd", Usage: "list the sessions of `DIR` (default: the working directory)"},
			&cli.IntFlag{Name: "recent", Usage: "only the `N` most recent"},
			&cli.StringFlag{Name: "search", Usage: "only sessions whose user or assistant text contains `TEXT` (case-insensitive)"},
			&cli.BoolFlag{Name: "json", Usage: "JSON lines even on a terminal"},
		},
		Action: func(c *cli.Context) error {
			cwd := cwdFlag(c, env)
			var infos []sessionInfo
			var err error
			if c.Bool("all") {
				infos, err = scanSessions(c, []string{dirs.Resolve(env.Getenv).Sessions()}, true)
			} else {
				infos, err = scanSessions(c, sessionDirsFor(env, cwd), false)
			}
			if err != nil {
				return err
			}
			var out []sessionInfo
			q := strings.ToLower(c.String("search"))
			for _, in := range infos {
				if in.MessageCount == 0 {
					continue
				}
				if q != "" && !strings.Contains(strings.ToLower(in.text), q) {
					continue
				}
				out = append(out, in)
			}
			if n := c.Int("recent"); n > 0 && len(out) > n {
				out = out[:n]
			}
			if env.StdoutTTY && !c.Bool("json") {
				return printTable(c, env, out)
			}
			for _, in := range out {
				if err := printJSON(c, in); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// sessionInfo is one line of `list`.
type sessionInfo struct {
	Path          string `json:"path"`
	ID            string `json:"id"`
	Cwd           string `json:"cwd"`
	Title         string `json:"title,omitempty"`
	ParentSession string `json:"parentSession,omitempty"`
	Created       string `json:"created"`
	Modified      string `json:"modified"`
	MessageCount  int    `json:"messageCount"`
	FirstMessage  string `json:"firstMessage"`
	text          string
	mtime         time.Time
}

func isSessionFile(name string) bool {
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".jsonl.zst")
}

// scanSessions reads every session file in dirs (recursively when deep),
// newest first by mtime. Unreadable files are reported and skipped.
func scanSessions(c *cli.Context, roots []string, deep bool) ([]sessionInfo, error) {
	var infos []sessionInfo
	seen := map[string]bool{}
	add := func(path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		st, err := os.Stat(path)
		if err != nil {
			return
		}
		l, err := sessionstore.Load(path)
		if err != nil {
			if !errors.Is(err, sessionstore.ErrNoSession) {
				app.Warnf(c, "%v", err)
			}
			return
		}
		s := session.Summarize(l.Header, l.Entries)
		infos = append(infos, sessionInfo{
			Path: path, ID: s.ID, Cwd: s.Cwd, Title: s.Title, ParentSession: s.ParentSession,
			Created: s.Created, Modified: st.ModTime().UTC().Format(time.RFC3339Nano),
			MessageCount: s.MessageCount, FirstMessage: s.FirstMessage, text: s.AllMessagesText,
			mtime: st.ModTime(),
		})
	}
	for _, root := range roots {
		if deep {
			filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && isSessionFile(d.Name()) {
					add(p)
				}
				return nil
			})
			continue
		}
		ents, err := os.ReadDir(root)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.IsDir() && isSessionFile(e.Name()) {
				add(filepath.Join(root, e.Name()))
			}
		}
	}
	sort.SliceStable(infos, func(i, j int) bool {
		if !infos[i].mtime.Equal(infos[j].mtime) {
			return infos[i].mtime.After(infos[j].mtime)
		}
		return infos[i].Path > infos[j].Path
	})
	return infos, nil
}

func printTable(c *cli.Context, env *app.Env, infos []sessionInfo) error {
	tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODIFIED\tMSGS\tID\tTITLE")
	now := env.Now()
	for _, in := range infos {
		name := in.Title
		if name == "" {
			name = in.FirstMessage
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", humantime.Since(now, in.mtime), in.MessageCount, in.ID, oneLine(name, 60))
	}
	return tw.Flush()
}

// oneLine is the first line of s without control characters, at most n runes.
func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	s = strings.Map(func(r rune) rune {
		if r == '\t' { // a separator ("ok\tdemo\t0.003s"), not to be glued away
			return ' '
		}
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
