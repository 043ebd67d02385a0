package main

import (
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
)

func newApp(env *app.Env) *cli.App {
	return &cli.App{
		Name:  "agent-session",
		Usage: "create, open, append to and inspect agent session files",
		Description: "agent-session keeps conversations as append-only JSON Lines files in pi's session format (version 3): " +
			"a header line, then entries that form a tree through id/parentId.",
	}
}
