package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/configfile"
	"github.com/agentutils/agentutils/internal/tui"
	"github.com/agentutils/agentutils/lib/config"
	"github.com/agentutils/agentutils/lib/exit"
)

// configure applies config.toml (user, project) and the AGENT_ variables
// under the flags, as agent-chat does (agent-chat --print-config shows the
// merge): the model and thinking level when no flag names them (a file's
// come after the session's), the tools command when --tools-cmd is
// not given, and the approval mode. It says whether to run without asking.
func configure(c *cli.Context, env *app.Env, a *tui.Config) (yes bool, err error) {
	given := map[string][]string{}
	for _, n := range []string{"model", "thinking", "models"} {
		if c.IsSet(n) {
			given[n] = []string{c.String(n)}
		}
	}
	if c.IsSet("allowed-tools") {
		given["allowed-tools"] = c.StringSlice("allowed-tools")
	}
	if c.IsSet("tools-cmd") {
		given["tools-cmd"] = c.StringSlice("tools-cmd")
	}
	if c.IsSet("yes") {
		given["yes"] = []string{"ask"}
		if c.Bool("yes") {
			given["yes"] = []string{"yes"}
		}
	}
	cfg, err := configfile.Load(env.Dir, env.Getenv, given)
	if err != nil {
		return false, exit.Wrap(exit.Usage, err)
	}
	for _, w := range cfg.Ignored {
		fmt.Fprintf(env.Stderr, "agent: warning: %s\n", w)
	}
	a.StatusLine = cfg.Get("statusLine").String()
	policy, err := cfg.Policy(true)
	if err != nil {
		return false, exit.Wrap(exit.Usage, err)
	}
	if policy != nil {
		a.Allow = policy.Allow
	}
	a.Models = cfg.Get("enabledModels").Value
	switch m := cfg.Model(); m.Source {
	case config.Env:
		a.Model = m.String()
	case config.User, config.Project:
		a.ConfigModel = m.String()
	}
	switch t := cfg.Thinking(); t.Source {
	case config.Env:
		a.Thinking = t.String()
	case config.User, config.Project:
		a.ConfigThinking = t.String()
	}
	if t := cfg.ToolsCmd(); t.Source == config.Env || t.Source == config.User {
		a.Stages.Tools = t.Value
	}
	return cfg.ApprovalMode().String() == "yes", nil
}
