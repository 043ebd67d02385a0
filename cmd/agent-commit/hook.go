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
	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/lib/exit"
)

// hookMarker identifies scripts we wrote; uninstall removes only these.
const hookMarker = "# installed by agent-commit hook install"

// hookNames are the hooks agent-commit can run.
var hookNames = []string{"prepare-commit-msg", "commit-msg"}

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
		Subcommands: []*cli.Command{hookInstallCommand(env), hookUninstallCommand(env), hookRunCommand(env)},
	}
}

func hookInstallCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name: "install",
		Usage: "install prepare-commit-msg (proposes a message from the model; never blocks) and " +
			"commit-msg (lints the message; blocks only on errors)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "prepare-commit-msg", Usage: "install only the prepare-commit-msg hook"},
			&cli.BoolFlag{Name: "commit-msg", Usage: "install only the commit-msg hook"},
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model `PATTERN` the prepare-commit-msg hook uses"},
		},
		Action: func(c *cli.Context) error {
			dir, err := hooksDir(c, env)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			names := hookNames
			switch {
			case c.Bool("prepare-commit-msg") && !c.Bool("commit-msg"):
				names = []string{"prepare-commit-msg"}
			case c.Bool("commit-msg") && !c.Bool("prepare-commit-msg"):
				names = []string{"commit-msg"}
			}
			for _, name := range names {
				extra := ""
				if m := c.String("model"); m != "" && name == "prepare-commit-msg" {
					extra = " --model " + shellQuote(m)
				}
				if err := installHook(dir, name, extra); err != nil {
					return err
				}
				fmt.Fprintf(env.Stderr, "agent-commit: installed %s\n", filepath.Join(dir, name))
			}
			return nil
		},
	}
}

func hookUninstallCommand(env *app.Env) *cli.Command {
	return &cli.Command{
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
	}
}

func hookRunCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run a hook: commit-msg FILE, or prepare-commit-msg FILE [SOURCE [SHA]]",
		ArgsUsage: "NAME ARGS...",
		Description: "prepare-commit-msg writes the proposed message above the file's content (git's comments) and " +
			"always exits 0: on any failure it warns and leaves the file alone. It does nothing for -m/-F, " +
			"merges, squashes, amends (SOURCE message, merge, squash, commit, template), when " +
			"AGENT_COMMIT_SKIP=1, or inside agent-commit's own commits (AGENT_COMMIT_ACTIVE=1).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "profile", Usage: "lint profile: conventional or strict", Value: "conventional"},
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model `PATTERN` for prepare-commit-msg"},
			&cli.StringFlag{Name: "replay", Usage: "prepare-commit-msg answers from cassette `FILE` (tests, offline use)"},
		},
		Action: func(c *cli.Context) error {
			switch c.Args().First() {
			case "prepare-commit-msg":
				if c.NArg() < 2 || c.NArg() > 4 {
					return exit.Errorf(exit.Usage, "prepare-commit-msg takes FILE [SOURCE [SHA]]")
				}
				prepareCommitMsg(c, env, c.Args().Get(1), c.Args().Get(2))
				return nil
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

// prepareCommitMsg proposes a message; it never fails the commit.
func prepareCommitMsg(c *cli.Context, env *app.Env, file, source string) {
	if env.Getenv("AGENT_COMMIT_SKIP") == "1" || env.Getenv("AGENT_COMMIT_ACTIVE") == "1" {
		return
	}
	switch source {
	case "message", "merge", "squash", "commit", "template":
		return
	}
	warn := func(format string, args ...any) {
		fmt.Fprintf(env.Stderr, "agent-commit: prepare-commit-msg: %s (message left alone)\n", fmt.Sprintf(format, args...))
	}
	args := []string{"agent-commit", "msg", "--profile", c.String("profile")}
	if m := c.String("model"); m != "" {
		args = append(args, "--model", m)
	}
	if r := c.String("replay"); r != "" {
		args = append(args, "--replay", r)
	}
	var out, errb bytes.Buffer
	sub := *env
	sub.Stdout, sub.Stderr, sub.Stdin = &out, &errb, strings.NewReader("")
	if code := app.Run(c.Context, newApp, &sub, args); code != 0 {
		warn("%s", strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(errb.String()), "agent-commit: ")))
		return
	}
	path := abs(env, file)
	old, err := os.ReadFile(path)
	if err != nil {
		warn("%v", err)
		return
	}
	text := strings.TrimRight(out.String(), "\n") + "\n"
	if len(old) > 0 && old[0] != '\n' {
		text += "\n"
	}
	if err := atomicfile.Write(path, []byte(text+string(old)), 0o644); err != nil {
		warn("%v", err)
	}
}

func installHook(dir, name, extra string) error {
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
	// The absolute path, so the hook works where agent-commit is not on
	// PATH (a GUI git client); if that binary is gone, one found on PATH,
	// else the commit goes through with a warning: the hook never blocks
	// for want of agent-commit.
	bin, err := os.Executable()
	if err != nil || bin == "" {
		bin, err = exec.LookPath("agent-commit")
		if err != nil {
			return exit.Errorf(exit.Failure, "cannot tell where agent-commit is: %v", err)
		}
	}
	if abs, err := filepath.Abs(bin); err == nil {
		bin = abs
	}
	script := fmt.Sprintf(`#!/bin/sh
%s
chained="$0%s"
if [ -x "$chained" ]; then "$chained" "$@" || exit $?; fi
abs=%s
bin=$abs
[ -x "$bin" ] || bin=$(command -v agent-commit 2>/dev/null) || {
  echo "agent-commit: $abs is gone and agent-commit is not on PATH: %s hook skipped (run 'agent-commit hook install' again)" >&2
  exit 0
}
exec "$bin" hook run%s %s "$@"
`, hookMarker, chainSuffix, shellQuote(bin), name, extra, name)
	return os.WriteFile(p, []byte(script), 0o755)
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
