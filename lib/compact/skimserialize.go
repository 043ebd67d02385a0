package compact

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/agentutils/agentutils/lib/session"
)

// skimSerialized is parse for Serialize, which reads a message's role and
// its blocks' type, text, thinking, name and arguments only: the message
// skimmed, its strings decoded without encoding/json's reflection (which
// was half of agent-compact's time summarising a long session). False for
// anything encoding/json might read otherwise: a field of another type or
// null, a key that matches a field's name only case-insensitively or
// through an escape, a content element that is not an object. parse then
// reads it.
func skimSerialized(raw []byte) (role string, bs []block, ok bool) {
	var content []byte
	ok = session.Members(raw, func(k, v []byte) bool {
		switch string(k) {
		case "role":
			var good bool
			role, good = session.CommonStrVal(v)
			return good
		case "content":
			content = v
			return true
		}
		return plainOther(k, "role", "content")
	})
	if !ok {
		return "", nil, false
	}
	switch {
	case content == nil || string(content) == "null":
		return role, nil, true
	case content[0] == '"':
		t, good := session.StrVal(content)
		return role, []block{{Type: "text", Text: t}}, good
	case content[0] != '[':
		return "", nil, false
	}
	bs = []block{}
	ok = session.Elements(content, func(e []byte) bool {
		b, good := skimBlock(e)
		bs = append(bs, b)
		return good
	})
	return role, bs, ok
}

// skimBlock is a content block as parse decodes it (skimSerialized).
func skimBlock(e []byte) (b block, ok bool) {
	if len(e) == 0 || e[0] != '{' {
		return b, false
	}
	ok = session.Members(e, func(k, v []byte) bool {
		var f *string
		switch string(k) {
		case "type":
			f = &b.Type
		case "text":
			f = &b.Text
		case "thinking":
			f = &b.Thinking
		case "name":
			f = &b.Name
		case "arguments":
			b.Arguments = v
			return true
		default:
			return plainOther(k, "type", "text", "thinking", "name", "arguments")
		}
		var good bool
		*f, good = session.CommonStrVal(v)
		return good
	})
	return b, ok
}

// skimArgs is a tool call's arguments as json.Unmarshal into a map of raw
// values reads them, for an object whose keys are plain (no escape,
// valid UTF-8); false for anything else.
func skimArgs(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	args := map[string]json.RawMessage{}
	ok := session.Members(raw, func(k, v []byte) bool {
		if bytes.IndexByte(k, '\\') >= 0 || !utf8.Valid(k) {
			return false
		}
		args[string(k)] = v
		return true
	})
	return args, ok
}

// plainOther says a key other than the fields is one encoding/json does
// not read into any of them: no escape, and not one of their names in
// another case.
func plainOther(k []byte, fields ...string) bool {
	if bytes.IndexByte(k, '\\') >= 0 {
		return false
	}
	for _, f := range fields {
		if strings.EqualFold(string(k), f) {
			return false
		}
	}
	return true
}
