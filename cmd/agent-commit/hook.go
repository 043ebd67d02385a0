package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/exit"
)

// hookMarker identifies scripts we wrote; uninstall removes only these.
const hookMarker = "# installed by agent-commit hook install"

// hookNames are the hooks agent-commit can run. prepare-commit-msg is not
// offered until message generation exists: an installed hook that does
// nothing would only mislead.
var hookNames = []string{"commit-msg"}

func hookCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "hook",
		Usage: "install, uninstall or run agent-commit's git hooks",
		Description: "install writes a small #!/bin/sh script into the hooks directory (git rev-parse --git-path hooks, " +
			"so core.hooksPath is honoured). An existing hook that is not ours is kept as NAME.agent-commit-chained " +
			"and run first; uninstall removes only our scripts and puts a chained hook back.\n\n" +
			"Examples:\n\n" +
			"   agent-commit hook install\n" +
			"   agent-commit hook uninstall\n" +
			"   agent-commit hook run commit-msg .git/COMMIT_EDITMSG   # for husky, lefthook, pre-commit",
		Subcommands: []*cli.Command{
			{
				Name:  "install",
				Usage: "install the commit-msg hook (lints each message; blocks only on errors)",
				Action: func(c *cli.Context) error {
					dir, err := hooksDir(c, env)
					if err != nil {
						return err
					}
					if err := os.MkdirAll(dir, 0o755); err != nil {
						return err
					}
					for _, name := range hookNames {
						if err := installHook(dir, name); err != nil {
							return err
						}
						fmt.Fprintf(env.Stderr, "agent-commit: installed %s\n", filepath.Join(dir, name))
					}
					return nil
				},
			},
			{
				Name:  "uninstall",
				Usage: "remove agent-commit's hooks and restore chained ones",
				Action: func(c *cli.Context) error {
					dir, err := hooksDir(c, env)
					if err != nil {
						return err
					}
					for _, name := range hookNames {
						p := filepath.Join(dir, name)
						data, err := os.ReadFile(p)
						if err != nil || !bytes.Contains(data, []byte(hookMarker)) {
							continue
						}
						if err := os.Remove(p); err != nil {
							return err
						}
						if _, err := os.Stat(p + chainSuffix); err == nil {
							if err := os.Rename(p+chainSuffix, p); err != nil {
								return err
							}
						}
						fmt.Fprintf(env.Stderr, "agent-commit: removed %s\n", p)
					}
					return nil
				},
			},
			{
				Name:      "run",
				Usage:     "run a hook: commit-msg FILE",
				ArgsUsage: "NAME ARGS...",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "profile", Usage: "lint profile: conventional or strict", Value: "conventional"},
				},
				Action: func(c *cli.Context) error {
					switch c.Args().First() {
					case "commit-msg":
						if c.NArg() != 2 {
							return exit.Errorf(exit.Usage, "commit-msg takes the message FILE")
						}
						if code := app.Run(c.Context, newApp, env, []string{"agent-commit", "lint", "--profile", c.String("profile"), c.Args().Get(1)}); code != 0 {
							return exit.Silent(code)
						}
						return nil
					case "":
						return exit.Errorf(exit.Usage, "hook run needs a hook NAME")
					default:
						return exit.Errorf(exit.Usage, "unknown hook %q (have: %s)", c.Args().First(), strings.Join(hookNames, ", "))
					}
				},
			},
		},
	}
}

const chainSuffix = ".agent-commit-chained"

func hooksDir(c *cli.Context, env *app.Env) (string, error) {
	out, err := git(c.Context, env, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	return abs(env, strings.TrimSpace(out)), nil
}

func installHook(dir, name string) error {
	p := filepath.Join(dir, name)
	data, err := os.ReadFile(p)
	if err == nil && !bytes.Contains(data, []byte(hookMarker)) {
		// A foreign hook: keep it, and chain it before ours.
		if _, err := os.Stat(p + chainSuffix); err == nil {
			return exit.Errorf(exit.Failure, "%s and %s both exist; remove one first", p, p+chainSuffix)
		}
		if err := os.Rename(p, p+chainSuffix); err != nil {
			return err
		}
	}
	bin, err := os.Executable()
	if err != nil || bin == "" {
		bin = "agent-commit"
	}
	if _, err := exec.LookPath("agent-commit"); err == nil {
		bin = "agent-commit"
	}
	script := fmt.Sprintf(`#!/bin/sh
%s
chained="$0%s"
if [ -x "$chained" ]; then "$chained" "$@" || exit $?; fi
exec %s hook run %s "$@"
`, hookMarker, chainSuffix, shellQuote(bin), name)
	return os.WriteFile(p, []byte(script), 0o755)
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
