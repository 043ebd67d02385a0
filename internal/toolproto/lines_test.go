package toolproto

import (
	"fmt"
	"strings"
	"testing"
)

// A line over the limit is skipped and reported; the lines around it are
// read (the bridge died on a line over 64 MiB).
func TestLineReaderSkipsLongLines(t *testing.T) {
	var skipped []string
	in := "short\n" + strings.Repeat("x", 100) + "\nexactly10!\nlast" + "\n" + strings.Repeat("y", 50)
	l := NewLineReader(strings.NewReader(in), 10, func(n, size int) { skipped = append(skipped, fmt.Sprint(n, ":", size)) })
	var got []string
	for l.Scan() {
		got = append(got, string(l.Bytes()))
	}
	if l.Err() != nil {
		t.Fatal(l.Err())
	}
	if strings.Join(got, "|") != "short|exactly10!|last" {
		t.Errorf("lines %q", got)
	}
	if strings.Join(skipped, " ") != "2:101 5:50" {
		t.Errorf("skipped %q", skipped)
	}
}
