package lineblock

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Lines held keep their bytes while older ones are released and their
// blocks filled again; the blocks in use stay about the window's size.
func TestWindow(t *testing.T) {
	var b Blocks
	type held struct{ got, want []byte }
	var window []held
	for i := 0; i < 20000; i++ {
		want := bytes.Repeat([]byte(fmt.Sprintf("%d,", i)), 1+i%700)
		window = append(window, held{b.Copy(want), want})
		if len(window) > 300 {
			window = window[len(window)-100:]
			b.Release(window[0].got)
		}
		for _, h := range window {
			if !bytes.Equal(h.got, h.want) {
				t.Fatalf("line %d: a held line changed", i)
			}
		}
	}
	if n := len(b.full) + len(b.free) + 1; n > 8 {
		t.Errorf("%d blocks for a window of at most 300 lines of < 4 KB", n)
	}
}

// A line longer than a block gets a block of its own.
func TestLong(t *testing.T) {
	var b Blocks
	short := b.Copy([]byte("x"))
	long := bytes.Repeat([]byte("y"), 3<<20)
	if got := b.Copy(long); !bytes.Equal(got, long) || string(short) != "x" {
		t.Fatal("a long line was not held whole")
	}
}

// Next reads lines of any length, the last one without its newline.
func TestNext(t *testing.T) {
	long := strings.Repeat("z", 100<<10)
	br := bufio.NewReaderSize(strings.NewReader("a\n"+long+"\r\nlast"), 16)
	var buf []byte
	var got []string
	for {
		line, err := Next(br, &buf)
		if len(line) > 0 {
			got = append(got, string(line))
		}
		if err != nil {
			break
		}
	}
	if want := []string{"a\n", long + "\r\n", "last"}; !slices.Equal(got, want) {
		t.Errorf("got %d lines, want %d (a, a long one, last)", len(got), len(want))
	}
}
