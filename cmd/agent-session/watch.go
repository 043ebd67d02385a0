package main

import (
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/checkpoint"
	"github.com/agentutils/agentutils/internal/proctree"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
)

func watchCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "watch",
		Usage: "watch the current directory so that a checkpoint stats only what changed",
		Description: `Holds an inotify watch on every directory below the current one (never .git, nor agentutils'
own data) until it is stopped or the process that started it ends. While it runs, a checkpoint
there (agent-chat --checkpoint, agent-session checkpoint and rewind) asks it what changed since
the session's last one and stats only that, instead of every file. The interactive agent starts
one. Any change made before a checkpoint is seen, by any process (a bash child's too); when the
watcher cannot vouch (its queue overflowed, no watch was left: fs.inotify.max_user_watches, a
watcher started since), the checkpoint scans the whole tree, as without one. A write through
mmap, or on a network file system from another machine, makes no event: a change that only
those made is not seen. Prints {"root","directories"} once every directory is watched.
Linux only.

Examples:
   agent-session watch > /dev/null & W=$!; sleep 1; kill $W
   agent-session watch > /dev/null & W=$!; agent-session checkpoint "$S"; kill $W`,
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return exit.Errorf(exit.Usage, "watch takes no arguments: it watches the current directory")
			}
			if err := proctree.DieWithParent(syscall.SIGTERM); err != nil {
				return err
			}
			st := checkpoint.NewStore(dirs.Resolve(env.Getenv))
			return st.Watch(c.Context, env.Dir, func(n int) {
				printJSON(c, map[string]any{"root": env.Dir, "directories": n})
			}, func(w string) { app.Warnf(c, "watch: %s", w) })
		},
	}
}
