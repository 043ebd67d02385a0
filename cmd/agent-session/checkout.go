package main

import (
	"bufio"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

func checkoutCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "checkout",
		Usage:     "move the session's leaf to another entry (branch in place)",
		ArgsUsage: "FILE ENTRY",
		Description: `Moves the current position to ENTRY ("root" for an empty path). As in the reference
agent, checking out a user message (or a custom_message) moves to its parent and prints its text as
"editorText", so it can be edited and sent again. Without --summary-from the new leaf is kept in a
sidecar file (<session>/leaf) that open and append honour until the next append. With
--summary-from, a pending branch_summary record (agent-compact --branch-summary) is read from that
file ("-" for stdin) and appended at the new position.

Prints {"leafId":…,"editorText":…}.

Examples:
   agent-session checkout s.jsonl 3f2a9c1e
   agent-session open --all s.jsonl | agent-compact --branch-summary --from "$OLD" --to 3f2a9c1e \
     | agent-session checkout s.jsonl 3f2a9c1e --summary-from -`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "summary-from", Usage: "append the branch_summary record read from `FILE` (- for stdin)"},
		},
		Action: func(c *cli.Context) error {
			path, err := needPath(c, env, "FILE")
			if err != nil {
				return err
			}
			if c.NArg() != 2 {
				return exit.Errorf(exit.Usage, "checkout takes FILE and ENTRY")
			}
			target := c.Args().Get(1)
			var out map[string]any
			err = withLock(c, path, func(lf *sessionstore.File, l *sessionstore.Loaded) error {
				newLeaf, editor := "", ""
				if target != "root" {
					rec, ok := l.Find(target)
					if !ok {
						return exit.Errorf(exit.Usage, "%s: no entry with id %q", path, target)
					}
					newLeaf, editor = leafFor(rec)
				}
				out = map[string]any{"leafId": nullable(newLeaf)}
				if editor != "" {
					out["editorText"] = editor
				}
				if !c.IsSet("summary-from") {
					return sessionstore.WriteSidecar(path, newLeaf)
				}
				raw, err := readSummary(env, c.String("summary-from"))
				if err != nil {
					return err
				}
				entry, err := summaryEntry(env, l, raw, newLeaf)
				if err != nil {
					return err
				}
				if err := lf.AppendLines(append(entry, '\n')); err != nil {
					return err
				}
				sessionstore.RemoveSidecar(path)
				p, _ := session.Peek(entry)
				out["leafId"] = p.ID
				out["summaryId"] = p.ID
				return nil
			})
			if err != nil {
				return err
			}
			return printJSON(c, out)
		},
	}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// leafFor applies the reference's rule: a user message or custom_message
// target moves to its parent and gives its text back for editing.
func leafFor(rec session.Record) (leaf, editorText string) {
	if m, ok := session.MsgOf(rec); ok && m.Role == "user" {
		return rec.ParentID, session.JoinText(m.Content, "\n")
	}
	if rec.Type == "custom_message" {
		return rec.ParentID, session.JoinText(session.MemberVals(rec.Raw, "content")[0], "\n")
	}
	return rec.ID, ""
}

// readSummary returns the first branch_summary record of a file or stdin
// (bare, or wrapped in an entry event).
func readSummary(env *app.Env, from string) (session.View, error) {
	var r io.Reader = env.Stdin
	if from != "-" {
		f, err := os.Open(absPath(env, from))
		if err != nil {
			return session.View{}, exit.Wrap(exit.Usage, err)
		}
		defer f.Close()
		r = f
	}
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := sessionstore.ReadLine(br)
		if len(line) > 0 {
			v, perr := session.Decode(line)
			var entry session.View
			ok := false
			if perr == nil {
				entry, ok, perr = session.FromView(&v)
			}
			if perr != nil {
				return session.View{}, exit.Errorf(exit.Usage, "%s:%d: %v", from, n, perr)
			}
			if ok && entry.Type == "branch_summary" {
				return entry, nil
			}
		}
		if err != nil {
			return session.View{}, exit.Errorf(exit.Usage, "%s: no branch_summary record found", from)
		}
	}
}

// summaryEntry makes the branch_summary a child of the new leaf with fromId to match.
func summaryEntry(env *app.Env, l *sessionstore.Loaded, v session.View, leaf string) ([]byte, error) {
	from := leaf
	if from == "" {
		from = "root"
	}
	v.Set("fromId", mustJSON(from))
	ids := l.IDs()
	id := v.ID
	if id == "" || ids[id] {
		id = sessionstore.NewEntryID(func(s string) bool { return ids[s] })
	}
	ts := v.Timestamp
	if ts == "" {
		ts = session.FormatTime(env.Now())
	}
	return sessionstore.PrepareEntry(&v, id, leaf, ts, dirs.Resolve(env.Getenv).Blobs())
}
