package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/internal/recordlimit"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/export"
	"github.com/agentutils/agentutils/lib/render/rich"
)

// writeHTML reads the document of 'agent-session export --json' and writes
// the page with markdown rendered and code highlighted.
func writeHTML(c *cli.Context, env *app.Env) error {
	limit, err := recordlimit.FromEnv(env.Getenv)
	if err != nil {
		return err
	}
	data, err := recordlimit.ReadAll(env.Stdin, "stdin", limit)
	if err != nil {
		return err
	}
	s, err := export.ParseJSON(data)
	if err != nil {
		return exit.Errorf(exit.Usage, "stdin: not the JSON of 'agent-session export --json': %v", err)
	}
	out, err := export.HTMLWith(s, HTMLOptions())
	if err != nil {
		return exit.Wrap(exit.Usage, fmt.Errorf("stdin: %w", err))
	}
	if o := c.String("output"); o != "" {
		return atomicfile.Write(env.Abs(o), out, 0o644)
	}
	_, err = env.Stdout.Write(out)
	return err
}

// HTMLOptions are lib/export's hooks filled by lib/render/rich.
func HTMLOptions() export.HTMLOptions {
	return export.HTMLOptions{Markdown: rich.MarkdownHTML, Highlight: rich.HighlightHTML, LangOf: rich.LangOf, CSS: rich.CSS()}
}
