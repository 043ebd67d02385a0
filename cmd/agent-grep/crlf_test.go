package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentutils/agentutils/internal/testbin"
)

// TestCRLFLineEnds: with --crlf rg 13 ends a line printed as it is with
// its own terminator, and a last line without one, a coloured or replaced
// line and an -M note with "\r\n" (the goldens cannot hold a file without
// its final newline; these outputs are rg 13's).
func TestCRLFLineEnds(t *testing.T) {
	bin, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("cr foooo\ncr fo\r\ncr foo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--crlf", "-n", "o"}, "1:cr foooo\n2:cr fo\r\n3:cr foo\r\n"},
		{[]string{"--crlf", "-r", "X", "fo"}, "cr Xooo\r\ncr X\r\ncr Xo\r\n"},
		{[]string{"--crlf", "-M7", "o"}, "[Omitted long matching line]\r\ncr fo\r\ncr foo\r\n"},
		{[]string{"--crlf", "-v", "-M7", "--max-columns-preview", "foooo"}, "cr fo\r\ncr foo\r\n"},
		{[]string{"-M3", "fo"}, "[Omitted long matching line]\n[Omitted long matching line]\n[Omitted long matching line]\n"},
	} {
		out, err := exec.Command(filepath.Join(bin, "agent-grep"), append(c.args, file)...).Output()
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if string(out) != c.want {
			t.Errorf("%v: got %q, want %q", c.args, out, c.want)
		}
	}
}
