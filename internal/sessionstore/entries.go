package sessionstore

import (
	"bufio"
	"bytes"
	"io"

	"github.com/agentutils/agentutils/lib/session"
)

// FirstLine is the file's first line (its header, in a session file).
func (l *File) FirstLine() ([]byte, error) {
	if IsZst(l.path) {
		data, err := l.ReadAll()
		if err != nil {
			return nil, err
		}
		line, _, _ := bytes.Cut(data, []byte{'\n'})
		return line, nil
	}
	br := bufio.NewReader(io.NewSectionReader(l.f, 0, 1<<62))
	line, err := br.ReadBytes('\n')
	return bytes.TrimSuffix(bytes.TrimSuffix(line, []byte{'\n'}), []byte{'\r'}), err
}

// LastEntryID finds the id of the last valid entry by reading the file from
// its end, so appending to a huge file does not read all of it.
func (l *File) LastEntryID() (string, error) {
	if IsZst(l.path) {
		data, err := l.ReadAll()
		if err != nil {
			return "", err
		}
		return lastEntryIn(bytes.NewReader(data), int64(len(data)))
	}
	size, err := l.Size()
	if err != nil {
		return "", err
	}
	return lastEntryIn(l.f, size)
}

// lastEntryIn walks lines backwards from the end of r until one is an entry.
func lastEntryIn(r io.ReaderAt, size int64) (string, error) {
	const chunk = 64 << 10
	end := size // exclusive end of the unread region
	var carry []byte
	for end > 0 || len(carry) > 0 {
		// The read grows with the carried partial line, so a huge last
		// line costs linear time, not a copy of the carry per 64 KiB.
		start := max(end-max(chunk, int64(len(carry))), 0)
		buf := make([]byte, end-start, end-start+int64(len(carry)))
		if _, err := r.ReadAt(buf, start); err != nil && err != io.EOF {
			return "", err
		}
		buf = append(buf, carry...)
		for {
			i := bytes.LastIndexByte(buf, '\n')
			if i < 0 && start > 0 {
				break // the line goes on before this chunk
			}
			line := buf[i+1:]
			if p, err := session.Peek(bytes.TrimSuffix(line, []byte{'\r'})); err == nil && p.Type != "session" && p.ID != "" {
				return p.ID, nil
			}
			if i < 0 {
				buf = nil
				break
			}
			buf = buf[:i]
		}
		carry = buf
		end = start
		if start == 0 {
			break
		}
	}
	return "", nil
}

// EntryIDs reads the ids of every entry in the file.
func (l *File) EntryIDs() (map[string]bool, error) {
	ids := map[string]bool{}
	r := BoundLines(io.NewSectionReader(l.f, 0, 1<<62), l.path)
	if IsZst(l.path) {
		data, err := l.ReadAll()
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(data)
	}
	_, _, err := ScanLines(r, func(line []byte, _ int64, _ int, _ bool) error {
		if p, err := session.Peek(line); err == nil && p.Type != "session" && p.ID != "" {
			ids[p.ID] = true
		}
		return nil
	})
	return ids, err
}

// ReplaceEntries swaps entries in place by id with one atomic rewrite
// (a replacement without parentId or timestamp keeps the old entry's).
func (l *File) ReplaceEntries(repl map[string][]byte) error {
	data, err := l.ReadAll()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	out.Grow(len(data))
	done := map[string]bool{}
	_, _, err = ScanLines(bytes.NewReader(data), func(line []byte, _ int64, n int, _ bool) error {
		if n > 1 {
			if p, err := session.Peek(line); err == nil && p.Type != "session" {
				if r, ok := repl[p.ID]; ok && !done[p.ID] {
					done[p.ID] = true
					line = mergeReplacement(line, r)
				}
			}
		}
		out.Write(line)
		out.WriteByte('\n')
		return nil
	})
	if err != nil {
		return err
	}
	return l.Rewrite(out.Bytes())
}

// mergeReplacement keeps the old entry's parentId and timestamp when the
// replacement does not carry them.
func mergeReplacement(old, repl []byte) []byte {
	// Most replacements (agent-compact's pruned results) carry both: the
	// old entry need not be read, nor the replacement encoded again.
	var parent, ts bool
	session.WalkMembers(repl, func(k, _ []byte) {
		parent = parent || string(k) == "parentId"
		ts = ts || string(k) == "timestamp"
	})
	if parent && ts {
		return repl
	}
	ro, err := session.ParseObject(repl)
	if err != nil {
		return repl
	}
	oo, err := session.ParseObject(old)
	if err != nil {
		return repl
	}
	for _, k := range []string{"parentId", "timestamp"} {
		if _, ok := ro.Get(k); !ok {
			if v, ok := oo.Get(k); ok {
				ro.Set(k, v)
			}
		}
	}
	return ro.Bytes()
}
