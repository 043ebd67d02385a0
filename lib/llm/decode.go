package llm

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/agentutils/agentutils/lib/jsonw"
)

// DecodeMessage decodes a Message from its JSON (pi's LLM Message, as the
// session holds it): what json.Unmarshal(b, &m) gives, in one pass without
// reflection. Anything out of the common shape (null values, non-integer
// numbers in integer fields, invalid UTF-8, duplicate or case-variant keys,
// malformed JSON) is left to json.Unmarshal, so the result and the errors
// are always encoding/json's.
func DecodeMessage(b []byte) (Message, error) {
	return decodeMessage(b, false)
}

// decodeMessage is DecodeMessage; with alias set, the strings and raw
// values of the message share b's bytes instead of copying them (escaped
// strings are still built), so b must not change while the message is in
// use. Context.Each decodes History this way: the history's bytes outlive
// each message it yields, and a request never changes them.
func decodeMessage(b []byte, alias bool) (Message, error) {
	d := decoder{alias: alias}
	return d.decode(b)
}

// CheckHistory reports the first message of raws that does not decode: its
// index and DecodeMessage's error for it (-1 and nil when all do). Nothing
// is kept or copied: the strings share raws, and one content array serves
// every message.
func CheckHistory(raws []json.RawMessage) (int, error) {
	d := decoder{alias: true, reuse: true}
	for i, raw := range raws {
		if _, err := d.decode(raw); err != nil {
			return i, err
		}
	}
	return -1, nil
}

// decode decodes the message in b: decodeMessage, with d's settings.
func (d *decoder) decode(b []byte) (Message, error) {
	d.b, d.i = b, 0
	if m, ok := d.message(); ok {
		d.ws()
		if d.i == len(d.b) {
			return m, nil
		}
	}
	var m Message
	err := json.Unmarshal(b, &m)
	return m, err
}

type decoder struct {
	b     []byte
	i     int
	alias bool // strings and raw values share b (decodeMessage)
	// reuse, set by Context.each for a caller that lets go of each message
	// before the next one, decodes a message's content blocks into blocks
	// and its usage into use, from one message to the next, instead of
	// allocating them for each: a long history then leaves no garbage.
	reuse  bool
	blocks []Content
	use    *Usage
}

func (d *decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// object calls fn for each member; fn returns false to give up.
func (d *decoder) object(fn func(key string) bool) bool {
	return d.list('{', '}', func() bool {
		// A key is only compared, never kept: it shares b whatever alias
		// says, so decoding a member allocates nothing for its name.
		alias := d.alias
		d.alias = true
		k, ok := d.str()
		d.alias = alias
		if !ok {
			return false
		}
		d.ws()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return false
		}
		d.i++
		d.ws()
		return fn(k)
	})
}

// array calls fn for each element.
func (d *decoder) array(fn func() bool) bool { return d.list('[', ']', fn) }

