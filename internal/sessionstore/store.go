// Package sessionstore is the session store's file system side, beside
// lib/session's pure rules: exclusive locks, appends that roll back when a
// write fails, atomic rewrites, zstd-compressed files, the bounded line
// reader, whole-file loads, the leaf sidecar, the index beside a file, the
// line index open builds from a file, and the engines of agent-session open
// (Open) and append (Append, the single writer). agent-session's
// subcommands are shells over it.
package sessionstore

// The file layer of the session store: exclusive locks, appends, atomic
// rewrites and zstd-compressed files. Everything that writes a session file
// goes through a File, so agent-session is the single writer even when
// several processes append at once.
//
//	lock(path) ──flock(LOCK_EX)──▶ same inode as path? ──no──▶ reopen, retry
//	     │ yes
//	     ├─ append(lines): one write(2) per batch with O_APPEND, fsync at sync()
//	     └─ rewrite(all):  temp file (locked) ─fsync─▶ rename ─▶ fsync dir ─▶ swap fds

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/internal/recordlimit"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

// IsZst reports whether a session path is zstd-compressed (.jsonl.zst).
func IsZst(path string) bool { return strings.HasSuffix(path, ".zst") }

// ArtifactsDir is the session path without .jsonl (and .zst): the per-session
// directory for tool artifacts and the leaf sidecar.
func ArtifactsDir(path string) string {
	p := strings.TrimSuffix(path, ".zst")
	return strings.TrimSuffix(p, ".jsonl")
}

// File is a session file held under an exclusive flock.
type File struct {
	path string
	f    *os.File
	keep []*os.File // descriptors that hold the lock after a rewrite
	// dirty: appended to since the last sync, rewrite or lock, when the
	// file had clean bytes (a failed sync rolls back to them).
	dirty     bool
	clean     int64
	faults    io.Writer // tests: takes the appends' writes instead of f
	syncFault error     // tests: what fsync fails with
}

// Lock opens path (creating it when create is set) and takes an
// exclusive lock on it, waiting while another writer holds it. A file that
// was atomically replaced while we waited is reopened, so the lock is always
// on the inode the path names.
func Lock(ctx context.Context, path string, create bool) (*File, error) {
	flags := os.O_RDWR | os.O_APPEND
	if create {
		flags |= os.O_CREATE
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
	}
	delay := time.Millisecond
	for {
		f, err := os.OpenFile(path, flags, 0o644)
		if errors.Is(err, syscall.EISDIR) {
			return nil, exit.Errorf(exit.Usage, "%s: is a directory, not a session file", path)
		}
		if err != nil {
			return nil, err
		}
		if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
			f.Close()
			return nil, exit.Errorf(exit.Usage, "%s: not a regular file, so not a session file", path)
		}
		for {
			err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
			if err == nil || !errors.Is(err, syscall.EWOULDBLOCK) {
				break
			}
			select {
			case <-ctx.Done():
				f.Close()
				return nil, ctx.Err()
			case <-time.After(delay):
			}
			if delay < 50*time.Millisecond {
				delay *= 2
			}
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		same, err := sameFile(f, path)
		if err != nil && !(create && errors.Is(err, os.ErrNotExist)) {
			f.Close()
			return nil, err
		}
		if same {
			removeStaleTemps(path)
			return &File{path: path, f: f}, nil
		}
		f.Close() // replaced (or removed) while we waited: lock the new one
	}
}

// removeStaleTemps removes the temporary files a rewrite of path killed
// before its rename left behind (.<name>.*.tmp). It runs under path's
// lock, and a temp file still locked by a live rewrite is left alone.
func removeStaleTemps(path string) {
	dir, base := filepath.Split(path)
	ms, _ := filepath.Glob(filepath.Join(dir, "."+base+".*.tmp"))
	for _, m := range ms {
		f, err := os.Open(m)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.Remove(m)
		}
		f.Close()
	}
}

func sameFile(f *os.File, path string) (bool, error) {
	a, err := f.Stat()
	if err != nil {
		return false, err
	}
	b, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	return os.SameFile(a, b), nil
}

// Close releases the lock (closing every descriptor that holds it).
func (l *File) Close() error {
	err := l.f.Close()
	for _, f := range l.keep {
		f.Close()
	}
	l.keep = nil
	return err
}

