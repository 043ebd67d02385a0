// Package recordlimit bounds the lines (one record each) a command reads:
// a longer one is bad input naming the input and the offset where it
// starts (exit 2), not a read until memory runs out (/dev/zero, a 2 GiB
// line). The limit is 256 MiB, or AGENTUTILS_MAX_RECORD.
package recordlimit

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentutils/agentutils/lib/exit"
)

// Default is the longest line read: 256 MiB.
const Default int64 = 256 << 20

// Env is the variable that sets the limit (bytes, or with a K, M or G
// suffix).
const Env = "AGENTUTILS_MAX_RECORD"

// FromEnv is the limit getenv sets (Default when Env is unset); a value
// that is not a size is a usage error naming the variable.
func FromEnv(getenv func(string) string) (int64, error) {
	v := getenv(Env)
	if v == "" {
		return Default, nil
	}
	n, err := ParseSize(v)
	if err != nil {
		return 0, exit.Errorf(exit.Usage, "%s: %v", Env, err)
	}
	return n, nil
}

// ParseSize reads a byte count with an optional K, M or G (binary) suffix.
func ParseSize(v string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(v, "K"):
		mult, v = 1<<10, strings.TrimSuffix(v, "K")
	case strings.HasSuffix(v, "M"):
		mult, v = 1<<20, strings.TrimSuffix(v, "M")
	case strings.HasSuffix(v, "G"):
		mult, v = 1<<30, strings.TrimSuffix(v, "G")
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("not a positive size: %q", v)
	}
	return n * mult, nil
}

// reader fails a read once a line runs past max.
type reader struct {
	r         io.Reader
	name      string
	max       int64
	off, line int64 // bytes read; where the current line starts
	err       error // once over the limit, every read fails
}

// Reader reads r (named name in errors), failing once a line runs past max
// bytes with an exit.Usage error naming name and the line's offset.
func Reader(r io.Reader, name string, max int64) io.Reader {
	return &reader{r: r, name: name, max: max}
}

func (b *reader) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	// At most 4 MiB a read: a 1 GiB read of one endless line would
	// hold four times the limit before it is checked.
	n, err := b.r.Read(p[:min(len(p), 4<<20)])
	chunk, over := p[:n], false
	if int64(n) <= b.max {
		// A line that starts after the chunk's first newline ends within
		// the chunk or runs on past it, shorter than max either way: only
		// the first newline's line is checked, and the last one is where
		// the next line starts (two scans, not one a line).
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			if over = b.off+int64(i)-b.line > b.max; !over {
				b.line = b.off + int64(bytes.LastIndexByte(chunk, '\n')) + 1
			}
		}
	} else {
		over = b.lines(chunk)
	}
	b.off += int64(n)
	if over || b.off-b.line > b.max {
		b.err = exit.Errorf(exit.Usage, "%s: offset %d: a line longer than %d bytes (the limit, %s)", b.name, b.line, b.max, Env)
		return n, b.err
	}
	return n, err
}

// lines moves b.line past each line of chunk (which starts at b.off),
// true when one runs past max.
func (b *reader) lines(chunk []byte) bool {
	for at := b.off; ; {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			return false
		}
		if at+int64(i)-b.line > b.max {
			return true
		}
		b.line = at + int64(i) + 1
		chunk, at = chunk[i+1:], at+int64(i)+1
	}
}

// ReadAll reads r to its end, each line within max bytes (Reader). It
// reads into chunks and joins them once, so a line over the limit fails
// holding no more than the limit, and a whole read at most twice the
// input, not the garbage of a slice grown by copying.
func ReadAll(r io.Reader, name string, max int64) ([]byte, error) {
	br := Reader(r, name, max)
	var chunks [][]byte
	total, size := 0, 64<<10
	for {
		c := make([]byte, size)
		n, err := io.ReadFull(br, c)
		if n > 0 {
			chunks = append(chunks, c[:n])
			total += n
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(size*2, 4<<20)
	}
	switch len(chunks) {
	case 0:
		return nil, nil
	case 1:
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for i, c := range chunks {
		out = append(out, c...)
		chunks[i] = nil
	}
	return out, nil
}
