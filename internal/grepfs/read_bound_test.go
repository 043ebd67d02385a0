package grepfs

import (
	"os"
	"strings"
	"testing"
)

// A file with no end of line in sight (/dev/zero) is an error naming the
// file and the offset, not a read until memory runs out.
func TestReadBoundsALine(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	f, size, err := openFile("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	_, err = readOpenMax(f, size, nil, "/dev/zero", 0, 1<<20)
	if err == nil || !strings.Contains(err.Error(), "/dev/zero: offset 0: a line longer than 1048576 bytes") {
		t.Fatalf("err = %v", err)
	}
}
