package session

import (
	"encoding/json"
	"testing"
)

// hasControl, eight bytes at a time, and byteClasses, 32 and 8 at a time,
// agree with a byte-by-byte check.
func FuzzHasControl(f *testing.F) {
	f.Add([]byte("plain text, no control, more than thirty-two bytes long"))
	f.Add([]byte("0123456789abcdef0123456789abcdef\x1f89abcdef\xc3\xa9"))
	f.Add([]byte("\xff\xfe\x80\x7f\x20\x21\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= len(b) && i < 33; i++ { // every alignment
			ascii, noCtl := true, true
			for _, c := range b[i:] {
				ascii = ascii && c < 0x80
				noCtl = noCtl && c >= 0x20
			}
			if got := hasControl(b[i:]); got != !noCtl {
				t.Fatalf("hasControl(%q) = %v, want %v", b[i:], got, !noCtl)
			}
			if a, n := byteClasses(b[i:]); a != ascii || n != noCtl {
				t.Fatalf("byteClasses(%q) = %v, %v, want %v, %v", b[i:], a, n, ascii, noCtl)
			}
		}
	})
}

// short, eight bytes at a time, agrees with a byte-by-byte look for the
// string's end.
func FuzzShortStr(f *testing.F) {
	f.Add([]byte(`message", "x"`))
	f.Add([]byte(`0123456789abcdef0123456789abcdef"`))
	f.Add([]byte("abc\\\"\"\xe9\xa2\x22\x1f\""))
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= len(b) && i < 9; i++ { // every alignment
			want, end := false, -1
			for j, c := range b[i:min(len(b), i+shortStr)] {
				if c == '"' || c == '\\' || c < 0x20 {
					want, end = c == '"', i+j+1
					break
				}
			}
			s := skimmer{b: b, i: i}
			if got := s.short(i); got != want || got && s.i != end || !got && s.i != i {
				t.Fatalf("short(%q) = %v at %d, want %v at %d", b[i:], got, s.i, want, end)
			}
		}
	})
}

// numberOK agrees with encoding/json on what a number is.
func FuzzNumberOK(f *testing.F) {
	for _, s := range []string{"0", "-0", "12", "1.5", "-1.5e10", "1E+2", "01", "1.", ".5", "-", "1e", "+1", "0x1", "1.5e-3", "Infinity"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) == 0 {
			return
		}
		var n json.Number
		want := json.Unmarshal([]byte(s), &n) == nil && string(n) == s
		if got := numberOK([]byte(s)); got != want {
			t.Fatalf("numberOK(%q) = %v, encoding/json %v", s, got, want)
		}
	})
}
