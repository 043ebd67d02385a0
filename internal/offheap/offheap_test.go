package offheap

import "testing"

func TestNew(t *testing.T) {
	b := New(4096)
	if len(b) != 0 || cap(b) < 4096 {
		t.Fatalf("New(4096): len %d cap %d", len(b), cap(b))
	}
	for len(b) < cap(b) { // the whole room is writable
		b = append(b, byte('a'+len(b)%26))
	}
	if b[4095] != 'a'+4095%26 {
		t.Fatal("bytes not kept")
	}
}