// list reads open, elements separated by commas (each read by elem), and
// close; elem returns false to give up.
func (d *decoder) list(open, close byte, elem func() bool) bool {
	d.ws()
	if d.i >= len(d.b) || d.b[d.i] != open {
		return false
	}
	d.i++
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == close {
		d.i++
		return true
	}
	for {
		d.ws()
		if !elem() {
			return false
		}
		d.ws()
		if d.i >= len(d.b) {
			return false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case close:
			d.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string (valid UTF-8 only: encoding/json replaces invalid
// bytes, the slow path does that).
func (d *decoder) str() (string, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", false
	}
	start := d.i + 1
	ascii := true
	for j := start; j < len(d.b); j++ {
		j += jsonw.PlainPrefix(d.b[j:], false)
		if j == len(d.b) {
			break
		}
		c := d.b[j]
		switch {
		case c == '"':
			d.i = j + 1
			if !ascii && !utf8.Valid(d.b[start:j]) {
				return "", false
			}
			if d.alias && j > start {
				return unsafe.String(&d.b[start], j-start), true
			}
			return string(d.b[start:j]), true
		case c == '\\':
			return d.unescape(start)
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

func (d *decoder) unescape(start int) (string, bool) {
	var sb strings.Builder
	j := start
	for j < len(d.b) {
		c := d.b[j]
		switch {
		case c == '"':
			d.i = j + 1
			s := sb.String()
			if !utf8.ValidString(s) {
				return "", false
			}
			return s, true
		case c < 0x20:
			return "", false
		case c != '\\':
			k := j
			for k < len(d.b) && d.b[k] != '\\' && d.b[k] != '"' && d.b[k] >= 0x20 {
				k++
			}
			if sb.Cap() == 0 {
				sb.Grow(k - start + 16)
			}
			sb.Write(d.b[j:k])
			j = k
			continue
		}
		if j+1 >= len(d.b) {
			return "", false
		}
		if sb.Cap() == 0 {
			sb.Grow(len(d.b) - start)
		}
		switch e := d.b[j+1]; e {
		case '"', '\\', '/':
			sb.WriteByte(e)
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r, ok := hex4(d.b, j+2)
			if !ok {
				return "", false
			}
			j += 6
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if j+1 < len(d.b) && d.b[j] == '\\' && d.b[j+1] == 'u' {
					r2, ok = hex4(d.b, j+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					j += 6
					r = dec
				} else {
					r = utf8.RuneError
				}
			}
			sb.WriteRune(r)
			continue
		default:
			return "", false
		}
		j += 2
	}
	return "", false
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// number reads a JSON number literal.
func (d *decoder) number() ([]byte, bool) {
	j := d.i
	if j < len(d.b) && d.b[j] == '-' {
		j++
	}
	switch {
	case j < len(d.b) && d.b[j] == '0':
		j++
	case j < len(d.b) && d.b[j] >= '1' && d.b[j] <= '9':
		for j < len(d.b) && d.b[j] >= '0' && d.b[j] <= '9' {
			j++
		}
	default:
		return nil, false
	}
	if j < len(d.b) && d.b[j] == '.' {
		j++
		k := j
		for j < len(d.b) && d.b[j] >= '0' && d.b[j] <= '9' {
			j++
		}
		if j == k {
			return nil, false
		}
	}
	if j < len(d.b) && (d.b[j] == 'e' || d.b[j] == 'E') {
		j++
		if j < len(d.b) && (d.b[j] == '+' || d.b[j] == '-') {
			j++
		}
		k := j
		for j < len(d.b) && d.b[j] >= '0' && d.b[j] <= '9' {
			j++
		}
		if j == k {
			return nil, false
		}
	}
	lit := d.b[d.i:j]
	d.i = j
	return lit, true
}

func (d *decoder) int64() (int64, bool) {
	lit, ok := d.number()
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(string(lit), 10, 64)
	return n, err == nil
}

func (d *decoder) int() (int, bool) {
	n, ok := d.int64()
	return int(n), ok && int64(int(n)) == n
}

func (d *decoder) float() (float64, bool) {
	lit, ok := d.number()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	return f, err == nil
}

func (d *decoder) bool() (bool, bool) {
	switch {
	case bytes.HasPrefix(d.b[d.i:], []byte("true")):
		d.i += 4
		return true, true
	case bytes.HasPrefix(d.b[d.i:], []byte("false")):
		d.i += 5
		return false, true
	}
	return false, false
}

// skip passes over any value (nesting bounded like encoding/json's).
func (d *decoder) skip(depth int) bool {
	if depth > 10000 || d.i >= len(d.b) {
		return false
	}
	switch c := d.b[d.i]; {
	case c == '"':
		_, ok := d.str()
		return ok
	case c == '{':
		return d.object(func(string) bool { return d.skip(depth + 1) })
	case c == '[':
		return d.array(func() bool { return d.skip(depth + 1) })
	case c == 't' || c == 'f':
		_, ok := d.bool()
		return ok
	case c == 'n':
		if bytes.HasPrefix(d.b[d.i:], []byte("null")) {
			d.i += 4
			return true
		}
		return false
	default:
		_, ok := d.number()
		return ok
	}
}

// raw copies the next value's bytes (an object or array; null and the
// rest take the slow path).
func (d *decoder) raw() (json.RawMessage, bool) {
	if d.i >= len(d.b) || (d.b[d.i] != '{' && d.b[d.i] != '[') {
		return nil, false
	}
	start := d.i
	if !d.skip(0) {
		return nil, false
	}
	if d.alias {
		return json.RawMessage(d.b[start:d.i:d.i]), true
	}
	return append(json.RawMessage(nil), d.b[start:d.i]...), true
}

// fields reads an object of the given field names, set decoding the value
// of each field present (false: give up). A repeated field, or a key that
// differs from a field name only in case, is left to encoding/json (false);
// other keys are skipped.
func (d *decoder) fields(names []string, set func(k string) bool) bool {
	var seen uint32 // bit i: names[i] was read
	return d.object(func(k string) bool {
		for i, f := range names {
			if f == k {
				if seen&(1<<i) != 0 {
					return false
				}
				seen |= 1 << i
				return set(k)
			}
		}
		for _, f := range names {
			if strings.EqualFold(k, f) {
				return false
			}
		}
		return d.skip(0)
	})
}

var messageFields = []string{"role", "content", "api", "provider", "model", "usage", "stopReason", "errorMessage",
	"toolCallId", "toolName", "details", "isError", "synthetic", "timestamp"}

func (d *decoder) message() (Message, bool) {
	var m Message
	ok := d.fields(messageFields, func(k string) bool {
		var ok bool
		switch k {
		case "role":
			m.Role, ok = d.str()
		case "content":
			if d.i < len(d.b) && d.b[d.i] == '"' {
				var t string
				t, ok = d.str()
				m.Content = append(d.newBlocks(), TextBlock(t))
				d.keep(m.Content)
				return ok
			}
			m.Content = d.newBlocks()
			ok = d.array(func() bool {
				c, ok := d.content()
				m.Content = append(m.Content, c)
				return ok
			})
			d.keep(m.Content)
		case "api":
			m.API, ok = d.str()
		case "provider":
			m.Provider, ok = d.str()
		case "model":
			m.Model, ok = d.str()
		case "usage":
			m.Usage = d.newUsage()
			ok = d.usage(m.Usage)
		case "stopReason":
			m.StopReason, ok = d.str()
		case "errorMessage":
			m.ErrorMessage, ok = d.str()
		case "toolCallId":
			m.ToolCallID, ok = d.str()
		case "toolName":
			m.ToolName, ok = d.str()
		case "details":
			m.Details, ok = d.raw()
		case "isError":
			m.IsError, ok = d.bool()
		case "synthetic":
			m.Synthetic, ok = d.bool()
		case "timestamp":
			m.Timestamp, ok = d.int64()
		}
		return ok
	})
	return m, ok
}

// newBlocks is an empty, non-nil content slice: the reused array when
// reusing.
func (d *decoder) newBlocks() []Content {
	if d.reuse {
		return d.blocks[:0]
	}
	return []Content{}
}

// newUsage is a zero Usage: the reused one when reusing.
func (d *decoder) newUsage() *Usage {
	if !d.reuse {
		return &Usage{}
	}
	if d.use == nil {
		d.use = new(Usage)
	}
	*d.use = Usage{}
	return d.use
}

// keep remembers a grown content array for the next message.
func (d *decoder) keep(cs []Content) {
	if d.reuse {
		d.blocks = cs[:0]
	}
}

var contentFields = []string{"type", "text", "textSignature", "thinking", "thinkingSignature", "redacted", "id", "name",
	"arguments", "thoughtSignature", "data", "mimeType"}

func (d *decoder) content() (Content, bool) {
	var c Content
	ok := d.fields(contentFields, func(k string) bool {
		var ok bool
		switch k {
		case "type":
			c.Type, ok = d.str()
		case "text":
			c.Text, ok = d.str()
		case "textSignature":
			c.TextSignature, ok = d.str()
		case "thinking":
			c.Thinking, ok = d.str()
		case "thinkingSignature":
			c.ThinkingSignature, ok = d.str()
		case "redacted":
			c.Redacted, ok = d.bool()
		case "id":
			c.ID, ok = d.str()
		case "name":
			c.Name, ok = d.str()
		case "arguments":
			c.Arguments, ok = d.raw()
		case "thoughtSignature":
			c.ThoughtSignature, ok = d.str()
		case "data":
			c.Data, ok = d.str()
		case "mimeType":
			c.MimeType, ok = d.str()
		}
		return ok
	})
	return c, ok
}

var usageFields = []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"}
var costFields = []string{"input", "output", "cacheRead", "cacheWrite", "total"}

func (d *decoder) usage(u *Usage) bool {
	return d.fields(usageFields, func(k string) bool {
		var ok bool
		switch k {
		case "input":
			u.Input, ok = d.int()
		case "output":
			u.Output, ok = d.int()
		case "cacheRead":
			u.CacheRead, ok = d.int()
		case "cacheWrite":
			u.CacheWrite, ok = d.int()
		case "totalTokens":
			u.TotalTokens, ok = d.int()
		case "cost":
			ok = d.fields(costFields, func(k string) bool {
				var ok bool
				switch k {
				case "input":
					u.Cost.Input, ok = d.float()
				case "output":
					u.Cost.Output, ok = d.float()
				case "cacheRead":
					u.Cost.CacheRead, ok = d.float()
				case "cacheWrite":
					u.Cost.CacheWrite, ok = d.float()
				case "total":
					u.Cost.Total, ok = d.float()
				}
				return ok
			})
		}
		return ok
	})
}
