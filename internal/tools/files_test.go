package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadLines(t *testing.T) {
	for _, tc := range []struct {
		name, in      string
		offset, limit int
		want          string
	}{
		{"all", "a\nb\nc\n", 0, 0, "1|a\n2|b\n3|c"},
		{"no final newline", "a\nb", 0, 0, "1|a\n2|b"},
		{"page then count", "a\nb\nc\nd\n", 1, 2, "1|a\n2|b\n\n[Showing lines 1-2 of 4. Use offset=3 to continue]"},
		{"page then count, no final newline", "a\nb\nc\nd", 2, 1, "2|b\n\n[Showing lines 2-2 of 4. Use offset=3 to continue]"},
		{"CRLF", "a\r\nb\r\n", 0, 0, "1|a\n2|b"},
		{"beyond", "a\n", 5, 0, "Offset 5 is beyond end of file (1 lines total). Use offset=1 to read from the start, or offset=1 to read the last line."},
		{"empty", "", 0, 0, "The file is empty."},
		{"long line past the buffer", strings.Repeat("x", 100<<10) + "\nb\n", 2, 0, "2|b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := readLines(strings.NewReader(tc.in), tc.offset, tc.limit, false)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out.Content[0].Text); diff != "" {
				t.Error(diff)
			}
		})
	}
}
