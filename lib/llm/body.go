package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A request body is kept as the value tree the codec built and encoded when
// it is sent, straight into the connection: a long session's body (megabytes
// of history) is never held as bytes besides the messages it comes from.
// The encoding is byte for byte what encoding/json.Marshal writes for the
// tree (sorted map keys, HTML-safe escaping), so goldens and cassettes do
// not depend on which path built the bytes.

// WriteBody encodes the request body to w.
func (r Request) WriteBody(w io.Writer) error {
	if r.payload == nil {
		_, err := w.Write(r.Body)
		return err
	}
	e := bodyEncoder{w: w, buf: make([]byte, 0, 32<<10)}
	e.value(r.payload)
	e.flush()
	return e.err
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

// bodyEncoder writes a value tree of map[string]any, obj, []any,
// []map[string]any, string, bool, int, nil and json.RawMessage itself (any
// other type goes through json.Marshal) through a small buffer.
type bodyEncoder struct {
	w   io.Writer
	buf []byte
	err error
}

// encodeSlice writes a slice as a JSON array (null when nil, as
// encoding/json does).
func encodeSlice[T any](e *bodyEncoder, xs []T) {
	if xs == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	e.buf = append(e.buf, '[')
	for i, el := range xs {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.value(el)
	}
	e.buf = append(e.buf, ']')
}

func (e *bodyEncoder) flush() {
	if len(e.buf) > 0 && e.err == nil {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

func (e *bodyEncoder) grow() {
	if len(e.buf) >= 16<<10 {
		e.flush()
	}
}

func (e *bodyEncoder) value(v any) {
	if e.err != nil {
		return
	}
	e.grow()
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case string:
		e.str(x)
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case map[string]any:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return
		}
		o := make(obj, 0, len(x))
		for k, v := range x {
			o = append(o, member{k, v})
		}
		slices.SortFunc(o, byKey) // a fresh slice: sorted in place
		e.object(o)
	case obj:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.object(x)
	case []any:
		encodeSlice(e, x)
	case []map[string]any:
		encodeSlice(e, x)
	case lazyArray:
		n := 0
		if err := x(func(el any) {
			if n == 0 {
				e.buf = append(e.buf, '[')
			} else {
				e.buf = append(e.buf, ',')
			}
			n++
			e.value(el)
		}); err != nil && e.err == nil {
			e.err = err
		}
		if n == 0 {
			e.buf = append(e.buf, "null"...)
		} else {
			e.buf = append(e.buf, ']')
		}
	case json.RawMessage:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return
		}
		// Marshal compacts and HTML-escapes raw JSON (and rejects invalid).
		var c bytes.Buffer
		if err := json.Compact(&c, x); err != nil {
			e.err = fmt.Errorf("json: invalid raw JSON in the request: %v", err)
			return
		}
		var h bytes.Buffer
		json.HTMLEscape(&h, c.Bytes())
		e.buf = append(e.buf, h.Bytes()...)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			e.err = err
			return
		}
		e.buf = append(e.buf, b...)
	}
}

// obj is a JSON object as a list of members in key order, the order
// encoding/json writes a map in: a codec builds one or more per message of
// a long history, and a short slice costs a fraction of a map. Members
// out of order are written sorted all the same.
type obj []member

type member struct {
	key string
	val any
}

// set puts key in its place in the order, replacing a member of that name.
func (o obj) set(key string, val any) obj {
	i := 0
	for i < len(o) && o[i].key < key {
		i++
	}
	if i < len(o) && o[i].key == key {
		o[i].val = val
		return o
	}
	o = append(o, member{})
	copy(o[i+1:], o[i:])
	o[i] = member{key, val}
	return o
}

func byKey(a, b member) int { return strings.Compare(a.key, b.key) }

func (e *bodyEncoder) object(o obj) {
	if !slices.IsSortedFunc(o, byKey) {
		o = slices.SortedStableFunc(slices.Values(o), byKey)
	}
	e.buf = append(e.buf, '{')
	for i, m := range o {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.str(m.key)
		e.buf = append(e.buf, ':')
		e.value(m.val)
	}
	e.buf = append(e.buf, '}')
}

// lazyArray is an array whose elements are built while it is encoded, one
// at a time: the per-message values of a long history never exist all at
// once. It calls emit for each element, the same way each time, and fails
// the body with its error. One that emits nothing is null, as the nil slice
// a codec would have built is.
type lazyArray func(emit func(any)) error

const hexDigits = "0123456789abcdef"

// str writes s as encoding/json does with HTML escaping: invalid UTF-8
// becomes \ufffd, U+2028 and U+2029 are escaped.
func (e *bodyEncoder) str(s string) {
	e.buf = append(e.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		// Plain runs are skipped eight bytes at a time; a long string goes
		// out in pieces of at most 32 KiB.
		if n := plainPrefixString(s[i:min(len(s), i+32<<10)], true); n > 0 {
			i += n
			if i-start >= 32<<10 {
				e.buf = append(e.buf, s[start:i]...)
				start = i
				e.flush()
			}
			continue
		}
		if b := s[i]; b < utf8.RuneSelf { // a byte to escape
			e.buf = append(e.buf, s[start:i]...)
			switch b {
			case '\\', '"':
				e.buf = append(e.buf, '\\', b)
			case '\b':
				e.buf = append(e.buf, '\\', 'b')
			case '\f':
				e.buf = append(e.buf, '\\', 'f')
			case '\n':
				e.buf = append(e.buf, '\\', 'n')
			case '\r':
				e.buf = append(e.buf, '\\', 'r')
			case '\t':
				e.buf = append(e.buf, '\\', 't')
			default:
				e.buf = append(e.buf, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			if len(e.buf) >= 16<<10 {
				e.flush()
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			e.buf = append(e.buf, s[start:i]...)
			e.buf = append(e.buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			e.buf = append(e.buf, s[start:i]...)
			e.buf = append(e.buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
		if i-start >= 32<<10 {
			e.buf = append(e.buf, s[start:i]...)
			start = i
			e.flush()
		}
	}
	e.buf = append(e.buf, s[start:]...)
	e.buf = append(e.buf, '"')
	if len(e.buf) >= 16<<10 {
		e.flush()
	}
}
