package llm

import (
	"bytes"
	"io"
	"strings"

	"github.com/agentutils/agentutils/lib/jsonw"
)

// A request body is kept as the value tree the codec built and encoded when
// it is sent, straight into the connection: a long session's body (megabytes
// of history) is never held as bytes besides the messages it comes from.
// The encoding is byte for byte what encoding/json.Marshal writes for the
// tree (sorted map keys, HTML-safe escaping), so goldens and cassettes do
// not depend on which path built the bytes.

// bodyOptions write what encoding/json.Marshal writes.
var bodyOptions = jsonw.Options{EscapeHTML: true, Order: strings.Compare}

// WriteBody encodes the request body to w.
func (r Request) WriteBody(w io.Writer) error {
	if r.payload == nil {
		_, err := w.Write(r.Body)
		return err
	}
	return jsonw.NewEncoder(w, bodyOptions).Encode(r.payload)
}

// Encode is the encoded body, held as bytes.
func (r Request) Encode() ([]byte, error) {
	if r.payload == nil {
		return r.Body, nil
	}
	var b bytes.Buffer
	if err := r.WriteBody(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// BodyBytes is Encode for a body known to encode (nil when it does not).
func (r Request) BodyBytes() []byte {
	b, _ := r.Encode()
	return b
}

// obj is a JSON object as a list of members in key order, the order
// encoding/json writes a map in: a codec builds one or more per message of
// a long history, and a short slice costs a fraction of a map. Members
// out of order are written sorted all the same.
type obj = jsonw.Object

type member = jsonw.Member

// lazyArray is an array whose elements are built while it is encoded, one
// at a time: the per-message values of a long history never exist all at
// once.
type lazyArray = jsonw.LazyArray

// set puts key in its place in o's order, replacing a member of that name.
func set(o obj, key string, val any) obj {
	i := 0
	for i < len(o) && o[i].Key < key {
		i++
	}
	if i < len(o) && o[i].Key == key {
		o[i].Val = val
		return o
	}
	o = append(o, member{})
	copy(o[i+1:], o[i:])
	o[i] = member{key, val}
	return o
}
