package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/exit"
)

func commitCommand(env *app.Env) *cli.Command {
	msg := msgCommand(env)
	return &cli.Command{
		Name:  "commit",
		Usage: "write a message for the staged changes with the model and commit them",
		Description: "msg followed by git commit -F - (so your git hooks run). Staging is explicit: nothing is staged " +
			"unless you pass --all. --dry-run prints the message and changes nothing.\n\n" +
			"Examples:\n\n" +
			"   agent-commit commit\n" +
			"   agent-commit commit --all --push\n" +
			"   agent-commit commit --dry-run --context 'part of the v2 migration'",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "stage all changes first (git add -A); never with --dry-run"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the message; stage and commit nothing"},
			&cli.BoolFlag{Name: "push", Usage: "git push after the commit"},
		}, withoutFlag(msg.Flags, "n")...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return exit.Errorf(exit.Usage, "commit takes no arguments")
			}
			if c.Bool("all") && c.Bool("dry-run") {
				return exit.Errorf(exit.Usage, "--all and --dry-run cannot be combined: a dry run stages nothing")
			}
			if c.Bool("all") {
				if _, err := git(c.Context, env, "add", "-A"); err != nil {
					return err
				}
			}
			m, err := generateMessage(c, env)
			if err != nil {
				return err
			}
			if c.Bool("dry-run") {
				_, err := fmt.Fprintln(env.Stdout, m)
				return err
			}
			cmd := exec.CommandContext(c.Context, "git", "commit", "-q", "-F", "-")
			cmd.Dir = env.Dir
			cmd.Env = append(os.Environ(), "AGENT_COMMIT_ACTIVE=1")
			cmd.Stdin = strings.NewReader(m + "\n")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				return exit.Errorf(exit.Failure, "git commit failed:\n%s", indent(out.String()))
			}
			fmt.Fprintln(env.Stdout, m)
			if c.Bool("push") {
				cmd := exec.CommandContext(c.Context, "git", "push", "-q")
				cmd.Dir = env.Dir
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Run(); err != nil {
					return exit.Errorf(exit.Failure, "committed, but git push failed:\n%s", indent(out.String()))
				}
			}
			return nil
		},
	}
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

func withoutFlag(fs []cli.Flag, name string) []cli.Flag {
	var out []cli.Flag
	for _, f := range fs {
		if f.Names()[0] != name {
			out = append(out, f)
		}
	}
	return out
}
