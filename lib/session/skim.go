package session

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// read sets the base field key names (if it is one) from its raw value,
// as encoding/json reads it into a Head (a null leaves it as it was); false
// for a type, id or parentId that is not a string.
func (h *Head) read(key, val []byte) bool { return h.readIn(key, val, false) }

// readIn is read told (ascii) that the line val is in holds only ASCII.
func (h *Head) readIn(key, val []byte, ascii bool) bool {
	ok := true
	switch string(key) {
	case "type":
		if h.Type, ok = common(val); !ok {
			h.Type, ok = strVal(val, ascii)
		}
	case "id":
		h.ID, ok = strVal(val, ascii)
	case "parentId":
		if string(val) != "null" {
			h.ParentID, ok = strVal(val, ascii)
		}
	case "timestamp":
		h.Time, _ = strVal(val, ascii)
	case "pending":
		h.Pending = string(val) == "true"
	}
	return ok
}

// strVal is StrVal told (ascii) that v is all ASCII, and so valid UTF-8.
func strVal(v []byte, ascii bool) (string, bool) {
	if ascii && len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	return StrVal(v)
}

// common gives a JSON string value that repeats on every record or
// message (entry types, roles, stop reasons, the usual tool names) as a
// constant, so reading it makes no new string (or share of the line);
// false for any other value.
func common(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	switch string(v[1 : len(v)-1]) {
	case "message":
		return "message", true
	case "model_change":
		return "model_change", true
	case "thinking_level_change":
		return "thinking_level_change", true
	case "compaction":
		return "compaction", true
	case "branch_summary":
		return "branch_summary", true
	case "custom_message":
		return "custom_message", true
	case "custom":
		return "custom", true
	case "label":
		return "label", true
	case "session":
		return "session", true
	case "user":
		return "user", true
	case "assistant":
		return "assistant", true
	case "toolResult":
		return "toolResult", true
	case "bashExecution":
		return "bashExecution", true
	case "stop":
		return "stop", true
	case "toolUse":
		return "toolUse", true
	case "length":
		return "length", true
	case "error":
		return "error", true
	case "aborted":
		return "aborted", true
	case "read":
		return "read", true
	case "bash":
		return "bash", true
	case "edit":
		return "edit", true
	case "write":
		return "write", true
	}
	return "", false
}

// CommonStrVal is StrVal with the common values as constants.
func CommonStrVal(v []byte) (string, bool) {
	if s, ok := common(v); ok {
		return s, true
	}
	return StrVal(v)
}

// Members calls fn with each top-level member of a JSON object, its key
// (raw, without quotes) and its value (raw bytes), checking the structure
// as Skim does. It stops when fn returns false and reports whether the
// whole object was read and well formed.
func Members(line []byte, fn func(key, val []byte) bool) bool {
	ok, _ := members(line, fn)
	return ok
}

// members is Members, also saying whether a string of the object (a key
// or value, at any depth) holds `"blob:sha256:` — a blob reference
// session.ResolveBlobs resolves — found as the strings are crossed.
func members(line []byte, fn func(key, val []byte) bool) (ok, blob bool) {
	s := skimmer{b: line}
	ok = s.object(fn)
	return ok, s.blob
}

// object crosses the object s holds (and nothing after it), calling fn
// with each member.
func (s *skimmer) object(fn func(key, val []byte) bool) bool {
	s.ws()
	if !s.eat('{') {
		return false
	}
	s.ws()
	if s.eat('}') {
		s.ws()
		return s.i == len(s.b)
	}
	for {
		s.ws()
		kStart := s.i
		if !s.str() {
			return false
		}
		key := s.b[kStart+1 : s.i-1]
		s.ws()
		if !s.eat(':') {
			return false
		}
		s.ws()
		vStart := s.i
		if !s.value(0) {
			return false
		}
		if !fn(key, s.b[vStart:s.i]) {
			return false
		}
		s.ws()
		if s.eat(',') {
			continue
		}
		if !s.eat('}') {
			return false
		}
		s.ws()
		return s.i == len(s.b)
	}
}

