package grep

import (
	"bytes"
	"fmt"
	"os"
	"slices"
)

// sniffChunk is the first read of a file that a search drops when it is
// binary: a NUL in it ends the read there, so a large binary file (a
// library, an image, a database) costs one read instead of all of it in
// memory.
const sniffChunk = 64 << 10

// readFile reads path into buf's storage (grown when needed). With sniff
// > 0, a file larger than sniffChunk whose first chunk has a NUL before
// offset sniff is read no further: the chunk is returned, and the binary
// rules (binary.go) drop the file from it as they would from the whole.
func readFile(buf []byte, path string, sniff int) ([]byte, error) {
	f, size, err := openFile(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer f.close()
	return readOpen(f, size, buf, path, sniff)
}

// MaxLine bounds a line of a file read whole: a longer one (a device such
// as /dev/zero, a file without newlines) is a read error naming the file
// and the offset where the line starts, instead of a read until memory
// runs out.
const MaxLine = 256 << 20

// readOpen is readFile's read of an opened file of the given size (-1:
// unknown).
func readOpen(f rawFile, size int64, buf []byte, path string, sniff int) ([]byte, error) {
	return readOpenMax(f, size, buf, path, sniff, MaxLine)
}

func readOpenMax(f rawFile, size int64, buf []byte, path string, sniff, maxLine int) ([]byte, error) {
	want := -1 // the buffer the whole file needs, when its size is known
	if size >= 0 {
		want = int(size) + 4096
	}
	first := want
	if sniff > 0 && (want < 0 || want > sniffChunk) {
		first = sniffChunk
	}
	if first > cap(buf) {
		buf = make([]byte, 0, first)
	}
	buf = buf[:0]
	sniffed := sniff <= 0
	for {
		if len(buf) == cap(buf) {
			if !sniffed {
				sniffed = true
				if i := bytes.IndexByte(buf, 0); i >= 0 && i < sniff {
					return buf, nil
				}
			}
			if len(buf) > maxLine {
				if start := bytes.LastIndexByte(buf, '\n') + 1; len(buf)-start > maxLine {
					return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("offset %d: a line longer than %d bytes", start, maxLine)}
				}
			}
			grow := max(64<<10, cap(buf))
			if want > cap(buf) {
				grow = want - cap(buf)
			}
			buf = slices.Grow(buf, grow)
		}
		n, err := f.read(buf[len(buf):cap(buf)])
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if size > 0 && int64(len(buf)) == size {
			// the size fstat gave: the read that would return 0 is saved
			// (one system call of five a file; a file that grew meanwhile
			// reads past its size and on to the end as before)
			return buf, nil
		}
	}
}
