package session

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// View is the one decoded form of a record: its bytes and base fields
// (Record) and its top-level members as raw values, in order, from one
// pass over the line that also checks its JSON structure. Anything else
// is read from a member on demand (Get, Str), so a reader that needs a
// few fields pays for those only, and a writer that changes a few writes
// every other member back byte for byte (AppendMembers).
type View struct {
	Record
	// Members are the record's top-level members in order; a repeated
	// key keeps its first place and its last value, as encoding/json
	// reads it.
	Members []Member
	// spaced: whitespace between tokens, which AppendMembers compacts
	// away; escaped: a key that is not written as it is (an escape, a
	// character json.Marshal escapes), which it writes by json.Marshal.
	spaced, escaped bool
}

// Member is one member of a JSON object: its key and raw value.
type Member struct {
	Key string
	Val json.RawMessage
}

// Decode reads line as a session record (a JSON object with a string
// "type", a string "id" and a string or null "parentId" when present):
// one pass over the bytes, not a copy of them (Raw is line, trimmed).
// The error names what is wrong, as Peek's does.
func Decode(line []byte) (View, error) {
	var v View
	err := DecodeInto(&v, line)
	return v, err
}

// DecodeInto is Decode into v, reusing the storage of v's members: a
// reader that keeps only the records (and values inside the line) decodes
// line after line without allocating. The members an earlier call gave v
// are overwritten; the Record and values it returned stay valid.
func DecodeInto(v *View, line []byte) error {
	return decodeInto(v, line, false, false)
}

// decodeInto is DecodeInto told whether line is all ASCII and holds no
// byte below 0x20 (byteClasses), so that the skimmer need not look for a
// control byte in each string nor check the UTF-8 of the base fields.
func decodeInto(v *View, line []byte, ascii, noCtl bool) error {
	line = bytes.TrimSpace(line)
	if decodeFast(v, line, ascii, noCtl) {
		return nil
	}
	*v = View{}
	if !json.Valid(line) {
		var x any
		return jsonError(json.Unmarshal(line, &x))
	}
	h, err := Peek(line)
	if err != nil {
		return err
	}
	o, err := ParseObject(line)
	if err != nil {
		return err
	}
	*v = View{Record: Record{Raw: line, Type: h.Type, ID: h.ID, ParentID: h.ParentID, Timestamp: h.Time, Pending: h.Pending,
		Blob: bytes.Contains(line, []byte(`"`+BlobPrefix))}, spaced: true, escaped: true}
	for _, k := range o.keys {
		v.Members = append(v.Members, Member{k, o.vals[k]})
	}
	return nil
}

// decodeFast is Decode over the skimmer, the one pass that checks a
// line's structure and reads its base fields; false for anything it does
// not take as it is (a structure error, a base field of the wrong type, a
// key with an escape), which the slow path then reads or reports.
func decodeFast(v *View, line []byte, ascii, noCtl bool) bool {
	s := skimmer{b: line, ascii: ascii, noCtl: noCtl}
	members := v.Members[:0]
	if members == nil {
		members = make([]Member, 0, 8)
	}
	var h Head
	good := s.object(func(key, val []byte) bool {
		k, ok := plainKey(key)
		if !ok || !h.readIn(key, val, s.ascii) {
			return false
		}
		for i := range members {
			if members[i].Key == k {
				members[i].Val = val
				return true
			}
		}
		members = append(members, Member{k, val})
		return true
	})
	if !good || h.Type == "" {
		return false
	}
	*v = View{Record: Record{Raw: line, Type: h.Type, ID: h.ID, ParentID: h.ParentID, Timestamp: h.Time, Pending: h.Pending, Blob: s.blob},
		Members: members, spaced: s.spaced}
	return true
}

// plainKey is a raw key as a string when json.Marshal writes it back as
// it is: printable ASCII without a quote, backslash or <, >, & (which it
// escapes). The usual keys are constants.
func plainKey(key []byte) (string, bool) {
	switch string(key) {
	case "type":
		return "type", true
	case "id":
		return "id", true
	case "parentId":
		return "parentId", true
	case "timestamp":
		return "timestamp", true
	case "message":
		return "message", true
	case "pending":
		return "pending", true
	}
	for _, c := range key {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return "", false
		}
	}
	return string(key), true
}

// Get is the raw value of a top-level member.
func (v *View) Get(key string) (json.RawMessage, bool) {
	for i := range v.Members {
		if v.Members[i].Key == key {
			return v.Members[i].Val, true
		}
	}
	return nil, false
}

// Set replaces a top-level member's value in place, or appends the member.
func (v *View) Set(key string, val json.RawMessage) {
	for i := range v.Members {
		if v.Members[i].Key == key {
			v.Members[i].Val = val
			return
		}
	}
	v.Members = append(v.Members, Member{key, val})
}

// Str is a top-level member's string value ("" when absent or not a string).
func (v *View) Str(key string) string {
	val, _ := v.Get(key)
	s, _ := CommonStrVal(val)
	return s
}

// AppendMembers appends the record's members but those of drop as the
// inside of a JSON object ("k":v,"k":v — no braces), compact, each value
// byte for byte unless whitespace between tokens was compacted away.
func (v *View) AppendMembers(b []byte, drop ...string) []byte {
	first := true
next:
	for _, m := range v.Members {
		for _, d := range drop {
			if m.Key == d {
				continue next
			}
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		if v.escaped {
			kb, _ := json.Marshal(m.Key)
			b = append(b, kb...)
		} else {
			b = append(append(append(b, '"'), m.Key...), '"')
		}
		b = append(b, ':')
		if v.spaced {
			var buf bytes.Buffer
			if json.Compact(&buf, m.Val) == nil {
				b = append(b, buf.Bytes()...)
				continue
			}
		}
		b = append(b, m.Val...)
	}
	return b
}

// memberMap is the members of the JSON object raw as a map (the last
// value of a repeated key), read by the skimmer, or by encoding/json for
// a key with an escape; the error is encoding/json's for what it rejects.
func memberMap(raw []byte) (map[string]json.RawMessage, error) {
	m := make(map[string]json.RawMessage, 8)
	if Members(raw, func(key, val []byte) bool {
		k, ok := plainKey(key)
		m[k] = val
		return ok
	}) {
		return m, nil
	}
	clear(m)
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, jsonError(err)
	}
	return m, nil
}

// numVal reads a JSON number.
func numVal(v []byte) (float64, error) { return strconv.ParseFloat(string(v), 64) }
