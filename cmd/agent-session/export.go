package main

import (
	"bytes"
	"fmt"
	"os/exec"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/export"
)

func exportCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a session as markdown, JSON or one self-contained HTML file",
		ArgsUsage: "FILE",
		Description: `--md (the default) is a readable transcript of the active path; --json is
{"header","entries","leafId","tree"} with every entry ("tree" flat in depth-first order, as
open --tree prints it: however long a session, no deeper than one level), and "subagents": the same document of each
sub-agent's session a task result names, by its file; --html is one file that opens offline in a browser:
a header with the date, models, message counts, tokens and cost; markdown rendered and code
highlighted; tool calls with their output folded after 20 lines ("show all"), edits as diffs;
buttons (keys t, o) that hide thinking and tools; a search box; and the session tree as it
branches, labels and the active path marked, where a click shows that branch; a task call holds
its sub-agent's conversation, folded. Markdown and
highlighting are done by agent-render (on goldmark and chroma, which agent-session does not
link) when it is installed beside agent-session or on PATH; without it the page shows the
markdown as written. AGENT_RENDER=builtin forces the latter.

Examples:
   agent-session export s.jsonl > transcript.md
   agent-session export --html -o session.html s.jsonl`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "md", Usage: "markdown transcript (default)"},
			&cli.BoolFlag{Name: "json", Usage: "JSON document with every entry"},
			&cli.BoolFlag{Name: "html", Usage: "self-contained HTML page"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
		},
		Action: func(c *cli.Context) error {
			path, err := needPath(c, env, "FILE")
			if err != nil {
				return err
			}
			n := 0
			for _, f := range []string{"md", "json", "html"} {
				if c.Bool(f) {
					n++
				}
			}
			if n > 1 {
				return exit.Errorf(exit.Usage, "choose one of --md, --json, --html")
			}
			l, err := loadExisting(c, path)
			if err != nil {
				return err
			}
			s := exportSession(c, l, map[string]bool{path: true})
			var out []byte
			switch {
			case c.Bool("json"):
				out, err = export.JSON(s)
			case c.Bool("html"):
				out, err = exportHTML(c, env, s)
			default:
				out, err = export.Markdown(s)
			}
			if err != nil {
				return err
			}
			if o := c.String("output"); o != "" {
				return sessionstore.WriteFileAtomic(absPath(env, o), out)
			}
			_, err = c.App.Writer.Write(out)
			return err
		},
	}
}

// exportHTML hands the page to agent-render --html (the JSON document on
// its stdin) when it is installed, else draws it without markdown
// rendering or highlighting.
func exportHTML(c *cli.Context, env *app.Env, s export.Session) ([]byte, error) {
	bin := app.Sibling("agent-render")
	if bin == "" || env.Getenv("AGENT_RENDER") == "builtin" {
		return export.HTML(s)
	}
	doc, err := export.JSON(s)
	if err != nil {
		return nil, err
	}
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(c.Context, bin, "--html")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(doc), &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s --html: %v: %s", bin, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out.Bytes(), nil
}

// exportSession is a loaded file as lib/export takes it, with the
// sessions of its sub-agents (the files its task results name, and
// theirs; seen guards against a loop); a sub-agent's file that cannot be
// read is a warning.
func exportSession(c *cli.Context, l *sessionstore.Loaded, seen map[string]bool) export.Session {
	s := export.Session{Header: l.Header, LeafID: l.Leaf()}
	for _, e := range l.Entries {
		s.Entries = append(s.Entries, e.Raw)
		f := subagentFile(e)
		if f == "" || seen[f] {
			continue
		}
		seen[f] = true
		sub, err := sessionstore.Load(f)
		if err != nil {
			app.Warnf(c, "sub-agent session %s: %v", f, err)
			continue
		}
		if s.Subagents == nil {
			s.Subagents = map[string]export.Session{}
		}
		s.Subagents[f] = exportSession(c, sub, seen)
	}
	return s
}
