package main

import (
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/exit"
)

func writeHTML(c *cli.Context, env *app.Env) error {
	return exit.Errorf(exit.Usage, "--html: not yet")
}
