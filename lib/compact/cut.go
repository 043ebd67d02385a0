package compact

import "github.com/agentutils/agentutils/lib/session"

// StreamCut is where the pipeline stream of a path starts (formats/session,
// "The stream is the context"): nothing on the path before the newest
// compaction's first kept entry is in any context to come but the state
// the resolver folds over the whole path, which the carried entries hold.
type StreamCut struct {
	// From is the index on the path of the newest compaction's first kept
	// entry; the compaction's own index when that entry is not on the path
	// before it (the context is then its summary and what follows); 0 when
	// the path has no compaction or it keeps from the root.
	From int
	// Carried are the indexes before From of the entries Carry keeps, in
	// path order: every state change, the newest assistant message naming
	// its model and the newest with a usage.
	Carried []int
}

// CutPath finds the StreamCut of a path of n entries without holding them: typ
// is entry i's type; entry reads entry i (ReadHead of its line; called for
// the newest compaction and, from From back, the messages up to the newest
// assistant messages Carry needs); pos is where the entry with an id is on
// the path (-1 when it is not).
func CutPath(n int, typ func(i int) string, entry func(i int) (Entry, error), pos func(id string) int) (StreamCut, error) {
	c := n - 1
	for c >= 0 && typ(c) != "compaction" {
		c--
	}
	if c <= 0 {
		return StreamCut{}, nil
	}
	e, err := entry(c)
	if err != nil {
		return StreamCut{}, err
	}
	from := c
	if id, _ := session.StrVal(session.MemberVals(e.Raw, "firstKeptEntryId")[0]); id != "" {
		if j := pos(id); j >= 0 && j < c {
			from = j
		}
	}
	carried, err := carryIndexes(from, typ, entry)
	return StreamCut{From: from, Carried: carried}, err
}

// carryIndexes are the indexes of the entries (of n let go of, in stream
// order) that Carry keeps: every state change BuildContext folds, and of
// the assistant messages only the newest that names its model and the
// newest with a usage, read (Complete) from the end back until both are
// found.
func carryIndexes(n int, typ func(i int) string, entry func(i int) (Entry, error)) ([]int, error) {
	model, usage := -1, -1
	for i := n - 1; i >= 0 && (model < 0 || usage < 0); i-- {
		if typ(i) != "message" {
			continue
		}
		e, err := entry(i)
		if err != nil {
			return nil, err
		}
		if e.head {
			es := []Entry{e}
			Complete(es)
			e = es[0]
		}
		if e.info.role == "assistant" {
			if model < 0 && namesModel(e) {
				model = i
			}
			if usage < 0 && countsUsage(e) {
				usage = i
			}
		}
	}
	var out []int
	for i := 0; i < n; i++ {
		if FoldsState(typ(i)) || i == model || i == usage {
			out = append(out, i)
		}
	}
	return out, nil
}
