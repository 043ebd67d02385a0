// Package flags holds the sandbox flags of agent-tool and of the commands
// that pass them to it; apart from internal/sandbox, whose helper must
// start before the CLI packages initialize.
package flags

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/lib/sandbox"
)

// Flags are the sandbox flags of agent-tool, and of the commands that
// pass them through to it (agent-chat, run-task, agent-mcp serve).
func Flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "sandbox", Value: sandbox.WorkspaceWrite,
			Usage: "confine what bash runs, by the kernel: `MODE` workspace-write (writes under --root, else the working dir, the private TMPDIR and the build caches), read-only (writes only to the private TMPDIR; the file tools refuse to change files) or off (default $AGENT_SANDBOX, else config.toml's sandbox.mode, else workspace-write)"},
		&cli.StringSliceFlag{Name: "sandbox-writable", Usage: "another `DIR` the sandbox may write (it must exist); repeatable"},
		&cli.BoolFlag{Name: "sandbox-net", Usage: "keep the network inside the sandbox (default: no IPv4/IPv6 sockets)"},
	}
}

// PassArgs are agent-tool's arguments for the sandbox flags given to c
// (none when none were given: agent-tool then reads config.toml and
// $AGENT_SANDBOX itself), a relative writable dir made absolute from dir;
// an unknown mode is an error.
func PassArgs(c *cli.Context, dir string) ([]string, error) {
	var args []string
	if c.IsSet("sandbox") {
		m := c.String("sandbox")
		if !slices.Contains(sandbox.Modes, m) {
			return nil, fmt.Errorf("--sandbox: must be one of %s, not %q", strings.Join(sandbox.Modes, ", "), m)
		}
		args = append(args, "--sandbox", m)
	}
	for _, d := range c.StringSlice("sandbox-writable") {
		if !filepath.IsAbs(d) && d != "~" && !strings.HasPrefix(d, "~/") {
			d = filepath.Join(dir, d)
		}
		args = append(args, "--sandbox-writable", d)
	}
	if c.Bool("sandbox-net") {
		args = append(args, "--sandbox-net")
	}
	return args, nil
}

// PassTo appends args, shell-quoted, to a tool command line that runs
// agent-tool (its first word); other commands are returned as they are.
func PassTo(command string, args []string) string {
	f := strings.Fields(command)
	if len(args) == 0 || len(f) == 0 || (f[0] != "agent-tool" && !strings.HasSuffix(f[0], "/agent-tool")) {
		return command
	}
	for _, a := range args {
		command += " '" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return command
}
