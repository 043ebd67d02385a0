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

// BodyTemplate is an encoded request body with a hole for one text: a
// body built with a placeholder in that text's place, cut around it. A
// run that knows everything of its first request but the prompt builds
// it ahead this way, and only the prompt is encoded when it comes.
type BodyTemplate struct{ head, tail []byte }

// CutBody cuts body around the encoded placeholder, which must occur in
// it once (ok is false otherwise, and for a placeholder the encoding
// changes).
func CutBody(body []byte, placeholder string) (t BodyTemplate, ok bool) {
	enc := quoted(placeholder)
	if enc != placeholder || bytes.Count(body, []byte(enc)) != 1 {
		return t, false
	}
	i := bytes.Index(body, []byte(enc))
	return BodyTemplate{head: body[:i], tail: body[i+len(enc):]}, true
}

// Parts are the body with text in the hole, in three parts: what comes
// before, text encoded, what comes after (With is the three joined).
func (t BodyTemplate) Parts(text string) (head []byte, enc string, tail []byte) {
	return t.head, quoted(text), t.tail
}

// With is the body with text in the hole, encoded as the body's strings
// are: the body the codec builds with text in the placeholder's place,
// when the codec puts the text into the body as it is.
func (t BodyTemplate) With(text string) []byte {
	enc := quoted(text)
	b := make([]byte, 0, len(t.head)+len(enc)+len(t.tail))
	return append(append(append(b, t.head...), enc...), t.tail...)
}

// quoted is s as the body encodes it inside a string's quotes.
func quoted(s string) string {
	b, _ := jsonw.Append(nil, s, bodyOptions)
	return string(b[1 : len(b)-1])
}
