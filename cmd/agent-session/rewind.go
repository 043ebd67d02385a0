package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/checkpoint"
	"github.com/agentutils/agentutils/internal/sessionstore"
	cp "github.com/agentutils/agentutils/lib/checkpoint"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

func rewindCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "rewind",
		Usage:     "bring the files back to a checkpoint and move the session's leaf there",
		ArgsUsage: "FILE ENTRY",
		Description: `agent-chat --checkpoint (which the interactive agent passes) records before each prompt what
changed in the working directory since the session's last checkpoint, the content in the blob
store: what write, edit and apply_patch changed, and what bash did too. rewind brings the files
back to the newest checkpoint at or above ENTRY on its path (a user message: the one taken before
it) and moves the leaf as checkout does (a user message: to its parent, its text printed as
"editorText"). It scans first, so what changed since the last checkpoint is recorded and can be
rewound again, and appends a checkpoint entry saying what it changed.

It never writes .git/ (nor the git index): the scan leaves every .git out. Files over the size
limit (8 MiB) are followed by size and time only; a file whose content was not kept, or that
cannot be written, is named on stderr and in "failed", the others are restored, and the exit
status is 1. An unknown ENTRY, an entry with no checkpoint above it or a damaged session file is
bad input: exit 2, nothing written.

Prints {"leafId","editorText"?,"checkpoint","restored":[…],"removed":[…],"failed":[{path,reason}]}.
--list prints instead, a line per user message of the current path that has a checkpoint, what
the turn it began changed: {"id","checkpoint","text","changed":[…]}.

Examples:
   agent-session rewind --list "$S"
   agent-session rewind --dry-run "$S" "$(agent-session checkpoint "$S" | jq -r .id)"
   C=$(agent-session checkpoint "$S" | jq -r .id) && echo more >> CHANGELOG.md && agent-session rewind "$S" "$C"`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "list", Usage: "list the turns that can be rewound, with the files each changed"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would be restored and removed; write nothing"},
		},
		Action: func(c *cli.Context) error {
			path, err := needPath(c, env, "FILE")
			if err != nil {
				return err
			}
			list := c.Bool("list")
			if (list && c.NArg() != 1) || (!list && c.NArg() != 2) {
				return exit.Errorf(exit.Usage, "rewind takes FILE ENTRY (or --list FILE)")
			}
			st := checkpoint.NewStore(dirs.Resolve(env.Getenv))
			var out any
			err = withLock(c, path, func(lf *sessionstore.File, l *sessionstore.Loaded) error {
				if len(l.Problems) > 0 {
					return exit.Errorf(exit.Usage, "%s:%d: the session file is damaged (%v): rewind writes nothing", path, l.Problems[0].Line, l.Problems[0].Err)
				}
				log, err := checkpointLog(path, l)
				if err != nil {
					return err
				}
				if list {
					out, err = rewindList(env, st, l, log)
					return err
				}
				r := rewinder{c: c, env: env, st: st, lf: lf, l: l, log: log, dry: c.Bool("dry-run")}
				res, err := r.run(c.Args().Get(1))
				out = res
				return err
			})
			if err != nil {
				return err
			}
			return printRewind(c, out)
		},
	}
}

// printRewind prints --list's turns, or a rewind's result (exit 1 when a
// file could not be brought back, each named on stderr).
func printRewind(c *cli.Context, out any) error {
	if turns, ok := out.([]turn); ok {
		for _, t := range turns {
			if err := printJSON(c, t); err != nil {
				return err
			}
		}
		return nil
	}
	res := out.(*rewound)
	for _, f := range res.Failed {
		app.Warnf(c, "%s: not restored: %s", f.Path, f.Reason)
	}
	if err := printJSON(c, res); err != nil {
		return err
	}
	if len(res.Failed) > 0 {
		return exit.Silent(exit.Failure)
	}
	return nil
}

// logEntry is a checkpoint entry of the file, its index among the entries.
type logEntry struct {
	at int
	cp.Entry
}

// checkpointLog reads the file's checkpoint entries in file order.
func checkpointLog(path string, l *sessionstore.Loaded) ([]logEntry, error) {
	var log []logEntry
	for i, rec := range l.Entries {
		if rec.Type != cp.EntryType {
			continue
		}
		e, err := cp.ParseEntry(rec.Raw)
		if err != nil {
			return nil, exit.Errorf(exit.Usage, "%s: entry %s: %v", path, rec.ID, err)
		}
		e.ID = rec.ID
		log = append(log, logEntry{i, e})
	}
	return log, nil
}

// logEntries is the log's checkpoint entries.
func logEntries(log []logEntry) []cp.Entry {
	out := make([]cp.Entry, len(log))
	for k, e := range log {
		out[k] = e.Entry
	}
	return out
}

// checkpointAbove is the index in log of the newest checkpoint on the
// path at or above id (from its parent for a user message), or -1.
func checkpointAbove(l *sessionstore.Loaded, log []logEntry, rec session.Record) int {
	start := rec.ID
	if m, ok := session.MsgOf(rec); ok && m.Role == "user" {
		start = rec.ParentID
		if start == "" {
			return -1
		}
	}
	byID := map[string]int{}
	for k, e := range log {
		byID[e.ID] = k
	}
	path := session.Path(l.Entries, start)
	for i := len(path) - 1; i >= 0; i-- {
		if k, ok := byID[path[i].ID]; ok && path[i].Type == cp.EntryType {
			return k
		}
	}
	return -1
}

// turn is a line of --list.
type turn struct {
	ID         string   `json:"id"`
	Checkpoint string   `json:"checkpoint"`
	Text       string   `json:"text"`
	Changed    []string `json:"changed"`
}

