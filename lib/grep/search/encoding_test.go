package search

import "testing"

func TestDecodeBOM(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\xef\xbb\xbfSherlock\n", "Sherlock\n"},
		{"\xff\xfeS\x00h\x00\n\x00", "Sh\n"},
		{"\xfe\xff\x00S\x00h\x00\n", "Sh\n"},
		{"\xff\xfe\x00\xd8x\x00", "\uFFFDx"}, // an unpaired surrogate
		{"\xff\xfeS\x00h", "S\uFFFD"},        // an odd last byte
		{"plain\n", "plain\n"},
		{"\xff\xfe", ""},
	} {
		if got := string(DecodeBOM([]byte(c.in))); got != c.want {
			t.Errorf("DecodeBOM(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
