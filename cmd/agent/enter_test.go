package main

import (
	"os"
	"testing"
)

// The terminal's reader sends Enter's prompt itself only for a lone
// carriage return read when the loop has handled every key before it:
// the reads here come from a pipe, the loop is played by the test (a
// fence is handled at once unless the test holds it).
func TestInputFastEnter(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reads []string // written (and read) one by one
		size  int      // the reader's buffer (bubbletea's: 256)
		hold  bool     // the loop has not handled the fences yet
		want  int      // prompts sent by the reader
	}{
		{"typed, then enter", []string{"go", "\r"}, 256, false, 1},
		{"enter first", []string{"\r"}, 256, false, 1},
		{"enter with the text", []string{"go\r"}, 256, false, 0},
		{"alt+enter", []string{"go", "\x1b\r"}, 256, false, 0},
		{"the loop behind", []string{"go", "\r"}, 256, true, 0},
		{"inside a paste", []string{"\x1b[200~one", "\r", "two\x1b[201~"}, 256, false, 0},
		{"after a paste", []string{"\x1b[200~one\rtwo\x1b[201~", "\r"}, 256, false, 1},
		{"after a full buffer", []string{"abcd", "\r"}, 4, false, 0},
		{"enter twice", []string{"go", "\r", "\r"}, 256, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			in, err := newInput(r)
			if err != nil {
				t.Fatal(err)
			}
			defer in.stop()
			sent := 0
			in.enter = func() { sent++ }
			in.fence = func(n uint64) {
				if !tc.hold {
					in.handling(fenceMsg(n))
					in.handled()
				}
			}
			buf := make([]byte, tc.size)
			for _, s := range tc.reads {
				w.WriteString(s)
				if n, err := in.Read(buf); err != nil || string(buf[:n]) != s {
					t.Fatalf("read %q, %v; want %q", buf[:n], err, s)
				}
			}
			if sent != tc.want {
				t.Errorf("%d prompts sent by the reader, want %d", sent, tc.want)
			}
		})
	}
}
