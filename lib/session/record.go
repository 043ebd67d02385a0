// Package session is pi's session file format (JSONL, version 3) as pure Go:
// records that keep their bytes (unknown fields and entry types round-trip
// byte for byte), a lenient reader, the write-time transforms, migrations
// v1→v3, the tree and its paths, and BuildContext, the one resolver every
// stage uses to turn session records into the model's messages.
//
// A Record is a line of the file: its raw bytes plus the base fields every
// entry has (type, id, parentId, timestamp). Everything else is read from
// Raw on demand, so a filter that changes nothing writes back what it read:
// View is a record decoded once, its top-level members raw (what append
// checks, converts and writes), Msg the typed view of a message.
package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Record is one line of a session file or stream.
type Record struct {
	Raw       json.RawMessage
	Type      string
	ID        string
	ParentID  string // "" for a root (parentId null or absent)
	Timestamp string
	Pending   bool // "pending": true — produced by a stage, not yet persisted
	// Blob says the line holds `"blob:sha256:` (a blob reference that
	// ResolveBlobs resolves), as parsing found it (ParseRecord and Lines
	// set it; a Record made otherwise may hold one with Blob false).
	Blob bool
}

// Head is the part of a record Peek reads.
type Head struct {
	Type     string `json:"type"`
	ID       string `json:"id"`
	ParentID string `json:"parentId"` // "" for null or absent
	Pending  bool   `json:"pending"`
	Time     string `json:"timestamp"`
	Blob     bool   `json:"-"` // skim's: a string holds `"blob:sha256:`
}

// Peek reads the base fields of a line without decoding the rest. It fails
// on a line that is not a JSON object with a string "type".
func Peek(line []byte) (Head, error) {
	var h Head
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return h, errors.New("not a JSON object")
	}
	if err := json.Unmarshal(line, &h); err != nil {
		return h, jsonError(err)
	}
	if h.Type == "" {
		return h, errors.New(`no "type" field`)
	}
	return h, nil
}

// ParseRecord checks one line as a session record: a JSON object with a
// string type (and, when present, a string id and parentId). Entries of
// version-1 files have no ids; Migrate gives them ids. The bytes are kept.
func ParseRecord(line []byte) (Record, error) {
	r, _, err := parseRecord(bytes.TrimRight(line, "\r\n"), false)
	if err == nil {
		r.Raw = append(json.RawMessage(nil), r.Raw...)
	}
	return r, err
}

// ParseRecordMessage is ParseRecord for a caller that keeps line unchanged
// for as long as the record is used (Raw is line itself, not a copy; the
// base fields are strings of their own) and
// that also wants the raw value of the record's top-level "message" member
// (nil when it has none; the last when the key repeats, as BuildContext
// reads it), found in the same pass over line that checks it and reads the
// base fields.
func ParseRecordMessage(line []byte) (Record, json.RawMessage, error) {
	return parseRecord(line, true)
}

func parseRecord(line []byte, wantMsg bool) (Record, json.RawMessage, error) {
	var msg []byte
	at := &msg
	if !wantMsg {
		at = nil
	}
	if h, ok := skim(line, at); ok { // the fast path: structure checked in one pass
		return Record{Raw: line, Type: h.Type, ID: h.ID, ParentID: h.ParentID, Timestamp: h.Time, Pending: h.Pending, Blob: h.Blob}, msg, nil
	}
	if !json.Valid(line) {
		var v any
		return Record{}, nil, jsonError(json.Unmarshal(line, &v))
	}
	h, err := Peek(line)
	if err != nil {
		return Record{}, nil, err
	}
	if wantMsg {
		msg = MemberVals(line, "message")[0]
	}
	return Record{Raw: line, Type: h.Type, ID: h.ID, ParentID: h.ParentID, Timestamp: h.Time, Pending: h.Pending,
		Blob: bytes.Contains(line, []byte(`"`+BlobPrefix))}, msg, nil
}

func jsonError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %q: want a %s, got %s", te.Field, te.Type, te.Value)
	}
	return err
}

// Header is the first line of a session file.
type Header struct {
	Type          string `json:"type"`
	Version       int    `json:"version"`
	ID            string `json:"id"`
	Title         string `json:"title,omitempty"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession,omitempty"`
	// Carried and Omitted are a cut stream's (formats/session): the first
	// Carried entries after the header are state carried from the path
	// before the context, Omitted entries of the path were not printed.
	// ParseStreamHeader reads them; a file's header has neither.
	Carried int `json:"-"`
	Omitted int `json:"-"`
	// File is a stream's session file path (ParseStreamHeader).
	File string `json:"-"`
}

// ParseHeader checks a header line: type "session" and a string id. A
// missing version is version 1.
func ParseHeader(line []byte) (Header, error) {
	var h Header
	if _, err := Peek(line); err != nil {
		return h, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return h, jsonError(err)
	}
	if err := json.Unmarshal(line, &h); err != nil {
		return h, jsonError(err)
	}
	if h.Type != "session" {
		return h, fmt.Errorf("the first record has type %q, not \"session\"", h.Type)
	}
	if h.ID == "" {
		return h, errors.New("the session header has no string id")
	}
	if _, ok := raw["version"]; !ok {
		h.Version = 1
	}
	return h, nil
}

// ParseStreamHeader is ParseHeader for the header of a session stream,
// which also reads its stream-only members carried and omitted
// (non-negative integers; absent: 0).
func ParseStreamHeader(line []byte) (Header, error) {
	h, err := ParseHeader(line)
	if err != nil {
		return h, err
	}
	for _, m := range []struct {
		key string
		n   *int
	}{{"carried", &h.Carried}, {"omitted", &h.Omitted}} {
		v := MemberVals(line, m.key)[0]
		if v == nil {
			continue
		}
		n, err := strconv.Atoi(string(v))
		if err != nil || n < 0 {
			return h, fmt.Errorf("the stream header's %q is %s, not a count", m.key, v)
		}
		*m.n = n
	}
	if v := MemberVals(line, "file")[0]; v != nil {
		json.Unmarshal(v, &h.File)
	}
	return h, nil
}

// Rechain is a cut stream's records as one chain the resolver walks: the
// first carried records (state from the path before the context, each
// printed as stored) each made the parent of the next, the last one the
// parent of the first record after them. recs is changed in place.
func Rechain(recs []Record, carried int) []Record {
	out := recs
	if carried <= 0 {
		return out
	}
	parent := ""
	for i := range out[:min(len(out), carried+1)] {
		out[i].ParentID, parent = parent, out[i].ID
	}
	return out
}

// NewHeader renders a version-3 header.
func NewHeader(id, timestamp, cwd string) []byte {
	b, _ := json.Marshal(Header{Type: "session", Version: 3, ID: id, Timestamp: timestamp, Cwd: cwd})
	return b
}

// FormatTime is an entry timestamp: ISO-8601 UTC with milliseconds.
func FormatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// FileTimestamp is the timestamp of a session file name (: and . as -).
func FileTimestamp(t time.Time) string {
	return strings.NewReplacer(":", "-", ".", "-").Replace(FormatTime(t))
}

// Problem is a line the lenient reader skipped, with why.
type Problem struct {
	Line int
	Err  error
	Kept bool // the line was read anyway (repaired or reinterpreted), not skipped
}
