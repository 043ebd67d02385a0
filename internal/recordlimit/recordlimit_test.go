package recordlimit

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/exit"
)

// zeros is an endless input without a newline (/dev/zero) that fills
// every read whole.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestReadAll(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   io.Reader
		want string
		err  string
	}{
		{"lines within the limit", strings.NewReader("abc\ndefgh\nij"), "abc\ndefgh\nij", ""},
		{"a line over it", strings.NewReader("abc\n" + strings.Repeat("x", 20) + "\n"), "", "in: offset 4: a line longer than 8 bytes"},
		{"an endless line that fills every read", zeros{}, "", "in: offset 0: a line longer than 8 bytes"},
		{"empty", strings.NewReader(""), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadAll(tc.in, "in", 8)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || exit.Code(err) != exit.Usage {
					t.Fatalf("error %v, want %q (exit 2)", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, string(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	big := strings.Repeat("0123456\n", 200000) // many chunks, joined once
	if got, err := ReadAll(strings.NewReader(big), "in", 8); err != nil || string(got) != big {
		t.Fatalf("a long input of short lines: %d bytes, %v", len(got), err)
	}
}

func TestFromEnv(t *testing.T) {
	for v, want := range map[string]int64{"": Default, "64K": 64 << 10, "3M": 3 << 20, "1G": 1 << 30, "100": 100} {
		if n, err := FromEnv(func(string) string { return v }); err != nil || n != want {
			t.Errorf("%q: %d, %v; want %d", v, n, err, want)
		}
	}
	for _, v := range []string{"lots", "0", "-5K"} {
		if _, err := FromEnv(func(string) string { return v }); err == nil || exit.Code(err) != exit.Usage {
			t.Errorf("%q: %v, want a usage error", v, err)
		}
	}
}

// chunked reads r at most size bytes a read.
type chunked struct {
	r    io.Reader
	size int
}

func (c chunked) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.size)]) }

// Reader fails at the first line longer than max, naming where it starts,
// whatever the size of the reads (a read larger than max checks each
// line; one within it only its first and last newline).
func FuzzReader(f *testing.F) {
	f.Add([]byte("abc\ndefgh\nij"), uint8(4), uint8(3))
	f.Add([]byte("abc\n0123456789\nxy\n"), uint8(8), uint8(5))
	f.Add([]byte("0123456789"), uint8(8), uint8(20))
	f.Fuzz(func(t *testing.T, in []byte, max, size uint8) {
		if max == 0 || size == 0 {
			return
		}
		want := -1
		for start := 0; start < len(in); {
			end := strings.IndexByte(string(in[start:]), '\n')
			if end < 0 {
				end = len(in) - start
			}
			if end > int(max) {
				want = start
				break
			}
			start += end + 1
		}
		got, err := io.ReadAll(Reader(chunked{strings.NewReader(string(in)), int(size)}, "in", int64(max)))
		switch {
		case want < 0 && (err != nil || string(got) != string(in)):
			t.Fatalf("%q (max %d, reads of %d): %v", in, max, size, err)
		case want >= 0 && (err == nil || !strings.Contains(err.Error(), fmt.Sprintf("in: offset %d: ", want))):
			t.Fatalf("%q (max %d, reads of %d): error %v, want one at offset %d", in, max, size, err, want)
		}
	})
}
