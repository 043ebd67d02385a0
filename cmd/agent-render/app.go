package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/recordlimit"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/render"
	"github.com/agentutils/agentutils/lib/render/rich"
)

func newApp(env *app.Env) *cli.App {
	return &cli.App{
		Name:  "agent-render",
		Usage: "show an agent event stream or a session to people",
		Description: `agent-render reads the agent event stream (agent-chat's stdout, formats/events) on stdin and
prints it for a person as each event arrives: text as it streams with its markdown styled a line at
a time (headings, emphasis, lists, tables, code blocks highlighted), thinking dimmed, one header per
tool call ("$ cmd", "read path:lines", "edit path") with the last lines of its output, "… N more
lines" and the time it took, edits as unified diffs (red and green, the changed words marked),
errors in red, and the tokens and cost at the end. Colour and width come from the terminal;
NO_COLOR, TERM=dumb or a pipe give plain text (the markdown as written).

'agent-chat --render' becomes agent-render when it colours and agent-render is installed beside it
or on PATH; agent-render exists so that the markdown and highlighting libraries are linked here and
not into the pipeline commands.

With --html it reads the JSON document of 'agent-session export --json' instead and writes one
self-contained HTML page (what 'agent-session export --html' runs when agent-render is installed).

A line (one event or record) longer than 256 MiB is bad input (exit 2) naming its offset;
AGENTUTILS_MAX_RECORD sets the limit (bytes, or with a K, M or G suffix).

Exit codes: 0 shown; 1 the stream carried an error record; 2 bad input (--html, a line over the
limit).

Examples:
   agent-session open "$S" | agent-chat "explain main.go" | agent-session append "$S" --tee | agent-render
   agent-render --color never < events.jsonl
   agent-session export --json "$S" | agent-render --html -o chat.html`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "color", Value: "auto", Usage: "colour: auto, always or never"},
			&cli.IntFlag{Name: "width", Usage: "lay text out in `COLUMNS` (default: the terminal's, else $COLUMNS, else 80)"},
			&cli.IntFlag{Name: "tool-lines", Value: 5, Usage: "show the last `N` lines of a tool's output"},
			&cli.BoolFlag{Name: "html", Usage: "read 'agent-session export --json' and write a self-contained HTML page"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the HTML page to `FILE` (default: stdout)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return exit.Errorf(exit.Usage, "unexpected argument %q", c.Args().First())
			}
			if c.Bool("html") {
				return writeHTML(c, env)
			}
			return renderEvents(c, env)
		},
	}
}

func renderEvents(c *cli.Context, env *app.Env) error {
	width := c.Int("width")
	if width <= 0 {
		width = env.Width()
	}
	lines := c.Int("tool-lines")
	if lines == 0 {
		lines = -1
	}
	rd := render.New(render.Options{
		Width: width, Color: env.Color(c.String("color"), env.StdoutTTY),
		Styler: rich.Terminal{}, Now: time.Now, ToolLines: lines,
	})
	limit, err := recordlimit.FromEnv(env.Getenv)
	if err != nil {
		return err
	}
	return rd.Copy(env.Stdout, recordlimit.Reader(env.Stdin, "stdin", limit), func(n int, err error) { app.Warnf(c, "stdin:%d: skipped: %v", n, err) })
}
