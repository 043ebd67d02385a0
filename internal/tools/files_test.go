package tools

import (
	"net/http"
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

func TestImageTypeMatchesNetHTTP(t *testing.T) {
	heads := []string{"", "B", "BM", "BMxx", "GIF87a", "GIF89a..", "GIF8", "\x89PNG\r\n\x1a\n....", "\x89PNG\r\n", "\xff\xd8\xff\xe0",
		"\x00\x00\x01\x00xx", "\x00\x00\x02\x00", "\x00\x00\x03\x00", "RIFF\x01\x02\x03\x04WEBPVP8 ", "RIFF\x01\x02\x03\x04WAVEfmt ",
		"<svg xmlns='http://www.w3.org/2000/svg'/>", "<?xml version='1.0'?><svg/>", "%PDF-1.4", "\xef\xbb\xbfhello", "package main\n", "\x00\x01binary"}
	for _, h := range heads {
		want := http.DetectContentType([]byte(h))
		if !strings.HasPrefix(want, "image/") || want == "image/svg+xml" {
			want = ""
		}
		if got := imageType([]byte(h)); got != want {
			t.Errorf("%q: %q, net/http says %q", h, got, want)
		}
	}
}
