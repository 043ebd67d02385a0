package main

import (
	"bufio"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/render"
)

// renderStream prints an event stream for people through lib/render, flushing
// after every event so a slow stream shows as it comes. Lines that are not
// events are reported and skipped; colour only on a terminal (or --color
// always), never with NO_COLOR.
func renderStream(c *cli.Context, env *app.Env) error {
	color := env.Color(c.String("color"), env.StdoutTTY)
	rd := render.New(render.Options{Width: env.Width(), Color: color, Now: time.Now})
	w := bufio.NewWriter(env.Stdout)
	r := bufio.NewReaderSize(env.Stdin, 256<<10)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return err
		}
		s, derr := rd.Event(line)
		if derr != nil {
			app.Warnf(c, "stdin:%d: skipped: %v", n, derr)
			continue
		}
		if s != "" {
			w.WriteString(s)
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
	w.WriteString(rd.Finish())
	if err := w.Flush(); err != nil {
		return err
	}
	if rd.Failed != 0 {
		return exit.Silent(exit.Failure)
	}
	return nil
}
