package main

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/itchyny/gojq"
	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
)

func openCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "open",
		Usage:     "print the session stream: the header, then the context's entries of the active path",
		ArgsUsage: "FILE",
		Description: `Prints the header (plus the stream-only fields "file" and "leafId") and the entries
of the active path, root to leaf, exactly as stored: the session stream that agent-compact and
agent-chat read. On a path with a compaction the stream is the context: the entries from the newest
compaction's first kept entry on, after the few entries before it whose state the context still
folds (model and thinking-level changes, injected rules, mode; the newest assistant message naming
its model and the newest with a usage); the header's "carried" and "omitted" count those and the
entries left out (formats/session). --history prints the whole path. A missing or empty FILE gives a fresh header and writes nothing (append creates the
file). Older files (v1, v2) are migrated in memory. Blob references are resolved to inline base64
unless --blobs ref. Lines that are not records, torn, or repeat an id are reported on stderr
(file:line) and skipped or read as the rules of formats/session say, the same for every
subcommand.

The path to the last entry is printed from an index beside the file (S/index for S.jsonl,
formats/session-index), written after a whole read of a file of 1 MiB or more and extended by
later opens with what was appended; the file stays the only truth: a rewrite (in place too: the
index holds a checksum of the bytes it prints), a branch or a torn line means a whole read, and an
index that disagrees with the file is reported and rebuilt. Deleting it is harmless.

Examples:
   agent-session open s.jsonl | agent-chat "go on" | agent-session append s.jsonl
   agent-session open --history s.jsonl              # the whole active path, not cut at a compaction
   agent-session open --all s.jsonl                  # every entry, file order
   agent-session open --resolved s.jsonl             # the model's view: state + messages
   agent-session open --jq 'select(.type=="message") | .message.role' s.jsonl`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "every entry in file order, not just the active path"},
			&cli.BoolFlag{Name: "history", Usage: "the whole active path, root to leaf, not only the context from the newest compaction on"},
			&cli.BoolFlag{Name: "resolved", Usage: "the context as the model sees it: a state record, then message records (not a pipeline stream)"},
			&cli.BoolFlag{Name: "tree", Usage: "the entry tree as one JSON document, flat in depth-first order: [{id, type, label?, parent, depth, children (ids), entry}]"},
			&cli.StringFlag{Name: "leaf", Usage: "open at entry `ID` instead of the current leaf"},
			&cli.StringFlag{Name: "jq", Usage: "apply the jq `FILTER` to every record and print the results"},
			&cli.StringFlag{Name: "blobs", Value: "inline", Usage: "`inline` resolves blob:sha256: references to base64, ref keeps them"},
			&cli.BoolFlag{Name: "end", Usage: `end the stream with {"type":"context_end"}`},
		},
		Action: func(c *cli.Context) error {
			env.ErrorRecord = true
			path, err := needPath(c, env, "FILE")
			if err != nil {
				return err
			}
			o := sessionstore.OpenOptions{Path: path, All: c.Bool("all"), Tree: c.Bool("tree"), Resolved: c.Bool("resolved"),
				History: c.Bool("history"), Leaf: c.String("leaf"), LeafSet: c.IsSet("leaf"), End: c.Bool("end"),
				Blobs: dirs.Resolve(env.Getenv).Blobs(), Out: env.Stdout, Now: env.Now, Dir: env.Dir,
				Warn: func(m string) { app.Warnf(c, "%s", m) }}
			switch c.String("blobs") {
			case "inline":
				o.Resolve = true
			case "ref":
			default:
				return exit.Errorf(exit.Usage, "--blobs takes inline or ref, not %q", c.String("blobs"))
			}
			if q := c.String("jq"); q != "" {
				code, err := compileJQ(q)
				if err != nil {
					return err
				}
				o.Filter = jqFilter(code)
			}
			return sessionstore.Open(o)
		},
	}
}

// jqFilter runs code on each record and writes its results, one a line.
func jqFilter(code *gojq.Code) func(raw []byte, w io.Writer) error {
	return func(raw []byte, w io.Writer) error {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		iter := code.Run(v)
		for {
			x, ok := iter.Next()
			if !ok {
				return nil
			}
			if err, ok := x.(error); ok {
				var halt *gojq.HaltError
				if errors.As(err, &halt) && halt.Value() == nil {
					return nil
				}
				return exit.Errorf(exit.Failure, "--jq: %v", err)
			}
			b, err := gojq.Marshal(x)
			if err != nil {
				return err
			}
			w.Write(append(b, '\n'))
		}
	}
}

func compileJQ(q string) (*gojq.Code, error) {
	p, err := gojq.Parse(q)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "--jq %q: %v", q, err)
	}
	code, err := gojq.Compile(p)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "--jq %q: %v", q, err)
	}
	return code, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only strings and plain values are passed
	}
	return b
}
