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
	// ResolveBlobs resolves), as decoding found it (Decode sets it; a
	// Record made otherwise may hold one with Blob false).
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
	if h, ok := peekFast(line); ok {
		return h, nil
	}
	return peekDecode(line)
}

// peekDecode is Peek by encoding/json, for what peekFast does not take.
func peekDecode(line []byte) (Head, error) {
	var h Head
	if err := json.Unmarshal(line, &h); err != nil {
		return h, jsonError(err)
	}
	if h.Type == "" {
		return h, errors.New(`no "type" field`)
	}
	return h, nil
}

// peekFast is Peek over the skimmer: the one pass that checks the line's
// structure and reads the base fields, without encoding/json's decoding of
// every member (ReplaceEntries peeks at every line of a session file).
// False for anything whose reading it does not take as encoding/json
// would: a base field of another type or null, a key that only matches a
// base field's name case-insensitively or through an escape, no "type";
// Peek's slow path then reads or reports it.
func peekFast(line []byte) (Head, bool) {
	var h Head
	ok := Members(line, func(key, val []byte) bool {
		switch string(key) {
		case "type", "id":
			return h.read(key, val)
		case "parentId":
			return h.read(key, val)
		case "timestamp":
			if len(val) == 0 || val[0] != '"' {
				return false
			}
			return h.read(key, val)
		case "pending":
			if string(val) != "true" && string(val) != "false" {
				return false
			}
			return h.read(key, val)
		}
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		for _, f := range [...]string{"type", "id", "parentId", "timestamp", "pending"} {
			if strings.EqualFold(string(key), f) {
				return false
			}
		}
		return true
	})
	return h, ok && h.Type != ""
}

// ParseRecord checks one line as a session record (Decode) and keeps a
// copy of its bytes. Entries of version-1 files have no ids; Migrate gives
// them ids.
func ParseRecord(line []byte) (Record, error) {
	v, err := Decode(bytes.TrimRight(line, "\r\n"))
	if err != nil {
		return Record{}, err
	}
	r := v.Record
	r.Raw = append(json.RawMessage(nil), r.Raw...)
	return r, nil
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
	// ParentToolCallID is, in a sub-agent's session, the id of the parent
	// session's task call that started it.
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
	// Carried and Omitted are a cut stream's (formats/session): the first
	// Carried entries after the header are state carried from the path
	// before the context, Omitted entries of the path were not printed.
	// ParseStreamHeader reads them; a file's header has neither.
	Carried int `json:"-"`
	Omitted int `json:"-"`
	// File is a stream's stream-only member file: the session file it
	// was read from (ParseStreamHeader).
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
// (non-negative integers; absent: 0) and file.
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