// Elements calls fn with each element (raw bytes) of a JSON array,
// checking the structure as Members does. It stops when fn returns false
// and reports whether the whole array was read and well formed.
func Elements(arr []byte, fn func(val []byte) bool) bool {
	s := skimmer{b: arr}
	s.ws()
	if !s.eat('[') {
		return false
	}
	s.ws()
	if s.eat(']') {
		s.ws()
		return s.i == len(s.b)
	}
	for {
		s.ws()
		start := s.i
		if !s.value(0) {
			return false
		}
		if !fn(s.b[start:s.i]) {
			return false
		}
		s.ws()
		if s.eat(',') {
			continue
		}
		if !s.eat(']') {
			return false
		}
		s.ws()
		return s.i == len(s.b)
	}
}

// StrLen is the length in bytes of a JSON string value once decoded as
// encoding/json decodes it (-1 when v is not a valid string). It counts
// bytes and escapes and decodes nothing: every token estimate goes through
// it, and decoding escaped strings was most of agent-compact's time.
func StrLen(v []byte) int {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return -1
	}
	in := v[1 : len(v)-1]
	n := 0
	for i := 0; i < len(in); {
		c := in[i]
		switch {
		case c == '\\':
			if i+1 >= len(in) {
				return -1
			}
			switch in[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				n++
				i += 2
			case 'u':
				r := hex4(in[i+2:])
				if r < 0 {
					return -1
				}
				i += 6
				if utf16.IsSurrogate(rune(r)) {
					// a pair is one 4-byte rune; a lone half is U+FFFD
					if i+1 < len(in) && in[i] == '\\' && in[i+1] == 'u' {
						if r2 := hex4(in[i+2:]); r2 >= 0 && utf16.DecodeRune(rune(r), rune(r2)) != utf8.RuneError {
							n += 4
							i += 6
							continue
						}
					}
					n += 3
					continue
				}
				n += utf8.RuneLen(rune(r))
			default:
				return -1
			}
		case c == '"' || c < 0x20:
			return -1
		case c < utf8.RuneSelf:
			n++
			i++
		default:
			r, size := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && size == 1 {
				n += 3 // an invalid byte decodes to U+FFFD
			} else {
				n += size
			}
			i += size
		}
	}
	return n
}

// hex4 is the value of the 4 hex digits b starts with (-1 when it does not).
func hex4(b []byte) int {
	if len(b) < 4 {
		return -1
	}
	r := 0
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | int(c)
	}
	return r
}

// StrVal decodes the JSON string value v as encoding/json does, without
// its reflection when v has no escapes and is valid UTF-8 (decoding
// replaces invalid bytes with U+FFFD). It fails when v is not a string.
func StrVal(v []byte) (string, bool) {
	if in, ok := plainStr(v); ok {
		return string(in), true
	}
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(v, &s) == nil
}

// plainStr is the inside of the JSON string v when it decodes to itself: no
// escapes, valid UTF-8.
func plainStr(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	in := v[1 : len(v)-1]
	return in, bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in)
}

type skimmer struct {
	b      []byte
	i      int
	blob   bool // a string crossed holds `"blob:sha256:`
	spaced bool // whitespace was crossed between tokens
	noCtl  bool // b holds no byte below 0x20: strings need no check for one
	ascii  bool // b holds only ASCII
}

func (s *skimmer) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
			s.spaced = true
		default:
			return
		}
	}
}

func (s *skimmer) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str crosses a string, checking that escapes are followed by something
// and that no raw control character is inside.
func (s *skimmer) str() bool {
	if !s.eat('"') {
		return false
	}
	start := s.i
	if len(s.b)-start >= len(BlobPrefix) && s.b[start] == 'b' && string(s.b[start:start+len(BlobPrefix)]) == BlobPrefix {
		s.blob = true
	}
	if s.short(start) {
		return true
	}
	for {
		j := bytes.IndexByte(s.b[s.i:], '"')
		if j < 0 {
			return false
		}
		if !s.noCtl && hasControl(s.b[s.i:s.i+j]) {
			return false
		}
		// An odd run of backslashes before the quote escapes it.
		k := j
		for k > 0 && s.b[s.i+k-1] == '\\' {
			k--
		}
		s.i += j + 1
		if (j-k)%2 == 0 {
			return validEscapes(s.b[start:s.i-1], &s.blob)
		}
	}
}

// shortStr is how far short looks for a string's end.
const shortStr = 32

