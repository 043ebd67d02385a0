package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/configfile"
	isandbox "github.com/agentutils/agentutils/internal/sandbox"
	"github.com/agentutils/agentutils/internal/tools"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/sandbox"
)

// sandboxOf is the sandbox of a run: --sandbox, --sandbox-writable and
// --sandbox-net over config.toml's sandbox table. A mode the kernel cannot
// enforce, or a writable dir that does not exist, is a usage error: no
// call runs unconfined unless told so (--sandbox off, said on stderr).
func sandboxOf(c *cli.Context, env *app.Env) (*tools.Sandbox, error) {
	flags := map[string][]string{}
	if c.IsSet("sandbox") {
		flags["sandbox"] = []string{c.String("sandbox")}
	}
	if c.IsSet("sandbox-writable") {
		flags["sandbox-writable"] = c.StringSlice("sandbox-writable")
	}
	if c.IsSet("sandbox-net") {
		flags["sandbox-net"] = []string{fmt.Sprint(c.Bool("sandbox-net"))}
	}
	cfg, err := configfile.Load(env.Dir, env.Getenv, flags)
	if err != nil {
		return nil, exit.Wrap(exit.Usage, err)
	}
	sb := &tools.Sandbox{Mode: cfg.Get("sandbox.mode").String(), Net: cfg.Get("sandbox.net").String() == "true",
		Writable: cfg.Get("sandbox.writable").Value, Hide: cfg.Get("sandbox.hide").Value}
	if sb.Hide == nil {
		sb.Hide = []string{}
	}
	if sb.Mode == sandbox.Off {
		fmt.Fprintln(env.Stderr, "agent-tool: sandbox off: bash and what it starts run unconfined")
		return sb, nil
	}
	for _, d := range sb.Writable {
		p := d
		if strings.HasPrefix(p, "~/") || p == "~" {
			p = filepath.Join(env.Getenv("HOME"), p[1:])
		} else if !filepath.IsAbs(p) {
			p = filepath.Join(env.Dir, p)
		}
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			return nil, exit.Errorf(exit.Usage, "--sandbox-writable %s: not an existing directory", d)
		}
	}
	if err := isandbox.Check(); err != nil {
		return nil, exit.Errorf(exit.Usage, "cannot enforce --sandbox %s: %v; run with --sandbox off to go without one", sb.Mode, err)
	}
	return sb, nil
}
