package main

import (
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/export"
)

func exportCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a session as markdown, JSON or one self-contained HTML file",
		ArgsUsage: "FILE",
		Description: `--md (the default) is a readable transcript of the active path; --json is
{"header","entries","leafId"} with every entry; --html is one file that opens offline in a browser:
messages, tool calls and results, thinking folded, and a tree to move between branches.

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
			s := export.Session{Header: l.header, LeafID: l.leaf()}
			for _, e := range l.entries {
				s.Entries = append(s.Entries, e.Raw)
			}
			var out []byte
			switch {
			case c.Bool("json"):
				out, err = export.JSON(s)
			case c.Bool("html"):
				out, err = export.HTML(s)
			default:
				out, err = export.Markdown(s)
			}
			if err != nil {
				return err
			}
			if o := c.String("output"); o != "" {
				return writeFileAtomic(absPath(env, o), out)
			}
			_, err = c.App.Writer.Write(out)
			return err
		},
	}
}