// short crosses the string whose content starts at start when its closing
// quote is within shortStr bytes and comes before any backslash or control
// byte (most strings: keys, ids, times), eight bytes at a time, without the
// calls of str's general path; false leaves s as it was.
func (s *skimmer) short(start int) bool {
	i, end := start, min(len(s.b), start+shortStr)
	for ; i+8 <= end; i += 8 {
		if m := special(binary.LittleEndian.Uint64(s.b[i:])); m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			if s.b[i] != '"' {
				return false
			}
			s.i = i + 1
			return true
		}
	}
	for ; i < end; i++ {
		switch c := s.b[i]; {
		case c == '"':
			s.i = i + 1
			return true
		case c == '\\' || c < 0x20:
			return false
		}
	}
	return false
}

// special has the high bit of each byte of w (little-endian) that is a
// quote, a backslash or below 0x20 set, exactly for the lowest such byte
// (the bits above it may be set for others too).
func special(w uint64) uint64 {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	q, b := w^(0x22*ones), w^(0x5c*ones)
	return ((q-ones)&^q | (b-ones)&^b | (w-0x20*ones)&^w) & high
}

// validEscapes reports whether every backslash of a string's content
// starts one of JSON's escapes (\" \\ \/ \b \f \n \r \t \uXXXX), as the
// full parser requires ("\0" is not one); an escaped quote followed by
// blob:sha256: sets *blob.
func validEscapes(seg []byte, blob *bool) bool {
	for {
		i := bytes.IndexByte(seg, '\\')
		if i < 0 {
			return true
		}
		if i+1 >= len(seg) {
			return false
		}
		switch seg[i+1] {
		case '"':
			if bytes.HasPrefix(seg[i+2:], []byte(BlobPrefix)) {
				*blob = true
			}
			seg = seg[i+2:]
		case '\\', '/', 'b', 'f', 'n', 'r', 't':
			seg = seg[i+2:]
		case 'u':
			if i+6 > len(seg) {
				return false
			}
			for _, c := range seg[i+2 : i+6] {
				if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
					return false
				}
			}
			seg = seg[i+6:]
		default:
			return false
		}
	}
}

// byteClasses reports whether b is all ASCII (and so valid UTF-8) and
// whether it holds no byte below 0x20, in one pass of 32 bytes at a time
// (hasControl's test, and the high bits or-ed together).
func byteClasses(b []byte) (ascii, noCtl bool) {
	const lo, hi = 0x2020202020202020, 0x8080808080808080
	var high, ctl uint64
	for len(b) >= 32 {
		w0, w1 := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		w2, w3 := binary.LittleEndian.Uint64(b[16:]), binary.LittleEndian.Uint64(b[24:])
		high |= w0 | w1 | w2 | w3
		ctl |= (w0-lo)&^w0 | (w1-lo)&^w1 | (w2-lo)&^w2 | (w3-lo)&^w3
		b = b[32:]
	}
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		high |= w
		ctl |= (w - lo) &^ w
		b = b[8:]
	}
	for _, c := range b {
		high |= uint64(c)
		if c < 0x20 {
			ctl |= hi
		}
	}
	return high&hi == 0, ctl&hi == 0
}

// hasControl reports whether seg holds a byte below 0x20, eight bytes at a
// time (a word has one exactly when (w - 0x20…20) &^ w & 0x80…80 != 0).
func hasControl(seg []byte) bool {
	for len(seg) >= 8 {
		w := binary.LittleEndian.Uint64(seg)
		if (w-0x2020202020202020)&^w&0x8080808080808080 != 0 {
			return true
		}
		seg = seg[8:]
	}
	for _, c := range seg {
		if c < 0x20 {
			return true
		}
	}
	return false
}

func (s *skimmer) value(depth int) bool {
	if depth > 1000 || s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.str()
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		s.i++
		s.ws()
		if s.eat(closer) {
			return true
		}
		for {
			s.ws()
			if c == '{' {
				if !s.str() {
					return false
				}
				s.ws()
				if !s.eat(':') {
					return false
				}
				s.ws()
			}
			if !s.value(depth + 1) {
				return false
			}
			s.ws()
			if s.eat(',') {
				continue
			}
			return s.eat(closer)
		}
	default:
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return literalOK(s.b[start:s.i])
			}
			s.i++
		}
		return literalOK(s.b[start:s.i])
	}
}

func literalOK(t []byte) bool {
	switch string(t) {
	case "true", "false", "null":
		return true
	case "":
		return false
	}
	return numberOK(t)
}

// numberOK reports whether t is a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func numberOK(t []byte) bool {
	i := 0
	if i < len(t) && t[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(t) && t[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(t) && t[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(t)
}
