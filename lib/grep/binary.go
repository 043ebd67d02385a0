package grep

import "bytes"

// rg's binary-file handling. rg reads a file either whole (memory-mapped:
// explicitly named files when there are few, and every -U search) or
// through a 64 KiB line buffer, and looks for a NUL byte in the first 64
// KiB (whole) or in each buffer fill (buffered):
//   - quit (files found by walking): the file is dropped silently from the
//     fill with the NUL on; what earlier fills held was searched;
//   - convert (named files, --binary): the search goes on (a buffered read
//     turns each NUL into a line end), and the first match after the NUL
//     prints "binary file matches (found "\0" byte around offset N)".
//
// -a (Text) turns all of it off.

// bufferSize is grep-searcher's DEFAULT_BUFFER_CAPACITY.
const bufferSize = 64 << 10

// binaryPrepare applies the binary rules to buf before it is searched. It
// returns the bytes to search, and sets r.BinaryOffset, r.BinaryFrom
// (matches from this offset on are not printed) and r.Skipped.
func binaryPrepare(buf []byte, o SearchOptions, r *FileResult) []byte {
	r.BinaryFrom = -1
	if o.Text {
		return buf
	}
	quit := o.SkipBinary
	if o.Slice {
		i := bytes.IndexByte(buf[:min(len(buf), bufferSize)], 0)
		if i < 0 {
			return buf
		}
		r.BinaryOffset = int64(i)
		if quit {
			r.Skipped = true
			r.BytesSearched = 0
			return nil
		}
		r.BinaryFrom = 0
		r.BytesSearched = int64(i)
		return buf
	}
	nul, from := bufferedNUL(buf)
	if nul < 0 {
		return buf
	}
	r.BinaryOffset = int64(nul)
	if quit {
		// only the fills before the one with the NUL were searched
		r.BytesSearched = int64(from)
		if from == 0 {
			r.Skipped = true
			return nil
		}
		return buf[:from]
	}
	r.BinaryFrom = int64(from)
	out := make([]byte, len(buf))
	copy(out, buf)
	for i := nul; i < len(out); i++ {
		if out[i] == 0 {
			out[i] = '\n'
		}
	}
	return out
}

// bufferedNUL finds the first NUL as rg's line buffer meets it, and where
// the data not yet searched started when it did (the bytes before that
// were searched in earlier fills). -1 when there is no NUL.
func bufferedNUL(buf []byte) (nul, from int) {
	nul = bytes.IndexByte(buf, 0)
	if nul < 0 || nul < bufferSize {
		return nul, 0
	}
	capacity := bufferSize
	start, end := 0, 0 // unsearched data: buf[start:end]
	for {
		newEnd := min(len(buf), start+capacity)
		if newEnd <= end {
			capacity *= 2 // a line longer than the buffer: it grows
			continue
		}
		if nul < newEnd {
			return nul, start
		}
		end = newEnd
		if end == len(buf) {
			return nul, start
		}
		j := bytes.LastIndexByte(buf[start:end], '\n')
		if j < 0 {
			capacity *= 2
			continue
		}
		start += j + 1
	}
}
