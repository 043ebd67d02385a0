package jsonw

import (
	"encoding/binary"
	"unsafe"
)

// JSON strings are mostly plain text: printable ASCII with no quote or
// backslash. PlainPrefix finds where such a run ends eight bytes at a time,
// so lib/llm's decoder and the Encoder look at single bytes only where
// something needs doing.

const (
	lo = 0x0101010101010101
	hi = 0x8080808080808080
)

// zeroByte has the high bit set in (at least) the lowest zero byte of w
// when w has one, and is 0 when it has none.
func zeroByte(w uint64) uint64 { return (w - lo) & ^w & hi }

// PlainPrefix is the length of the longest prefix of b made of bytes a
// JSON string carries as they are: printable ASCII other than '"' and
// '\\', and with html also other than '<', '>' and '&' (encoding/json's
// HTML-safe escaping). A word has a control or non-ASCII byte exactly when
// ((w - 0x20…20) | w) & 0x80…80 != 0.
func PlainPrefix(b []byte, html bool) int {
	i := 0
	if html {
		for ; i+8 <= len(b); i += 8 {
			w := binary.LittleEndian.Uint64(b[i:])
			if ((w-lo*0x20)|w)&hi|zeroByte(w^(lo*'"'))|zeroByte(w^(lo*'\\'))|
				zeroByte(w^(lo*'<'))|zeroByte(w^(lo*'>'))|zeroByte(w^(lo*'&')) != 0 {
				break
			}
		}
	} else {
		for ; i+8 <= len(b); i += 8 {
			w := binary.LittleEndian.Uint64(b[i:])
			if ((w-lo*0x20)|w)&hi|zeroByte(w^(lo*'"'))|zeroByte(w^(lo*'\\')) != 0 {
				break
			}
		}
	}
	for ; i < len(b); i++ {
		c := b[i]
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || html && (c == '<' || c == '>' || c == '&') {
			break
		}
	}
	return i
}

// plainPrefixString is PlainPrefix for a string (read in place).
func plainPrefixString(s string, html bool) int {
	return PlainPrefix(unsafe.Slice(unsafe.StringData(s), len(s)), html)
}
