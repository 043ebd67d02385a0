package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/commit"
	"github.com/agentutils/agentutils/lib/exit"
)

func splitCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "split",
		Usage:     "make several commits from the staged changes, following a plan",
		ArgsUsage: "PLAN.json|-",
		Description: "The plan is {\"commits\":[{\"type\",\"scope\",\"summary\",\"details\",\"changes\":[{\"path\",\"kind\":" +
			"\"all\"|\"indices\"|\"lines\",…}],\"dependencies\":[0-based commit indexes]}]} (hunk indices are 1-based). " +
			"The staged diff is captured once (--binary --full-index), each commit's patch is cut from it and applied " +
			"to a private index in dependency order, so new files are not lost and unstaged edits never leak in; HEAD " +
			"moves only when every commit was made, and your index keeps whatever the plan left staged. A file goes " +
			"in one commit; staged lock files the plan omits join the commit that touches their manifest. Every " +
			"message must pass lint. The commits are made with git commit-tree, so commit hooks do not run.\n\n" +
			"Examples:\n\n" +
			"   agent-commit split --dry-run plan.json\n" +
			"   agent-commit split plan.json && git log --stat",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "print the ordered plan with its patches as JSON; change nothing"},
			&cli.StringFlag{Name: "profile", Usage: "lint profile the messages must pass: conventional or strict", Value: "conventional"},
			&cli.StringFlag{Name: "config", Usage: "plain-JSON commitlint config `FILE` (default: discovered in the repository root)"},
		},
		Action: func(c *cli.Context) error { return runSplit(c, env) },
	}
}

func runSplit(c *cli.Context, env *app.Env) error {
	if c.NArg() != 1 {
		return exit.Errorf(exit.Usage, "split needs a PLAN.json (or - for stdin)")
	}
	name := c.Args().First()
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(env.Stdin)
	} else {
		data, err = os.ReadFile(abs(env, name))
	}
	if err != nil {
		return exit.Errorf(exit.Usage, "%v", err)
	}
	plan, err := commit.ParseSplitPlan(data)
	if err != nil {
		return exit.Errorf(exit.Usage, "%s: %v", name, err)
	}
	cfg, err := lintConfig(c, env)
	if err != nil {
		return err
	}
	if _, err := git(c.Context, env, "rev-parse", "--git-dir"); err != nil {
		return err
	}
	diff, err := git(c.Context, env, "diff", "--cached", "--binary", "--full-index", "--no-renames", "--no-ext-diff", "--ignore-submodules")
	if err != nil {
		return err
	}
	if strings.TrimSpace(diff) == "" {
		return exit.Errorf(exit.Failure, "nothing staged (git add the changes first)")
	}
	order, patches, warnings, err := commit.PlanSplit(plan, commit.ParseDiff(diff), cfg)
	if err != nil {
		return exit.Errorf(exit.Failure, "invalid plan: %v", err)
	}
	for _, w := range warnings {
		app.Warnf(c, "%s", w)
	}
	if c.Bool("dry-run") {
		type step struct {
			Index   int    `json:"index"`
			Message string `json:"message"`
			Patch   string `json:"patch"`
		}
		var out struct {
			Commits  []step   `json:"commits"`
			Warnings []string `json:"warnings"`
		}
		out.Warnings = append([]string{}, warnings...)
		for _, i := range order {
			out.Commits = append(out.Commits, step{i, plan.Commits[i].Render(), patches[i]})
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		_, err := fmt.Fprintf(env.Stdout, "%s\n", b)
		return err
	}
	return applySplit(c.Context, env, plan, order, patches)
}

// applySplit makes the commits on a private index and moves HEAD once.
func applySplit(ctx context.Context, env *app.Env, plan commit.SplitPlan, order []int, patches map[int]string) error {
	tmp, err := os.CreateTemp("", "agent-commit-index-*")
	if err != nil {
		return err
	}
	tmp.Close()
	os.Remove(tmp.Name()) // git creates it
	defer os.Remove(tmp.Name())
	run := func(stdin string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = env.Dir
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+tmp.Name(), "AGENT_COMMIT_ACTIVE=1")
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(errb.String()))
		}
		return strings.TrimSpace(out.String()), nil
	}
	parent, err := run("", "rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		parent = "" // an unborn branch
		if _, err := run("", "read-tree", "--empty"); err != nil {
			return exit.Wrap(exit.Failure, err)
		}
	} else if _, err := run("", "read-tree", parent); err != nil {
		return exit.Wrap(exit.Failure, err)
	}
	old := parent
	var made []string
	for _, i := range order {
		msg := plan.Commits[i].Render()
		if _, err := run(patches[i], "apply", "--cached", "--binary", "-"); err != nil {
			return exit.Errorf(exit.Failure, "commit %d (%s): %v; nothing was committed", i, firstLine(msg), err)
		}
		tree, err := run("", "write-tree")
		if err != nil {
			return exit.Wrap(exit.Failure, err)
		}
		args := []string{"commit-tree", tree, "-F", "-"}
		if parent != "" {
			args = append(args, "-p", parent)
		}
		if parent, err = run(msg+"\n", args...); err != nil {
			return exit.Errorf(exit.Failure, "commit %d: %v; nothing was committed", i, err)
		}
		made = append(made, parent)
	}
	ref := []string{"update-ref", "-m", "agent-commit split", "HEAD", parent}
	if old != "" {
		ref = append(ref, old)
	}
	if _, err := git(ctx, env, ref...); err != nil {
		return exit.Errorf(exit.Failure, "HEAD moved while splitting: %v", err)
	}
	for k, i := range order {
		fmt.Fprintf(env.Stdout, "%s %s\n", made[k][:12], firstLine(plan.Commits[i].Render()))
	}
	return nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
