package main

import (
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
)

func newApp(env *app.Env) *cli.App {
	return &cli.App{
		Name:  "agent-commit",
		Usage: "lint, write and split commit messages, edit changelogs and run git hooks",
		Description: "agent-commit checks commit messages against commitlint's config-conventional rules " +
			"(same rule names, levels and messages) without Node, writes messages for the staged changes with " +
			"the model (msg, commit), splits them into atomic commits (split), keeps CHANGELOG.md's [Unreleased] " +
			"section, and installs git hooks that propose and lint messages.\n\n" +
			"Examples:\n\n" +
			"   echo 'feat(api): add paging' | agent-commit lint\n" +
			"   agent-commit lint --from origin/main --to HEAD --format json\n" +
			"   agent-commit hook install\n" +
			"   agent-commit changelog add --section Fixed 'Crash on empty input'\n" +
			"   agent-commit commit --all --push\n" +
			"   agent-commit split --dry-run",
		Commands: []*cli.Command{
			lintCommand(env),
			msgCommand(env),
			commitCommand(env),
			splitCommand(env),
			changelogCommand(env),
			hookCommand(env),
		},
	}
}