// rewindList: each user message of the current path with a checkpoint
// above it, and what changed from that checkpoint to the next one (the
// last: to the files now, scanned without recording).
func rewindList(env *app.Env, st checkpoint.Store, l *sessionstore.Loaded, log []logEntry) ([]turn, error) {
	var turns []turn
	var now []cp.Change
	looked := false
	for _, rec := range session.Path(l.Entries, l.Leaf()) {
		m, ok := session.MsgOf(rec)
		if !ok || m.Role != "user" {
			continue
		}
		k := checkpointAbove(l, log, rec)
		if k < 0 {
			continue
		}
		t := turn{ID: rec.ID, Checkpoint: log[k].ID, Text: firstLine(session.JoinText(m.Content, "\n")), Changed: []string{}}
		changes := now
		if k+1 < len(log) {
			changes = log[k+1].Changes
		} else if !looked {
			looked = true
			sc, err := st.Scan(l.Path, log[k].Root, env.Now().UnixNano(), false, nil)
			if err == nil && !sc.Base {
				now = sc.Entry().Changes
			}
			changes = now
		}
		for _, ch := range changes {
			t.Changed = append(t.Changed, ch.Path)
		}
		turns = append(turns, t)
	}
	return turns, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// rewound is what a rewind prints.
type rewound struct {
	LeafID     *string              `json:"leafId"`
	EditorText string               `json:"editorText,omitempty"`
	Checkpoint string               `json:"checkpoint"`
	Restored   []string             `json:"restored"`
	Removed    []string             `json:"removed"`
	Failed     []checkpoint.Failure `json:"failed"`
	DryRun     bool                 `json:"dryRun,omitempty"`
}

type rewinder struct {
	c   *cli.Context
	env *app.Env
	st  checkpoint.Store
	lf  *sessionstore.File
	l   *sessionstore.Loaded
	log []logEntry
	dry bool
}

// run rewinds to target: scan, plan, restore, record, move the leaf.
func (r *rewinder) run(target string) (*rewound, error) {
	path := r.l.Path
	rec, ok := r.l.Find(target)
	if !ok {
		return nil, exit.Errorf(exit.Usage, "%s: no entry with id %q", path, target)
	}
	k := checkpointAbove(r.l, r.log, rec)
	if k < 0 {
		return nil, exit.Errorf(exit.Usage, "%s: no checkpoint at or above entry %s (the session was run without agent-chat --checkpoint)", path, target)
	}
	root := r.log[k].Root
	// The paths the plan looks at are scanned, whatever a watcher saw.
	sc, err := r.st.Scan(r.l.Path, root, r.env.Now().UnixNano(), true, cp.Named(logEntries(r.log), k))
	if err != nil {
		return nil, err
	}
	for _, w := range sc.Warnings {
		app.Warnf(r.c, "checkpoint: %s", w)
	}
	now := sc.Entry()
	now.ID = "(now)"
	acts, err := cp.Plan(append(logEntries(r.log), now), k, sc.New.Files)
	if err != nil {
		return nil, exit.Errorf(exit.Failure, "%s: %v", path, err)
	}
	leaf, editor := leafFor(rec)
	if rec.Type == cp.EntryType {
		leaf = rec.ID
	}
	res := &rewound{LeafID: nullableStr(leaf), EditorText: editor, Checkpoint: r.log[k].ID, Restored: []string{}, Removed: []string{}, Failed: []checkpoint.Failure{}, DryRun: r.dry}
	blobs, acts := r.st.Check(acts)
	if r.dry {
		res.Failed = checkpoint.Lost(acts)
		res.Restored, res.Removed = done(acts, res.Failed)
		return res, nil
	}
	res.Failed = checkpoint.Restore(root, acts, blobs)
	res.Restored, res.Removed = done(acts, res.Failed)
	after := checkpoint.After(sc.New, acts, res.Failed)
	// Two entries: what changed since the last checkpoint, under the leaf
	// left (a checkout there with its files can bring them back), then
	// what the rewind changed, under the new leaf.
	var lines []byte
	ids := r.l.IDs()
	add := func(e cp.Entry, parent string) {
		e.ID = sessionstore.NewEntryID(func(s string) bool { return ids[s] })
		ids[e.ID] = true
		e.ParentID = nullableStr(parent)
		e.Timestamp = session.FormatTime(r.env.Now())
		lines = append(append(lines, mustJSON(e)...), '\n')
		res.LeafID = &e.ID
	}
	if len(now.Changes) > 0 {
		now.ID = ""
		add(now, r.l.Leaf())
	}
	e := cp.NewEntry(root, false, sc.New.Files, after.Files)
	e.Files = after.Count
	e.Rewind = r.log[k].ID
	if len(e.Changes) > 0 {
		add(e, leaf)
	}
	if len(lines) > 0 {
		if err := r.lf.AppendLines(lines); err != nil {
			return nil, err
		}
	}
	if len(e.Changes) > 0 {
		sessionstore.RemoveSidecar(path) // the rewind's entry is the last one, and the leaf
	} else { // the leaf moves as checkout moves it
		res.LeafID = nullableStr(leaf)
		if err := sessionstore.WriteSidecar(path, leaf); err != nil {
			return nil, err
		}
	}
	return res, r.st.Save(r.l.Path, after)
}

func nullableStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// done splits the actions taken into files written and files removed.
func done(acts []cp.Action, failed []checkpoint.Failure) (restored, removed []string) {
	bad := map[string]bool{}
	for _, f := range failed {
		bad[f.Path] = true
	}
	restored, removed = []string{}, []string{}
	for _, a := range acts {
		switch {
		case bad[a.Path]:
		case a.Want == nil:
			removed = append(removed, a.Path)
		default:
			restored = append(restored, a.Path)
		}
	}
	return restored, removed
}
