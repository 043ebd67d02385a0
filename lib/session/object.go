package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Object is a JSON object that keeps its members' order and bytes, so an
// edit of one member leaves every other byte as it was.
type Object struct {
	keys []string
	vals map[string]json.RawMessage
}

// ParseObject reads a JSON object.
func ParseObject(b []byte) (*Object, error) {
	if o, ok := parseObjectFast(b); ok {
		return o, nil
	}
	return parseObjectDecode(b)
}

// parseObjectFast is ParseObject over the skimmer (one pass, no
// json.Decoder tokens: pruning parses every tool result it replaces);
// false for a structure it does not take or a key with an escape or
// invalid UTF-8, which parseObjectDecode then reads or reports.
func parseObjectFast(b []byte) (*Object, bool) {
	o := &Object{vals: map[string]json.RawMessage{}}
	b = bytes.Clone(b) // the values are the caller's, as the decoder's copies are
	ok := Members(b, func(key, val []byte) bool {
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			return false
		}
		k := string(key)
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = val
		return true
	})
	return o, ok
}

// parseObjectDecode is ParseObject by json.Decoder.
func parseObjectDecode(b []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil {
		return nil, jsonError(err)
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	o := &Object{vals: map[string]json.RawMessage{}}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, jsonError(err)
		}
		k, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, jsonError(err)
		}
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonError(err)
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the object")
	}
	return o, nil
}

// Get returns a member's raw value.
func (o *Object) Get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// Set replaces a member (in place) or appends it.
func (o *Object) Set(k string, v json.RawMessage) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Delete removes a member.
func (o *Object) Delete(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// Bytes renders the object compactly, members in order.
func (o *Object) Bytes() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		if err := json.Compact(&b, o.vals[k]); err != nil {
			b.Write(o.vals[k])
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}
