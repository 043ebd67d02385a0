package sessionstore

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

// Loaded is a whole session file read into memory, migrated to v3 when it
// was older. Subcommands that inspect or rewrite a session use it; open and
// append have streaming paths of their own for large files.
type Loaded struct {
	Path        string
	Header      []byte // v3 header (migrated when the file was older)
	Hdr         session.Header
	Entries     []session.Record // file order; later duplicate headers dropped
	Problems    []session.Problem
	Migrated    bool // the file on disk is older than v3
	DiskVersion int
}

// ErrNoSession marks a missing or empty session file.
var ErrNoSession = errors.New("no such session")

// Load reads a whole session file. A missing or empty file gives ErrNoSession;
// a file whose first record is not a session header is bad input (exit 2).
func Load(path string) (*Loaded, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", path, ErrNoSession)
		}
		return nil, err
	}
	defer f.Close()
	data, err := ReadBytes(f, path)
	if err != nil {
		return nil, exit.Wrap(exit.Usage, err)
	}
	return Parse(path, data)
}

func Parse(path string, data []byte) (*Loaded, error) {
	l := &Loaded{Path: path}
	r := session.NewReader(bytes.NewReader(data))
	first := true
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, exit.Errorf(exit.Usage, "%s:%d: %v", path, r.Line(), err)
		}
		if first {
			first = false
			if l.Hdr, err = session.ParseHeader(rec.Raw); err != nil {
				return nil, exit.Errorf(exit.Usage, "%s:%d: not a session file: %v", path, r.Line(), err)
			}
			l.Header = rec.Raw
			continue
		}
		l.Entries = append(l.Entries, rec)
	}
	l.Problems = r.Problems()
	if first {
		if len(bytes.TrimSpace(data)) > 0 {
			// Lines, but none a record: not a session (open's fast path says the same).
			return nil, exit.Errorf(exit.Usage, "%s:1: not a session file: the first record is not a session header", path)
		}
		return nil, fmt.Errorf("%s: %w", path, ErrNoSession)
	}
	l.DiskVersion = l.Hdr.Version
	if l.Hdr.Version < 3 {
		h, out, _, err := session.Migrate(l.Header, l.Entries, func() string { return NewEntryID(nil) })
		if err != nil {
			return nil, exit.Errorf(exit.Usage, "%s: migrating version %d: %v", path, l.Hdr.Version, err)
		}
		l.Header, l.Entries, l.Migrated = h, out, true
		if l.Hdr, err = session.ParseHeader(h); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Bytes renders the session as file content (header + entries).
func (l *Loaded) Bytes() []byte {
	var b bytes.Buffer
	b.Write(l.Header)
	b.WriteByte('\n')
	for _, e := range l.Entries {
		b.Write(e.Raw)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// IDs is the set of entry ids.
func (l *Loaded) IDs() map[string]bool {
	m := make(map[string]bool, len(l.Entries))
	for _, e := range l.Entries {
		m[e.ID] = true
	}
	return m
}

// Find returns the first entry with id.
func (l *Loaded) Find(id string) (session.Record, bool) {
	for _, e := range l.Entries {
		if e.ID == id {
			return e, true
		}
	}
	return session.Record{}, false
}

// Leaf is the current position: the sidecar when it names an entry (or
// null), else the last entry in file order.
func (l *Loaded) Leaf() string {
	if id, ok := ReadSidecar(l.Path); ok {
		if id == "" {
			return ""
		}
		if _, found := l.Find(id); found {
			return id
		}
	}
	if n := len(l.Entries); n > 0 {
		return l.Entries[n-1].ID
	}
	return ""
}

// SidecarPath holds the leaf chosen by `checkout` when nothing was appended.
func SidecarPath(path string) string { return filepath.Join(ArtifactsDir(path), "leaf") }

// ReadSidecar returns the leaf id in the sidecar ("" for null) and whether
// there is one.
func ReadSidecar(path string) (string, bool) {
	b, err := os.ReadFile(SidecarPath(path))
	if err != nil {
		return "", false
	}
	s := strings.TrimSpace(string(b))
	if s == "null" {
		return "", true
	}
	return s, s != ""
}

// WriteSidecar sets the leaf in the sidecar ("" for null).
func WriteSidecar(path, leaf string) error {
	if leaf == "" {
		leaf = "null"
	}
	return WriteFileAtomic(SidecarPath(path), []byte(leaf+"\n"))
}

// RemoveSidecar removes the sidecar (the last entry is the leaf again).
func RemoveSidecar(path string) { os.Remove(SidecarPath(path)) }

// NewEntryID draws an 8-hex entry id that is not in exists (nil: no check).
func NewEntryID(exists func(string) bool) string {
	if exists == nil {
		exists = func(string) bool { return false }
	}
	return session.NewEntryID(rand.Reader, exists)
}

// NewSessionID is a 16-hex snowflake from the clock (now) and a random sequence.
func NewSessionID(now time.Time) string {
	var b [4]byte
	rand.Read(b[:])
	return session.NewSessionID(now.UnixMilli(), binary.LittleEndian.Uint32(b[:]))
}

// HasSidecar reports whether a checkout left a leaf sidecar beside path.
func HasSidecar(path string) bool {
	_, err := os.Stat(SidecarPath(path))
	return err == nil
}
