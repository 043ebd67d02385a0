package main

import (
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/recordlimit"
	"github.com/agentutils/agentutils/internal/sessionstore"
)

func newApp(env *app.Env) *cli.App {
	return &cli.App{
		Name:  "agent-session",
		Usage: "create, open, append to and inspect agent session files",
		Description: `agent-session keeps conversations as append-only JSON Lines files in pi's session format
(version 3): a header line, then entries that form a tree through id/parentId. It reads versions
1-3 (pi and oh-my-pi dialects), writes version 3, keeps unknown fields and entry types byte for
byte, and accepts .jsonl.zst (zstd) wherever a session path is accepted.

In a pipeline, 'open' emits the session stream (the header and the entries of the active path) and
'append' is the only writer: it holds an exclusive lock, appends with O_APPEND and fsyncs.

Files live in $XDG_DATA_HOME/agentutils/sessions/--<cwd>--/<timestamp>_<id>.jsonl
(AGENTUTILS_HOME overrides the data directory); images are kept in .../agentutils/blobs/.
A line (one record) longer than 256 MiB is bad input (exit 2) naming the file and its offset;
AGENTUTILS_MAX_RECORD sets the limit (bytes, or with a K, M or G suffix).

Examples:
   S=$(agent-session continue)
   agent-session open "$S" | agent-compact | agent-chat "fix the test" | agent-session append "$S" --tee
   agent-session tree "$S"
   agent-session export --html -o chat.html "$S"`,
		Before: func(*cli.Context) error {
			n, err := recordlimit.FromEnv(env.Getenv)
			sessionstore.MaxRecord = n
			return err
		},
		Commands: []*cli.Command{
			newCommand(env),
			openCommand(env),
			appendCommand(env),
			continueCommand(env),
			resumeCommand(env),
			listCommand(env),
			forkCommand(env),
			checkoutCommand(env),
			rewindCommand(env),
			checkpointCommand(env),
			watchCommand(env),
			labelCommand(env),
			nameCommand(env),
			treeCommand(env),
			exportCommand(env),
			withResultStats(env, statsCommand(env)),
			migrateCommand(env),
			importCommand(env),
			runTaskCommand(env),
			runSubagentCommand(env),
			usageCommand(env),
		},
	}
}
