package main

import (
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/render"
)

// renderStream prints an event stream for people through lib/render, one
// write per event so a slow stream shows as it comes. Lines that are not
// events are reported and skipped; colour only on a terminal (or --color
// always), never with NO_COLOR.
//
// With colour, markdown and code are styled by agent-render (lib/render/rich,
// on goldmark and chroma), which this process becomes when it is installed
// beside agent-chat or on PATH: those libraries stay out of agent-chat's
// own start-up. Without it, or without colour, lib/render alone renders.
func renderStream(c *cli.Context, env *app.Env) error {
	color := env.Color(c.String("color"), env.StdoutTTY)
	if color && env.Getenv("AGENT_RENDER") != "builtin" {
		if bin := app.Sibling("agent-render"); bin != "" {
			argv := []string{bin, "--color", "always"}
			err := syscall.Exec(bin, argv, env.Environment())
			app.Warnf(c, "exec %s: %v (rendering without it)", bin, err)
		}
	}
	rd := render.New(render.Options{Width: env.Width(), Color: color, Now: time.Now})
	return rd.Copy(env.Stdout, env.Stdin, func(n int, err error) { app.Warnf(c, "stdin:%d: skipped: %v", n, err) })
}
