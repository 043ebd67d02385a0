package search

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// DecodeBOM is what rg 13 searches of a file that starts with a byte
// order mark: UTF-8 without its BOM, UTF-16 (LE or BE) transcoded to
// UTF-8 (an unpaired surrogate or an odd last byte as U+FFFD), the BOM
// dropped. Other data is returned as it is.
func DecodeBOM(data []byte) []byte {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return utf16To8(data[2:], false)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return utf16To8(data[2:], true)
	}
	return data
}

func utf16To8(b []byte, big bool) []byte {
	units := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		if big {
			units = append(units, uint16(b[i])<<8|uint16(b[i+1]))
		} else {
			units = append(units, uint16(b[i+1])<<8|uint16(b[i]))
		}
	}
	out := make([]byte, 0, len(b))
	for _, r := range utf16.Decode(units) {
		out = utf8.AppendRune(out, r)
	}
	if len(b)%2 == 1 {
		out = utf8.AppendRune(out, utf8.RuneError)
	}
	return out
}
