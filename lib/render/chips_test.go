package render

import "testing"

// TestFileChips: a file attached to a prompt is one line, not its text.
func TestFileChips(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"look at @big.txt\n\n<file path=\"big.txt\">\n1\n2\n3\n</file>", "look at @big.txt\n\n@big.txt · 3 lines"},
		{"<file path=\"a \\\"q\\\".go\">\nx\n</file> and <file path=\"e\">\n</file>", "@a \"q\".go · 1 line and @e · 0 lines"},
		{"no file here", "no file here"},
	} {
		if got := FileChips(c.in); got != c.want {
			t.Errorf("FileChips(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestWithoutFiles: a checked-out prompt goes back to the editor as typed.
func TestWithoutFiles(t *testing.T) {
	if got := WithoutFiles("see @a.go\n\n<file path=\"a.go\">\npackage a\n</file>"); got != "see @a.go" {
		t.Errorf("got %q", got)
	}
}