// Size is the file's size on disk.
func (l *File) Size() (int64, error) {
	st, err := l.f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// ReadAll returns the whole (decompressed) content.
func (l *File) ReadAll() ([]byte, error) {
	return ReadBytes(io.NewSectionReader(l.f, 0, 1<<62), l.path)
}

// MaxRecord bounds a line (one record) read from a session file or an
// import (recordlimit: a longer one is bad input naming the file and the
// offset where it starts). agent-session sets it from AGENTUTILS_MAX_RECORD.
var MaxRecord = recordlimit.Default

// BoundLines reads r, failing once a line runs past MaxRecord (an error
// naming path and the offset where the line starts).
func BoundLines(r io.Reader, path string) io.Reader { return recordlimit.Reader(r, path, MaxRecord) }

// ReadBytes reads a session file's content from r: decompressed for a
// .zst path (a torn last frame skipped), each line within MaxRecord.
func ReadBytes(r io.Reader, path string) ([]byte, error) {
	if !IsZst(path) {
		return recordlimit.ReadAll(r, path, MaxRecord)
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	// A frame cut short (an append killed mid-write) is skipped, as a
	// torn last line of a .jsonl is.
	end, err := zstEnd(bytes.NewReader(raw), int64(len(raw)), path)
	if err != nil {
		return nil, err
	}
	d, err := zstd.NewReader(bytes.NewReader(raw[:end]), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	b, err := recordlimit.ReadAll(d, path, MaxRecord)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "%s: %v", path, err)
	}
	return b, nil
}

// zstEnd is the end of the last complete zstd frame of a .zst file of
// size bytes: the file's size, or the offset where a frame cut short
// starts. Bytes after the last frame that do not start one are an error
// naming the offset (the file is not a .zst session, or is damaged).
func zstEnd(r io.ReaderAt, size int64, path string) (int64, error) {
	var off int64
	for off < size {
		n, err := zstFrameLen(r, off, size)
		if err != nil {
			return 0, exit.Errorf(exit.Usage, "%s: offset %d: %v", path, off, err)
		}
		if n == 0 {
			return off, nil // torn
		}
		off += n
	}
	return off, nil
}

var (
	zstMagic   = []byte{0x28, 0xB5, 0x2F, 0xFD}
	errNotZstd = errors.New("not a zstd frame")
	didSizes   = [4]int64{0, 1, 2, 4} // Dictionary_ID field sizes by flag
)

// zstFrameLen is the length of the zstd frame (or skippable frame) at off,
// read from its headers without decoding it (RFC 8878 section 3.1); 0 when
// the file ends inside it.
func zstFrameLen(r io.ReaderAt, off, size int64) (int64, error) {
	var h [14]byte
	read := func(at int64, n int) bool {
		if at+int64(n) > size {
			return false
		}
		_, err := r.ReadAt(h[:n], at)
		return err == nil
	}
	if size-off < 4 {
		n := size - off
		r.ReadAt(h[:n], off)
		if bytes.Equal(h[:n], zstMagic[:n]) || (n > 0 && h[0]&0xF0 == 0x50) {
			return 0, nil
		}
		return 0, errNotZstd
	}
	read(off, 4)
	if h[1] == 0x2A && h[2] == 0x4D && h[3] == 0x18 && h[0]&0xF0 == 0x50 { // skippable
		if !read(off+4, 4) {
			return 0, nil
		}
		n := 8 + int64(uint32(h[0])|uint32(h[1])<<8|uint32(h[2])<<16|uint32(h[3])<<24)
		if off+n > size {
			return 0, nil
		}
		return n, nil
	}
	if !bytes.Equal(h[:4], zstMagic) {
		return 0, errNotZstd
	}
	if !read(off+4, 1) {
		return 0, nil
	}
	fhd := h[0]
	fcs, single, checksum, did := fhd>>6, int64(fhd>>5&1), fhd>>2&1 == 1, fhd&3
	if fhd&0x08 != 0 {
		return 0, errors.New("zstd frame header with the reserved bit set")
	}
	n := 5 + (1 - single) + didSizes[did] + [4]int64{single, 2, 4, 8}[fcs]
	for {
		if !read(off+n, 3) {
			return 0, nil
		}
		bh := int64(h[0]) | int64(h[1])<<8 | int64(h[2])<<16
		n += 3
		last, typ, bsize := bh&1 == 1, bh>>1&3, bh>>3
		switch typ {
		case 1: // RLE: one byte repeated
			bsize = 1
		case 3:
			return 0, errors.New("zstd block of the reserved type")
		}
		n += bsize
		if off+n > size {
			return 0, nil
		}
		if last {
			break
		}
	}
	if checksum {
		n += 4
	}
	if off+n > size {
		return 0, nil
	}
	return n, nil
}

// cutTornLine readies a plain file's end for an append: a last line
// without its newline that is a whole record (a file written by another
// tool) is closed with one (prefix), a torn one — a writer killed
// mid-line, an append that ran out of space — is cut off, as readers skip
// it. size is the file's size; end is where the append starts.
func (l *File) cutTornLine(size int64) (end int64, prefix []byte, err error) {
	start, err := lineStart(l.f, size)
	if err != nil || start == size {
		return size, nil, err
	}
	if size-start <= MaxRecord {
		tail := make([]byte, size-start)
		if _, err := l.f.ReadAt(tail, start); err != nil {
			return 0, nil, err
		}
		if _, derr := session.Decode(bytes.TrimSuffix(tail, []byte{'\r'})); derr == nil {
			return size, []byte{'\n'}, nil
		}
	}
	return start, nil, l.f.Truncate(start)
}

// lineStart is where the last line of the file's first size bytes starts:
// after its last newline (size when it ends with one, 0 without any).
func lineStart(r io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(end-int64(len(buf)), 0)
		b := buf[:end-start]
		if _, err := r.ReadAt(b, start); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// AppendLines writes whole lines at the end of the file in one write: plain
// files get the bytes, .zst files get one more zstd frame (readers decode
// concatenated frames). A torn end (a line or frame cut short) is cut
// first. A failed write (no space left, an I/O error) is rolled back: the
// file is truncated to its size before it, so nothing of it stays to be
// read or to fill the disk.
func (l *File) AppendLines(lines []byte) error {
	if len(lines) == 0 {
		return nil
	}
	size, err := l.Size()
	if err != nil {
		return err
	}
	end := size
	if IsZst(l.path) {
		// A frame torn by a killed append is cut first, so the new frame
		// follows the last complete one.
		if end, err = zstEnd(l.f, size, l.path); err != nil {
			return err
		}
		if end < size {
			if err := l.f.Truncate(end); err != nil {
				return err
			}
		}
		var buf bytes.Buffer
		e, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
		if err != nil {
			return err
		}
		e.Write(lines)
		if err := e.Close(); err != nil {
			return err
		}
		lines = buf.Bytes()
	} else {
		var prefix []byte
		if end, prefix, err = l.cutTornLine(size); err != nil {
			return err
		}
		if prefix != nil {
			lines = append(prefix, lines...)
		}
	}
	if !l.dirty {
		l.dirty, l.clean = true, end
	}
	n, err := l.write(lines)
	if err == nil && n < len(lines) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return l.rollBack(end, fmt.Errorf("append: %w", err))
	}
	return nil
}

// write is the append's one write (a fault-injecting one in tests).
func (l *File) write(b []byte) (int, error) {
	if l.faults != nil {
		return l.faults.Write(b)
	}
	return l.f.Write(b)
}

// rollBack truncates the file to size after a failed write or sync and
// returns err, saying so.
func (l *File) rollBack(size int64, err error) error {
	if terr := l.f.Truncate(size); terr != nil {
		return fmt.Errorf("%w; rolling back to %d bytes failed too: %v", err, size, terr)
	}
	return fmt.Errorf("%w (rolled back: the file is as it was, %d bytes)", err, size)
}

// Sync flushes the file to disk. When it fails, what was appended since
// the last sync (which may not be on disk) is rolled back.
func (l *File) Sync() error {
	err := l.f.Sync()
	if l.syncFault != nil {
		err = l.syncFault
	}
	if err != nil {
		if l.dirty {
			l.dirty = false
			return l.rollBack(l.clean, fmt.Errorf("fsync: %w", err))
		}
		return err
	}
	l.dirty = false
	return nil
}

// Rewrite replaces the whole file atomically with content (plain JSONL bytes;
// compressed for .zst): a locked temp file in the same directory, fsync,
// rename over the target, fsync the directory. The lock moves to the new file.
func (l *File) Rewrite(content []byte) error {
	dir, base := filepath.Split(l.path)
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := syscall.Flock(int(tmp.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	if err := WriteBytes(tmp, l.path, content); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), l.path); err != nil {
		return err
	}
	syncDir(dir)
	// Reopen in append mode on the new inode; we still hold its lock through tmp.
	nf, err := os.OpenFile(l.path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	ok = true
	old := l.f
	l.f, l.dirty = nf, false
	// Keep tmp open: its descriptor holds the flock on the new inode. The
	// lock is released when both are closed at Close time.
	old.Close()
	l.keep = append(l.keep, tmp)
	return nil
}

// WriteBytes writes content as path's file holds it: compressed for .zst.
func WriteBytes(w io.Writer, path string, content []byte) error {
	if !IsZst(path) {
		_, err := w.Write(content)
		return err
	}
	e, err := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	if _, err := e.Write(content); err != nil {
		e.Close()
		return err
	}
	return e.Close()
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// WriteFileAtomic creates or replaces a file that is not under a session lock
// (a new session, the leaf sidecar): compressed for .zst, then temp, fsync,
// rename, fsync dir.
func WriteFileAtomic(path string, content []byte) error {
	if IsZst(path) {
		var buf bytes.Buffer
		if err := WriteBytes(&buf, path, content); err != nil {
			return err
		}
		content = buf.Bytes()
	}
	return atomicfile.Write(path, content, 0o644)
}
