package compact

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/agentutils/agentutils/lib/session"
)

// Window follows a session stream's entries as a reader takes them, one at
// a time, for a stage that holds only what a context to come can read
// (agent-compact, agent-chat): on a stream that is one chain so far (the
// active path 'agent-session open' prints), nothing before the newest
// compaction's kept part is in any context to come but the state the
// resolver folds over the path (model, thinking level, ...), which Cut
// carries. Held are the entries held, as records (a reader completes the
// ones it decides from: EntriesOf), Carry the carried copies of those let
// go of, read as entries.
type Window struct {
	Held  []session.Record
	Carry []Entry
	Gone  int // entries let go of
	// Own makes Cut copy the bytes of the entries it carries, for a
	// reader whose entries share buffers it lets go of as a whole.
	Own      bool
	branched bool
	carrying int // carried entries still to come (Start)
	lastID   string
	from     int // after a cut: Entries[from:] descend from the compaction cut at
	cut      string
	comp     int // the newest compaction in Held, plus one (0: none)
}

// Start reads what a cut stream's header says (formats/session): its
// first h.Carried entries are carried state, taken into Carry, and
// h.Omitted entries of the path came before them, not printed.
func (w *Window) Start(h session.Header) {
	w.carrying, w.Gone = h.Carried, w.Gone+h.Omitted
}

// Carrying says whether Add takes the next entry into Carry (a cut
// stream's carried entry) rather than into Entries.
func (w *Window) Carrying() bool { return w.carrying > 0 }

// Add takes the next entry. For a compaction on a stream that is one chain
// so far it returns where its kept part starts in Held when something
// precedes it there (k > 0; the caller may Cut(k)), else -1. After a cut,
// an entry that does not descend from the compaction cut at is an error:
// its context would need entries let go of.
func (w *Window) Add(e session.Record) (k int, err error) {
	if w.carrying > 0 {
		w.carrying--
		c := EntryOf(e)
		if w.Own {
			c = c.clone()
		}
		w.Carry = append(w.Carry, c)
		w.Gone++
		return -1, nil
	}
	if e.Pending && w.holds(e.ID) { // it stands in that entry's place (session.ContextPath)
		w.Held = append(w.Held, e)
		return -1, nil
	}
	linear := w.lastID == "" || e.ParentID == w.lastID
	if w.cut != "" && !linear && !w.descends(e.ParentID) {
		return -1, fmt.Errorf("%s entry %q branches from %q, before compaction %q whose kept part the stream was cut at: pipe the active path ('agent-session open'), not every entry", e.Type, e.ID, e.ParentID, w.cut)
	}
	w.branched = w.branched || !linear
	w.lastID = e.ID
	w.Held = append(w.Held, e)
	if e.Type == "compaction" {
		w.comp = len(w.Held)
	}
	if e.Type != "compaction" || w.branched {
		return -1, nil
	}
	id, _ := session.StrVal(session.MemberVals(e.Raw, "firstKeptEntryId")[0])
	for j := len(w.Held) - 1; j > 0 && id != ""; j-- {
		if w.Held[j].ID == id {
			return j, nil
		}
	}
	return -1, nil
}

// holds says whether an entry held has the id.
func (w *Window) holds(id string) bool { return w.has(0, id) }

// descends says whether the entry id descends from the compaction the
// stream was cut at.
func (w *Window) descends(id string) bool { return w.has(w.from, id) }

func (w *Window) has(from int, id string) bool {
	for _, e := range w.Held[from:] {
		if e.ID == id {
			return true
		}
	}
	return false
}

// Cut lets go of Held[:k] (k from Add), carrying what the decisions and
// the resolver still read of them (CarryAll). The newest entry is the
// compaction Add returned k for.
func (w *Window) Cut(k int) { w.CutGone(k, k, nil) }

// CutGone is Cut with the carried entries of a Gone whose entries were
// let go of from Held[at] (LetGo), at <= k.
func (w *Window) CutGone(k, at int, gone []Entry) {
	w.Carry = CarryRecords(w.Carry, w.Held[:at])
	for _, e := range gone {
		w.Carry = Carry(w.Carry, e)
	}
	w.Carry = CarryRecords(w.Carry, w.Held[at:k])
	for i := range w.Carry {
		if w.Own && !w.Carry[i].own {
			w.Carry[i] = w.Carry[i].clone()
		}
	}
	w.Gone += k
	w.Held = slices.Delete(w.Held, 0, k) // the same array: a window cut again needs no new one
	w.from = len(w.Held) - 1
	w.cut = w.lastID
	w.comp = len(w.Held)
}

// AfterCompaction is where the entries after the newest compaction start
// in Held (0 when none is held).
func (w *Window) AfterCompaction() int { return w.comp }

// Branched says whether the stream was found not to be one chain.
func (w *Window) Branched() bool { return w.branched }

// LetGo removes Held[from:to], all after the newest compaction, and
// returns them (a Gone takes them).
func (w *Window) LetGo(from, to int) []session.Record {
	gone := slices.Clone(w.Held[from:to])
	w.Held = slices.Delete(w.Held, from, to)
	return gone
}

// Path is the carried entries, then the window's, as one chain the
// resolver walks (each carried entry the parent of the next, the last the
// parent of the window's first): the records BuildContext resolves to the
// same context as the whole stream's on a stream that was cut.
func (w *Window) Path() []session.Record {
	if len(w.Carry) == 0 {
		return w.Held
	}
	recs := make([]session.Record, 0, len(w.Carry)+len(w.Held))
	for _, e := range w.Carry {
		recs = append(recs, e.Record)
	}
	return session.Rechain(append(recs, w.Held...), len(w.Carry))
}

// clone is e with bytes of its own, read again from a copy of them.
func (e Entry) clone() Entry {
	c, err := ReadHead(bytes.Clone(e.Raw))
	if err != nil { // e was read from the same bytes: cannot fail
		return e
	}
	if !e.head {
		cs := []Entry{c}
		Complete(cs)
		c = cs[0]
	}
	c.own = true
	return c
}
