package jobs

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
)

// capped writes a job's output to its file at the offsets the bytes have
// in the stream, and punches out (fallocate(2) FALLOC_FL_PUNCH_HOLE) what
// is older than the last cap bytes: the file keeps its length, so a byte
// cursor stays valid, but it holds at most about cap bytes. A file system
// without hole punching gets the file emptied instead.
type capped struct {
	mu      sync.Mutex
	f       *os.File
	off     int64 // bytes written
	punched int64 // bytes before it are a hole
	cap     int64
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, err := c.f.WriteAt(p, c.off)
	c.off += int64(n)
	if c.off-c.punched > c.cap+c.cap/4 {
		to := (c.off - c.cap) &^ 4095
		if punch(c.f, c.punched, to-c.punched) != nil {
			c.f.Truncate(0) // later writes at their offsets leave a hole before them
		}
		c.punched = to
	}
	return n, err
}

func (c *capped) size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.off
}

// Chunk is a piece of a job's output.
type Chunk struct {
	Text    []byte
	From    int64 // the offset of Text in the output
	Next    int64 // the cursor that reads on after it
	Size    int64 // the output's length so far
	Dropped int64 // bytes between the cursor asked for and From that are no longer kept
}

// Output reads at most limit bytes of job id's output from byte cursor
// (a negative cursor: the last limit bytes).
func Output(dir, id string, cursor int64, limit int) (Chunk, error) {
	d, err := jobDir(dir, id)
	if err != nil {
		return Chunk{}, err
	}
	if _, err := Get(dir, id); err != nil {
		return Chunk{}, err
	}
	f, err := os.Open(filepath.Join(d, "output"))
	if err != nil {
		return Chunk{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Chunk{}, err
	}
	c := Chunk{Size: st.Size()}
	if cursor < 0 {
		cursor = max(0, c.Size-int64(limit))
	}
	cursor = min(cursor, c.Size)
	// The kept output starts at the first data after the cursor: what
	// was punched out reads as a hole (SEEK_DATA skips it).
	from, err := seekData(f, cursor)
	if err != nil {
		from = c.Size // ENXIO: only a hole after the cursor
	}
	n := min(int64(limit), c.Size-from)
	buf := make([]byte, n)
	k, _ := f.ReadAt(buf, from)
	buf = buf[:k]
	// A file system that fills holes with zeros (no SEEK_DATA) shows them.
	if z := len(buf) - len(bytes.TrimLeft(buf, "\x00")); z > 0 {
		buf, from = buf[z:], from+int64(z)
	}
	c.Text, c.From, c.Next, c.Dropped = buf, from, from+int64(len(buf)), from-cursor
	return c, nil
}
