package jsonw

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

// Options say how an Encoder writes.
type Options struct {
	// EscapeHTML writes <, > and & as \u003c, \u003e and \u0026, as
	// encoding/json.Marshal does.
	EscapeHTML bool
	// Order sorts the members of maps and Objects (stably; an Object
	// already in order is written as it is). Without it maps are written
	// in name order, as encoding/json does, and Objects in their own order.
	Order func(a, b string) int
	// NilEmpty writes a nil slice or map as [] or {} (encoding/json
	// writes null).
	NilEmpty bool
}

// LazyArray is an array whose elements are built while it is encoded, one
// at a time: the elements never exist all at once. It calls emit for each
// element, the same way each time, and fails the encoding with its error.
// One that emits nothing is null, as a nil slice is.
type LazyArray func(emit func(any)) error

// An Encoder writes a value tree of map[string]any, Object, []any,
// []map[string]any, LazyArray, string, bool, int, nil and json.RawMessage
// itself (any other type goes through encoding/json) through a small
// buffer.
type Encoder struct {
	w   io.Writer
	buf []byte
	err error
	opt Options
}

// NewEncoder is an Encoder writing to w.
func NewEncoder(w io.Writer, opt Options) *Encoder {
	return &Encoder{w: w, buf: make([]byte, 0, 32<<10), opt: opt}
}

// Encode writes v.
func (e *Encoder) Encode(v any) error {
	e.value(v)
	e.flush()
	return e.err
}

// Append appends the encoding of v to dst.
func Append(dst []byte, v any, opt Options) ([]byte, error) {
	e := Encoder{buf: dst, opt: opt}
	e.value(v)
	return e.buf, e.err
}

func (e *Encoder) null(empty string) {
	if e.opt.NilEmpty {
		e.buf = append(e.buf, empty...)
		return
	}
	e.buf = append(e.buf, "null"...)
}

// encodeSlice writes a slice as a JSON array.
func encodeSlice[T any](e *Encoder, xs []T) {
	if xs == nil {
		e.null("[]")
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

func (e *Encoder) flush() {
	if e.w == nil {
		return
	}
	if len(e.buf) > 0 && e.err == nil {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

func (e *Encoder) grow() {
	if len(e.buf) >= 16<<10 {
		e.flush()
	}
}

func (e *Encoder) value(v any) {
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
			e.null("{}")
			return
		}
		o := make(Object, 0, len(x))
		for k, v := range x {
			o = append(o, Member{k, v})
		}
		slices.SortFunc(o, e.compare) // a fresh slice: sorted in place
		e.object(o)
	case Object:
		if x == nil {
			e.null("{}")
			return
		}
		if e.opt.Order != nil && !slices.IsSortedFunc(x, e.compare) {
			x = slices.SortedStableFunc(slices.Values(x), e.compare)
		}
		e.object(x)
	case []any:
		encodeSlice(e, x)
	case []map[string]any:
		encodeSlice(e, x)
	case LazyArray:
		e.lazy(x)
	case json.RawMessage:
		e.raw(x)
	default:
		e.marshal(x)
	}
}

func (e *Encoder) compare(a, b Member) int {
	if e.opt.Order != nil {
		return e.opt.Order(a.Key, b.Key)
	}
	return strings.Compare(a.Key, b.Key)
}

func (e *Encoder) object(o Object) {
	e.buf = append(e.buf, '{')
	for i, m := range o {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.str(m.Key)
		e.buf = append(e.buf, ':')
		e.value(m.Val)
	}
	e.buf = append(e.buf, '}')
}

func (e *Encoder) lazy(x LazyArray) {
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
}

// raw writes raw JSON compacted (and HTML-escaped), as encoding/json does.
func (e *Encoder) raw(x json.RawMessage) {
	if x == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	var c bytes.Buffer
	if err := json.Compact(&c, x); err != nil {
		e.err = fmt.Errorf("json: invalid raw JSON: %v", err)
		return
	}
	if !e.opt.EscapeHTML {
		e.buf = append(e.buf, c.Bytes()...)
		return
	}
	var h bytes.Buffer
	json.HTMLEscape(&h, c.Bytes())
	e.buf = append(e.buf, h.Bytes()...)
}

func (e *Encoder) marshal(x any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(e.opt.EscapeHTML)
	if err := enc.Encode(x); err != nil {
		e.err = err
		return
	}
	e.buf = append(e.buf, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}

const hexDigits = "0123456789abcdef"

// str writes s as encoding/json does: invalid UTF-8 becomes \ufffd, U+2028
// and U+2029 are escaped, and <, > and & with EscapeHTML.
func (e *Encoder) str(s string) {
	e.buf = append(e.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		// Plain runs are skipped eight bytes at a time; a long string goes
		// out in pieces of at most 32 KiB.
		if n := plainPrefixString(s[i:min(len(s), i+32<<10)], e.opt.EscapeHTML); n > 0 {
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
			e.escapeByte(b)
			i++
			start = i
			e.grow()
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
	e.grow()
}

func (e *Encoder) escapeByte(b byte) {
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
}
