// Package jsonw writes JSON with the member order its caller chooses, the
// one writer of ordered JSON: lib/llm's request bodies (keys in name order,
// HTML-safe, streamed into the connection), lib/session's rewritten entries
// (keys in the order they were read) and lib/transcript's converted
// sessions (keys ranked as pi writes them). Strings, numbers and raw JSON
// come out byte for byte as encoding/json writes them with the same
// escaping.
package jsonw

import (
	"bytes"
	"encoding/json"
)

// Member is one member of an Object (an alias of a struct literal type, so
// that other packages may write members as {key, value}).
type Member = struct {
	Key string
	Val any
}

// Object is a JSON object as a list of members, written in the order of
// the list (or sorted, when the Encoder has an Order).
type Object []Member

// Get is the value of key, nil when there is no such member.
func (o Object) Get(key string) any {
	for _, m := range o {
		if m.Key == key {
			return m.Val
		}
	}
	return nil
}

// Set replaces the member named key, or appends one.
func (o Object) Set(key string, val any) Object {
	for i := range o {
		if o[i].Key == key {
			o[i].Val = val
			return o
		}
	}
	return append(o, Member{key, val})
}

// Delete removes the member named key; ok tells whether there was one.
func (o Object) Delete(key string) (Object, bool) {
	for i := range o {
		if o[i].Key == key {
			return append(o[:i:i], o[i+1:]...), true
		}
	}
	return o, false
}

// Decode parses one JSON value keeping the order of object members:
// objects become Object, arrays []any, numbers json.Number.
func Decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return decodeValue(dec)
}

func decodeValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := t.(json.Delim)
	if !ok {
		return t, nil
	}
	if d == '{' {
		o := Object{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o = append(o, Member{kt.(string), v})
		}
		_, err := dec.Token()
		return o, err
	}
	a := []any{}
	for dec.More() {
		v, err := decodeValue(dec)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
	}
	_, err = dec.Token()
	return a, err
}
