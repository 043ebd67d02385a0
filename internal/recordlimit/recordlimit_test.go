package recordlimit

import (
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
