package main

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

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
)

// loaded is a whole session file read into memory, migrated to v3 when it
// was older. Subcommands that inspect or rewrite a session use it; open and
// append have streaming paths of their own for large files.
type loaded struct {
	path        string
	header      []byte // v3 header (migrated when the file was older)
	hdr         session.Header
	entries     []session.Record // file order; later duplicate headers dropped
	problems    []session.Problem
	migrated    bool // the file on disk is older than v3
	diskVersion int
}

// errNoSession marks a missing or empty session file.
var errNoSession = errors.New("no such session")

// load reads a whole session file. A missing or empty file gives errNoSession;
// a file whose first record is not a session header is bad input (exit 2).
func load(path string) (*loaded, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", path, errNoSession)
		}
		return nil, err
	}
	defer f.Close()
	data, err := readSessionBytes(f, path)
	if err != nil {
		return nil, exit.Wrap(exit.Usage, err)
	}
	return parseLoaded(path, data)
}

func parseLoaded(path string, data []byte) (*loaded, error) {
	l := &loaded{path: path}
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
			if l.hdr, err = session.ParseHeader(rec.Raw); err != nil {
				return nil, exit.Errorf(exit.Usage, "%s:%d: not a session file: %v", path, r.Line(), err)
			}
			l.header = rec.Raw
			continue
		}
		l.entries = append(l.entries, rec)
	}
	l.problems = r.Problems()
	if first {
		if len(bytes.TrimSpace(data)) > 0 {
			// Lines, but none a record: not a session (open's fast path says the same).
			return nil, exit.Errorf(exit.Usage, "%s:1: not a session file: the first record is not a session header", path)
		}
		return nil, fmt.Errorf("%s: %w", path, errNoSession)
	}
	l.diskVersion = l.hdr.Version
	if l.hdr.Version < 3 {
		h, out, _, err := session.Migrate(l.header, l.entries, func() string { return newEntryID(nil) })
		if err != nil {
			return nil, exit.Errorf(exit.Usage, "%s: migrating version %d: %v", path, l.hdr.Version, err)
		}
		l.header, l.entries, l.migrated = h, out, true
		if l.hdr, err = session.ParseHeader(h); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// bytes renders the session as file content (header + entries).
func (l *loaded) bytes() []byte {
	var b bytes.Buffer
	b.Write(l.header)
	b.WriteByte('\n')
	for _, e := range l.entries {
		b.Write(e.Raw)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func (l *loaded) ids() map[string]bool {
	m := make(map[string]bool, len(l.entries))
	for _, e := range l.entries {
		m[e.ID] = true
	}
	return m
}

// find returns the first entry with id.
func (l *loaded) find(id string) (session.Record, bool) {
	for _, e := range l.entries {
		if e.ID == id {
			return e, true
		}
	}
	return session.Record{}, false
}

// leaf is the current position: the sidecar when it names an entry (or
// null), else the last entry in file order.
func (l *loaded) leaf() string {
	if id, ok := readSidecar(l.path); ok {
		if id == "" {
			return ""
		}
		if _, found := l.find(id); found {
			return id
		}
	}
	if n := len(l.entries); n > 0 {
		return l.entries[n-1].ID
	}
	return ""
}

// warnProblems reports skipped lines on stderr, with file and line.
func warnProblems(c *cli.Context, path string, ps []session.Problem) {
	for _, p := range ps {
		if p.Kept {
			app.Warnf(c, "%s:%d: %v", path, p.Line, p.Err)
			continue
		}
		app.Warnf(c, "%s:%d: skipped: %v", path, p.Line, p.Err)
	}
}

// sidecarPath holds the leaf chosen by `checkout` when nothing was appended.
func sidecarPath(path string) string { return filepath.Join(artifactsDir(path), "leaf") }

// readSidecar returns the leaf id in the sidecar ("" for null) and whether
// there is one.
func readSidecar(path string) (string, bool) {
	b, err := os.ReadFile(sidecarPath(path))
	if err != nil {
		return "", false
	}
	s := strings.TrimSpace(string(b))
	if s == "null" {
		return "", true
	}
	return s, s != ""
}

func writeSidecar(path, leaf string) error {
	if leaf == "" {
		leaf = "null"
	}
	return writeFileAtomic(sidecarPath(path), []byte(leaf+"\n"))
}

func removeSidecar(path string) { os.Remove(sidecarPath(path)) }

// newEntryID draws an 8-hex entry id that is not in exists (nil: no check).
func newEntryID(exists func(string) bool) string {
	if exists == nil {
		exists = func(string) bool { return false }
	}
	return session.NewEntryID(rand.Reader, exists)
}

// newSessionID is a 16-hex snowflake from the clock and a random sequence.
func newSessionID(env *app.Env) string {
	var b [4]byte
	rand.Read(b[:])
	return session.NewSessionID(env.Now().UnixMilli(), binary.LittleEndian.Uint32(b[:]))
}

// sessionsDirFor is where new sessions for cwd are created.
func sessionsDirFor(env *app.Env, cwd string) string {
	return filepath.Join(dirs.Resolve(env.Getenv).Sessions(), session.EncodeCwd(cwd))
}

// sessionDirsFor lists the directories that may hold sessions of cwd: ours
// (--abs--) and the reference agent's home-relative form (-rel).
func sessionDirsFor(env *app.Env, cwd string) []string {
	root := dirs.Resolve(env.Getenv).Sessions()
	ds := []string{filepath.Join(root, session.EncodeCwd(cwd))}
	if home := env.Getenv("HOME"); home != "" {
		if rel, err := filepath.Rel(home, cwd); err == nil && !strings.HasPrefix(rel, "..") {
			enc := "-"
			if rel != "." {
				enc += strings.NewReplacer("/", "-", "\\", "-", ":", "-").Replace(rel)
			}
			ds = append(ds, filepath.Join(root, enc))
		}
	}
	return ds
}

// absPath resolves a path argument against the command's working directory.
func absPath(env *app.Env, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(env.Dir, p)
}

// cwdFlag is --cwd as an absolute path, the working directory when unset.
func cwdFlag(c *cli.Context, env *app.Env) string {
	if c.IsSet("cwd") {
		return absPath(env, c.String("cwd"))
	}
	return env.Dir
}

// needPath returns the FILE argument or a usage error.
func needPath(c *cli.Context, env *app.Env, what string) (string, error) {
	if c.NArg() < 1 {
		return "", exit.Errorf(exit.Usage, "missing %s (see '%s --help')", what, c.Command.HelpName)
	}
	return absPath(env, c.Args().First()), nil
}

// loadExisting loads a session that must exist.
func loadExisting(c *cli.Context, path string) (*loaded, error) {
	l, err := load(path)
	if errors.Is(err, errNoSession) {
		return nil, exit.Errorf(exit.Usage, "%s: no such session file (create one with 'agent-session new')", path)
	}
	if err != nil {
		return nil, err
	}
	warnProblems(c, path, l.problems)
	return l, nil
}

// loadArg loads the session file the command's first argument names, which
// must exist; path is its absolute path.
func loadArg(c *cli.Context, env *app.Env) (l *loaded, path string, err error) {
	if path, err = needPath(c, env, "FILE"); err == nil {
		l, err = loadExisting(c, path)
	}
	return l, path, err
}
