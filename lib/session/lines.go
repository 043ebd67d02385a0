package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
//   - a line holding several JSON values one after another (pi has
//     written such lines) is read as those values, in order, as the
//     reference reads values in sequence: Read says so (Several, Parts),
//     and the caller reads each part as a line of its own; what follows a
//     value that does not parse is skipped;
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
}

// LineKind says what a line of a session file is.
type LineKind int

const (
	Skipped    LineKind = iota // a problem, or a blank line
	HeaderLine                 // the file's session header
	EntryLine                  // an entry
	Several                    // several values: read each of Parts as a line
)

// Part is one value of a line holding several: its bytes are
// raw[Off:Off+Len] of the line Read was given.
type Part struct{ Off, Len int }

// Line is one classified line: its record (Raw is the line, repaired when
// its UTF-8 was not valid, which Repaired says; not a copy otherwise).
type Line struct {
	Record
	Kind     LineKind
	Repaired bool
	Dup      bool   // an entry whose id an earlier entry has (ids resolve to that one)
	Parts    []Part // Several's values
}

// Read classifies line n of the file (raw without its line ending; torn
// when it is the file's last line and had no newline). The error is for a
// first record that is not a session header.
func (l *Lines) Read(raw []byte, n int, torn bool) (Line, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return Line{}, nil
	}
	out := Line{}
	if !utf8.Valid(raw) {
		raw = bytes.ToValidUTF8(raw, []byte("\uFFFD"))
		out.Repaired = true
		l.Problems = append(l.Problems, Problem{Line: n, Kept: true, Err: errors.New("invalid UTF-8 replaced with U+FFFD")})
	}
	rec, _, err := parseRecord(raw, false)
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
	if err != nil {
		if parts, ok, rest := several(raw); ok {
			msg := fmt.Sprintf("%d JSON values on one line, read one after another", len(parts))
			if rest != nil {
				end := parts[len(parts)-1].Off + parts[len(parts)-1].Len
				msg = fmt.Sprintf("%d JSON value(s) read; the rest of the line, from byte %d, skipped: %v", len(parts), end, rest)
			}
			l.Problems = append(l.Problems, Problem{Line: n, Kept: true, Err: errors.New(msg)})
			out.Kind, out.Parts = Several, parts
			return out, nil
		}
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

// LineValues is the values of a line holding several JSON objects one
// after another, as Lines reads it (Several): nil for any other line.
// Peeking at each finds the entries such a line holds (the ids, the last
// entry) without the rest of Lines' rules.
func LineValues(raw []byte) [][]byte {
	parts, ok, _ := several(raw)
	if !ok {
		return nil
	}
	out := make([][]byte, len(parts))
	for i, p := range parts {
		out[i] = raw[p.Off : p.Off+p.Len]
	}
	return out
}

// several: raw holds JSON objects one after another (two or more, or one
// and a rest that does not parse), the parts and why the rest was not read.
func several(raw []byte) (parts []Part, ok bool, rest error) {
	parts, rest = values(raw)
	return parts, len(parts) > 1 || len(parts) == 1 && rest != nil, rest
}

// values cuts a line into the JSON objects it holds one after another
// (whitespace between them allowed), up to the first that does not parse;
// rest is why the line's rest was not read (nil when all of it was).
// A line that does not start with an object has none.
func values(raw []byte) (parts []Part, rest error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		start := int(dec.InputOffset())
		var v json.RawMessage
		err := dec.Decode(&v)
		if err == io.EOF {
			return parts, nil
		}
		if err != nil {
			return parts, jsonError(err)
		}
		for start < len(raw) && isSpace(raw[start]) {
			start++
		}
		if len(v) == 0 || v[0] != '{' {
			return parts, fmt.Errorf("not a JSON object at byte %d", start)
		}
		parts = append(parts, Part{Off: start, Len: int(dec.InputOffset()) - start})
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
