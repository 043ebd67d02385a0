package session

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Lines is the one set of rules for the lines of a session file, applied
// by every reader of one (agent-session open's streaming path, the
// whole-file Reader, .zst files alike), so that they skip, keep and report
// the same lines in the same words:
//
//   - the first record must be a session header (else the file is not a
//     session file: an error);
//   - a line that is not a record is skipped (a torn last line, without
//     its newline, says so);
//   - invalid UTF-8 is replaced with U+FFFD and the record kept;
//   - a later session header is skipped;
//   - from version 3 on, an entry without an id is skipped, a second entry
//     with an id already seen is kept but the first is the one ids resolve
//     to, and an entry that names itself as its parent is read as a root.
//
// Every skipped or repaired line is a Problem, in line order.
type Lines struct {
	// IDs maps each entry id to the index (among the entries Line
	// returned) of the first entry with it.
	IDs      IDTable
	Problems []Problem
	Header   Header // the file's header, once Line returned it
	entries  int32
	seen     bool // the header was read
	view     View // each line is decoded into it (its members' storage reused)
}

// LineKind says what a line of a session file is.
type LineKind int

const (
	Skipped    LineKind = iota // a problem, or a blank line
	HeaderLine                 // the file's session header
	EntryLine                  // an entry
)

// Line is one classified line: its record (Raw is the line, repaired when
// its UTF-8 was not valid, which Repaired says; not a copy otherwise).
type Line struct {
	Record
	Kind     LineKind
	Repaired bool
	Dup      bool // an entry whose id an earlier entry has (ids resolve to that one)
}

// Read classifies line n of the file (raw without its line ending; torn
// when it is the file's last line and had no newline). The error is for a
// first record that is not a session header.
func (l *Lines) Read(raw []byte, n int, torn bool) (Line, error) {
	return l.Classify(DecodeLine(&l.view, raw), n, torn)
}

// Decoded is a line decoded on its own (DecodeLine), not yet classified
// against the lines before it (Classify): decoding needs nothing of the
// other lines, so a reader may decode lines in parallel and classify them
// in order.
type Decoded struct {
	Record         // Raw is the line, repaired when Repaired
	Err      error // the line is not a record
	Repaired bool  // its invalid UTF-8 was replaced with U+FFFD
	Blank    bool  // nothing but whitespace
}

// DecodeLine decodes a line into v (whose members' storage it reuses) for
// Classify.
func DecodeLine(v *View, raw []byte) Decoded {
	if len(bytes.TrimSpace(raw)) == 0 {
		return Decoded{Blank: true}
	}
	var d Decoded
	ascii, noCtl := byteClasses(raw)
	if !ascii && !utf8.Valid(raw) {
		raw = bytes.ToValidUTF8(raw, []byte("\uFFFD")) // U+FFFD brings no control byte
		d.Repaired = true
	}
	d.Err = decodeInto(v, raw, ascii, noCtl)
	d.Record = v.Record
	return d
}

// Classify is Read of a line DecodeLine decoded; lines are classified in
// their order in the file.
func (l *Lines) Classify(d Decoded, n int, torn bool) (Line, error) {
	if d.Blank {
		return Line{}, nil
	}
	out := Line{Repaired: d.Repaired}
	raw := d.Raw
	if d.Repaired {
		l.Problems = append(l.Problems, Problem{Line: n, Kept: true, Err: errors.New("invalid UTF-8 replaced with U+FFFD")})
	}
	err, rec := d.Err, d.Record
	if !l.seen {
		if err == nil {
			l.Header, err = ParseHeader(raw)
		}
		if err != nil {
			return Line{}, err
		}
		l.seen = true
		out.Record, out.Kind = rec, HeaderLine
		return out, nil
	}
	switch {
	case err != nil && torn:
		return l.skip(n, errors.New("torn last line (no newline; an interrupted write?) skipped: "+err.Error()))
	case err != nil:
		return l.skip(n, err)
	case rec.Type == "session":
		return l.skip(n, errors.New("extra session header skipped"))
	}
	if l.Header.Version >= 3 {
		if rec.ID == "" {
			return l.skip(n, errors.New("entry without an id"))
		}
		if l.IDs.Add(rec.ID, l.entries) {
			out.Dup = true
			l.Problems = append(l.Problems, Problem{Line: n, Kept: true, Err: fmt.Errorf("duplicate id %q (the first one is used)", rec.ID)})
		}
		if rec.ParentID == rec.ID {
			l.Problems = append(l.Problems, Problem{Line: n, Kept: true, Err: fmt.Errorf("entry %q names itself as its parent (read as a root)", rec.ID)})
			rec.ParentID = ""
		}
	}
	l.entries++
	out.Record, out.Kind = rec, EntryLine
	return out, nil
}

// Entries is how many entries Read returned.
func (l *Lines) Entries() int { return int(l.entries) }

func (l *Lines) skip(n int, err error) (Line, error) {
	l.Problems = append(l.Problems, Problem{Line: n, Err: err})
	return Line{}, nil
}

// ResumeLines goes on reading a file whose first lines were read already
// (by an index): its header and how many entries they held. IDs then
// holds only the ids read from here on.
func ResumeLines(h Header, entries int) Lines {
	return Lines{Header: h, entries: int32(entries), seen: true}
}
