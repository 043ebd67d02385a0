package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/configfile"
	"github.com/agentutils/agentutils/lib/config"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/permission"
	"github.com/agentutils/agentutils/lib/session"
)

// configFlags are agent-chat's flags that config.toml gives defaults for.
var configFlags = []string{"model", "thinking", "tools-cmd", "shell-env", "permission-mode", "allowed-tools", "disallowed-tools", "task-host"}

// applyConfig merges config.toml (user, project), AGENT_ variables and the
// flags. Values from a flag or a variable act as flags: they beat the
// session's model and thinking level. The files' model and level come after
// the session's (fileDefault); their tools command acts as --tools-cmd.
func applyConfig(c *cli.Context, env *app.Env) error {
	given := map[string][]string{}
	for _, n := range configFlags {
		if c.IsSet(n) {
			given[n] = []string{c.String(n)}
			if settingOf(keyOf(n)).List {
				given[n] = c.StringSlice(n)
			}
		}
	}
	cfg, err := configfile.Load(env.Dir, env.Getenv, given)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	for _, w := range cfg.Ignored {
		fmt.Fprintf(env.Stderr, "agent-chat: warning: %s\n", w)
	}
	if c.App.Metadata == nil {
		c.App.Metadata = map[string]any{}
	}
	c.App.Metadata["config"] = cfg
	for _, v := range []config.Value{cfg.Model(), cfg.Thinking(), cfg.ToolsCmd()} {
		fromFile := v.Source == config.User || v.Source == config.Project
		if v.Source == config.Env || (fromFile && v.Key == "toolsCmd") {
			for _, s := range v.Value {
				if err := c.Set(flagOf(v.Key), s); err != nil {
					return exit.Wrap(exit.Usage, err)
				}
			}
		}
	}
	if c.Bool("print-config") {
		return printConfig(env.Stdout, cfg, env.StdoutTTY && !c.Bool("json"))
	}
	return nil
}

func flagOf(key string) string { return settingOf(key).Flag }

// keyOf is the config.toml key of a flag.
func keyOf(flag string) string {
	for _, s := range config.Settings {
		if s.Flag == flag {
			return s.Key
		}
	}
	return ""
}

func settingOf(key string) config.Setting {
	s, _ := config.SettingOf(key)
	return s
}

// configPolicy is the permission policy of config.toml, AGENT_ variables
// and flags (--permission-mode, --allowed-tools, --disallowed-tools); nil
// when none of them is set: then no call is refused here.
func configPolicy(c *cli.Context) (*permission.Policy, error) {
	cfg, _ := c.App.Metadata["config"].(config.Config)
	p, err := cfg.Policy(c.Bool("person-approves"))
	if err != nil {
		return nil, exit.Wrap(exit.Usage, err)
	}
	return p, nil
}

// configShellEnv is shell.env, merged (--shell-env, AGENT_SHELL_ENV, the
// user's config.toml).
func configShellEnv(c *cli.Context) []string {
	cfg, _ := c.App.Metadata["config"].(config.Config)
	return cfg.ShellEnv()
}

// fileDefault is the value config.toml sets for key ("" when it comes from
// elsewhere: the flags and variables are already the flags).
func fileDefault(c *cli.Context, key string) string {
	cfg, _ := c.App.Metadata["config"].(config.Config)
	if v := cfg.Get(key); v.Source == config.User || v.Source == config.Project {
		return v.String()
	}
	return ""
}

// printConfig prints the merged settings: a table for people, else JSON
// lines {"key","value","source","where"} in Settings' order (value: a
// string or null, an array for a list: toolsCmd, shell.env).
func printConfig(w io.Writer, cfg config.Config, table bool) error {
	if table {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE\tWHERE")
		for _, v := range cfg.Values {
			val := strings.Join(v.Value, ", ")
			if n := len(v.Value); n > 3 { // a long list keeps the table readable; --json has it whole
				val = fmt.Sprintf("%s, … (%d in all)", strings.Join(v.Value[:3], ", "), n)
			}
			if val == "" {
				val = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Key, val, v.Source, v.Where)
		}
		tw.Flush()
		return exit.Silent(exit.OK)
	}
	enc := json.NewEncoder(w)
	for _, v := range cfg.Values {
		o := struct {
			Key    string `json:"key"`
			Value  any    `json:"value"`
			Source string `json:"source"`
			Where  string `json:"where,omitempty"`
		}{v.Key, v.Value, v.Source, v.Where}
		if settingOf(v.Key).List && v.Value == nil {
			o.Value = []string{}
		}
		if !settingOf(v.Key).List {
			o.Value = nil
			if len(v.Value) > 0 {
				o.Value = v.Value[0]
			}
		}
		if err := enc.Encode(o); err != nil {
			return err
		}
	}
	return exit.Silent(exit.OK)
}

// setsThinking says whether the session on stdin chose a thinking level
// (else config.toml's defaultThinkingLevel applies). Call it before the
// records are resolved.
func setsThinking(st *stream) bool { return session.SetsThinkingLevel(st.records) }
