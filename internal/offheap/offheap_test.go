package offheap

import (
	"bytes"
	"testing"
)

func TestNewAndGrow(t *testing.T) {
	b := New(4096)
	if len(b) != 0 || cap(b) < 4096 {
		t.Fatalf("New(4096): len %d cap %d", len(b), cap(b))
	}
	var want []byte
	for i := 0; i < 5; i++ { // through several growths, past the first room
		for len(b) < cap(b) {
			c := byte('a' + len(b)%26)
			b = append(b, c)
			want = append(want, c)
		}
		old := cap(b)
		b = Grow(b)
		if cap(b) < 2*old || !bytes.Equal(b, want) {
			t.Fatalf("Grow: cap %d (was %d), bytes kept %v", cap(b), old, bytes.Equal(b, want))
		}
	}
	// The room is writable right after a growth.
	b = append(b, 'z')
	if b[len(b)-1] != 'z' {
		t.Fatal("not writable after Grow")
	}
}
