package grepfs

import (
	"bytes"
	"io"

	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
)

// SearchReader searches a stream (standard input) as a large file is
// searched: once it has passed o.ChunkAbove bytes, in pieces of whole
// lines through one bounded buffer (search.SearchChunked), its results
// handed to emit in parts as they come, so memory does not grow with the
// stream. A shorter stream is searched whole, as before; so is one the
// pieces cannot take (-U, (?-u), a byte-order mark to transcode). A
// read error before the search starts is returned; one after it is a
// result's Err.
func SearchReader(m *regex.Matcher, path string, r io.Reader, o search.SearchOptions, emit func(search.FileResult) bool) error {
	if !search.Chunkable(m, o, false) {
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		emit(search.SearchDecoded(m, path, data, o))
		return nil
	}
	// (one buffer, made once: the first ChunkAbove+1 bytes, then the
	// pieces, the head's bytes read in place; with the default sizes it
	// is never grown. Two buffers and a growth of the first were a
	// thousand page faults a stream, more than the search of 1 MB.)
	head := make([]byte, 0, min(o.ChunkAbove+1, 1<<20+1))
	var err error
	for int64(len(head)) <= o.ChunkAbove && err == nil {
		if len(head) == cap(head) {
			head = append(head, 0)[:len(head)]
		}
		var n int
		n, err = r.Read(head[len(head):min(cap(head), int(o.ChunkAbove)+1)])
		head = head[:len(head)+n]
	}
	if err != nil && err != io.EOF {
		return err
	}
	if err == io.EOF || hasBOM(head) {
		rest, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		emit(search.SearchDecoded(m, path, append(head, rest...), o))
		return nil
	}
	buf := head
	read := func(p []byte) (int, error) {
		if len(head) > 0 {
			if len(p) > 0 && &p[0] == &head[0] {
				n := min(len(p), len(head)) // (the bytes are there)
				head = head[n:]
				return n, nil
			}
			n := copy(p, head)
			head = head[n:]
			return n, nil
		}
		for {
			n, err := r.Read(p)
			switch {
			case n > 0:
				return n, nil
			case err == io.EOF:
				return 0, nil
			case err != nil:
				return 0, err
			}
		}
	}
	search.SearchChunked(m, path, read, o, buf[:0], func(res search.FileResult) bool {
		copyLines(res.Lines) // (the lines are in the buffer the next piece reuses)
		return emit(res)
	})
	return nil
}

// hasBOM: data starts with a byte-order mark search.DecodeBOM removes.
func hasBOM(data []byte) bool {
	return bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) || bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff"))
}
