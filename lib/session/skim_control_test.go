package session

import "testing"

// hasControl, eight bytes at a time, agrees with a byte-by-byte check.
func FuzzHasControl(f *testing.F) {
	f.Add([]byte("plain text, no control"))
	f.Add([]byte("0123456\x1f89abcdef"))
	f.Add([]byte("\xff\xfe\x80\x7f\x20\x21\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= len(b) && i < 9; i++ { // every alignment
			w := false
			for _, c := range b[i:] {
				w = w || c < 0x20
			}
			if got := hasControl(b[i:]); got != w {
				t.Fatalf("hasControl(%q) = %v, want %v", b[i:], got, w)
			}
		}
	})
}
