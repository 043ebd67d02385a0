package main

import (
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
)

func appendCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "append",
		Usage:     "persist agent events and records into a session file (the single writer)",
		ArgsUsage: "FILE",
		Description: `Reads JSON Lines on stdin and appends to FILE, creating it when missing:

   message_end events       → a message entry (custom/hookMessage → custom_message)
   {"type":"entry","entry"} → the entry (agent-chat's echo of pending records)
   a bare session entry     → itself
   the session header       → line 1 of a new file, otherwise ignored
   other events             → ignored (passed through with --tee)

A record whose id already exists replaces that entry (an atomic rewrite of the file; input that
ends in replacements waits for the next record or EOF, so a run of them is one rewrite). Otherwise it
gets a fresh id when it has none, its parentId is the current leaf (a parentId naming an existing
entry is kept), and a timestamp when it has none; the stream-only fields pending, file and leafId
are removed; long strings are truncated at 500,000 characters. Images are written inline (base64
"data"), as pi writes them and the only way pi 0.73 reads them; with --blobs store, images of 1024
base64 characters or more go to the blob store as blob:sha256: references instead (open resolves
them; pi does not). Each appended entry becomes the new leaf.

Every record is checked before anything is written: a message without a valid role and content,
an entry type missing its required fields (formats/session/schema.json), a header without an id.

The file is held under an exclusive lock for the whole run, written with O_APPEND and fsynced
before anything is acknowledged. A write or fsync that fails (no space left on the device, an I/O
error) is rolled back: the file is truncated to its size before it. A torn last line (a writer
killed mid-line) is cut before the next append. Records are committed in groups (what has arrived when append
catches up with its input); a group holding an invalid record is not written at all, and append
exits 2 naming the line. With --tee every input line is echoed to stdout once its group is durable.

Examples:
   agent-session open s.jsonl | agent-chat "fix it" | agent-session append s.jsonl --tee | agent-chat --render
   echo '{"type":"custom","customType":"note","data":{"k":1}}' | agent-session append s.jsonl`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "tee", Usage: "echo every input line to stdout once it is persisted"},
			&cli.StringFlag{Name: "parent", Usage: "append under entry `ID` instead of the current leaf"},
			&cli.StringFlag{Name: "blobs", Value: "inline", Usage: "`inline` writes images as base64 (pi's shape), store moves large ones to the blob store"},
		},
		Action: func(c *cli.Context) error {
			path, err := needPath(c, env, "FILE")
			if err != nil {
				return err
			}
			o := sessionstore.AppendOptions{Path: path, In: env.Stdin, Now: env.Now, Dir: env.Dir,
				Parent: c.String("parent"), ParentSet: c.IsSet("parent")}
			if c.Bool("tee") {
				o.Tee = env.Stdout
			}
			switch c.String("blobs") {
			case "inline":
			case "store":
				o.Blobs = dirs.Resolve(env.Getenv).Blobs()
			default:
				return exit.Errorf(exit.Usage, "--blobs: want inline or store, got %q", c.String("blobs"))
			}
			return sessionstore.Append(c.Context, o)
		},
	}
}
