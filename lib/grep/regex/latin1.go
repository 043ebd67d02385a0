package regex

import "unicode"

// A pattern that switches Unicode off ((?-u), rgsyntax.go) matches bytes:
// \xFF is the byte 0xFF, '.' any one byte. Go's regexp reads UTF-8, so
// such a matcher searches the Latin-1 image of the haystack, where every
// byte at or above 0x80 is the character of the same number (two bytes of
// UTF-8) and ASCII is itself: one character per byte, each byte its own
// value. The pattern's Unicode parts are spelled as UTF-8 byte sequences
// (utf8seq.go). Results are mapped back to the haystack's offsets.

// toLatin1 is the Latin-1 image of b.
func ToLatin1(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	for _, c := range b {
		if c < 0x80 {
			out = append(out, c)
		} else {
			out = append(out, 0xC0|c>>6, 0x80|c&0x3F)
		}
	}
	return out
}

// latin1Offsets maps offsets in an image back to the haystack; the
// offsets asked for should mostly grow.
type Latin1Offsets struct {
	Img  []byte
	t, o int // img[:t] is the image of o haystack bytes
}

func (c *Latin1Offsets) Orig(t int) int {
	if t < c.t {
		c.t, c.o = 0, 0
	}
	for ; c.t < t && c.t < len(c.Img); c.t++ {
		if c.Img[c.t]&0xC0 != 0x80 {
			c.o++
		}
	}
	return c.o
}

// imageOffset is the offset in the image of b's offset o.
func imageOffset(b []byte, o int) int {
	t := o
	for _, c := range b[:o] {
		if c >= 0x80 {
			t++
		}
	}
	return t
}

// latin1Spans maps spans found in the image of buf back to buf.
func latin1Spans(img []byte, spans []Span) []Span {
	c := Latin1Offsets{Img: img}
	for i, s := range spans {
		spans[i] = Span{c.Orig(s.Start), c.Orig(s.End)}
	}
	return spans
}

// wordExprLatin1 is rg's -w (word.go) on the Latin-1 image: the non-word
// neighbours are UTF-8 characters spelled as bytes.
func wordExprLatin1(expr string) string {
	var t rgTranslator
	rs, _ := classRanges("["+uniWord+"]", false)
	nw := t.encoded(complementRanges(rs, unicode.MaxRune)).text
	return `(?:^|` + nw + `)(` + expr + `)(?:` + nw + `|$)`
}
