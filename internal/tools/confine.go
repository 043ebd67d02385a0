package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/lib/edit"
	"github.com/agentutils/agentutils/lib/tooldef"
)

// FS is the file system a tool's file operations go through: plain os
// calls, or, under a root, an *os.Root, which opens every name beneath
// the root directory's descriptor and follows no symlink that leaves it
// (so a path swapped for a symlink between check and use is refused).
type FS interface {
	atomicfile.FS
	Open(name string) (*os.File, error)
	ReadFile(name string) ([]byte, error)
}

type osFS struct{ atomicfile.OS }

func (osFS) Open(name string) (*os.File, error)   { return os.Open(name) }
func (osFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

// Resolve is the one resolution of a path argument, used by the policy
// and by every tool: surrounding whitespace trimmed, ~ and ~/ expanded to
// $HOME, made absolute against the cwd, cleaned.
func (e *Env) Resolve(p string) string {
	p = strings.TrimSpace(p)
	if p == "~" || strings.HasPrefix(p, "~/") {
		if h := e.Getenv("HOME"); h != "" {
			p = filepath.Join(h, strings.TrimPrefix(p, "~"))
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.Cwd, p)
	}
	return filepath.Clean(p)
}

// Outside is the refusal of a path argument outside the root, or "".
// The path is resolved as the tools resolve it and its symlinks as far
// as it exists, so a symlink that leaves the root counts as outside.
func (e *Env) Outside(arg string) string {
	if e.Root == "" {
		return ""
	}
	if _, ok := e.within(e.Resolve(arg)); !ok {
		return fmt.Sprintf("Path %s is outside the allowed root %s. Use a path inside it.", strings.TrimSpace(arg), e.Root)
	}
	return ""
}

// realRoot is the root with its own symlinks resolved.
func (e *Env) realRoot() string {
	r, err := filepath.EvalSymlinks(e.Root)
	if err != nil {
		r = e.Root
	}
	r, _ = filepath.Abs(r)
	return filepath.Clean(r)
}

// RealPath is abs with the symlinks of its longest existing prefix
// resolved, so a new file under a symlinked directory is judged by where
// the directory really is; false for a dangling symlink (refused rather
// than guessed).
func RealPath(abs string) (string, bool) {
	rest, q := "", abs
	for {
		if real, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(real, rest), true
		}
		if _, err := os.Lstat(q); err == nil {
			return "", false
		}
		parent := filepath.Dir(q)
		if parent == q {
			return abs, true
		}
		rest = filepath.Join(filepath.Base(q), rest)
		q = parent
	}
}

// within is abs relative to the root (RealPath's), and whether it is
// inside.
func (e *Env) within(abs string) (string, bool) {
	p, ok := RealPath(abs)
	if !ok {
		return "", false
	}
	rel, err := filepath.Rel(e.realRoot(), p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

// at is where a tool opens the path argument arg: the file system, the
// name to give it, and the resolved absolute path (for messages, undo
// and walks). Under a root the name is relative to the root's
// descriptor, and the absolute path is the checked one, its symlinks
// resolved.
func (e *Env) at(arg string) (FS, string, string, error) {
	abs := e.Resolve(arg)
	if e.Root == "" {
		return osFS{}, abs, abs, nil
	}
	rel, ok := e.within(abs)
	if !ok {
		return nil, "", abs, fmt.Errorf("%s", e.Outside(arg))
	}
	r, err := e.openRoot()
	if err != nil {
		return nil, "", abs, err
	}
	// The checked path, symlinks resolved: what a walk starts from.
	return r, rel, filepath.Join(e.realRoot(), rel), nil
}

// openRoot opens the root once per Env.
func (e *Env) openRoot() (*os.Root, error) {
	e.rootMu.Lock()
	defer e.rootMu.Unlock()
	if e.rootFS == nil || e.rootName != e.Root {
		r, err := os.OpenRoot(e.realRoot())
		if err != nil {
			return nil, fmt.Errorf("--root %s: %v", e.Root, err)
		}
		e.rootFS, e.rootName = r, e.Root
	}
	return e.rootFS, nil
}

// Paths is every path argument of a call as written, so that a policy
// checks each one (with Resolve and Outside): the arguments lib/tooldef's
// table names for the tool, read by their kind — the named file or
// directory, the directory a default or a pattern searches, the headers
// of a hashline or apply_patch patch. A patch that does not parse names
// nothing (the tool refuses it before touching a file).
func Paths(name string, args json.RawMessage) []string {
	t, _ := tooldef.Lookup(name)
	var out []string
	for _, pa := range t.Paths {
		v := ArgString(args, pa.Arg)
		switch pa.Kind {
		case tooldef.Plain:
			if v != "" {
				out = append(out, v)
			}
		case tooldef.OrDot:
			if strings.TrimSpace(v) == "" {
				v = "."
			}
			out = append(out, v)
		case tooldef.GlobBase:
			base, _ := splitGlob(strings.TrimSpace(v))
			out = append(out, base)
		case tooldef.Hashline:
			if secs, err := edit.ParseHashline(v); err == nil && v != "" {
				for _, s := range secs {
					out = append(out, s.Path)
				}
			}
		case tooldef.CodexPatch:
			ops, err := edit.ParsePatch(v)
			if err != nil {
				return nil
			}
			for _, op := range ops {
				out = append(out, op.Path)
				if op.MoveTo != "" {
					out = append(out, op.MoveTo)
				}
			}
		}
	}
	return out
}

// ArgString is the string argument arg of a call as the tool decodes it
// (encoding/json into a field: names matched in any case, the last wins),
// or "".
func ArgString(args json.RawMessage, arg string) string {
	dec := json.NewDecoder(bytes.NewReader(args))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	v := ""
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return v
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return v
		}
		if k, _ := tok.(string); strings.EqualFold(k, arg) {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				v = s
			}
		}
	}
	return v
}

// errNotebook refuses an edit of a Jupyter notebook, as Claude Code does,
// pointing to notebook_edit.
var errNotebook = errors.New("Cannot edit Jupyter notebooks with the Edit tool. Use the notebook_edit tool instead.")

// readForEdit resolves the path argument of an edit (not a notebook) and
// reads the file: its file system, name there, absolute path and bytes.
func (e *Env) readForEdit(arg string) (fsys FS, name, abs string, raw []byte, err error) {
	if strings.HasSuffix(arg, ".ipynb") {
		return nil, "", "", nil, errNotebook
	}
	if fsys, name, abs, err = e.at(arg); err != nil {
		return nil, "", "", nil, err
	}
	if raw, err = fsys.ReadFile(name); err != nil {
		return nil, "", "", nil, fileError(arg, err)
	}
	return fsys, name, abs, raw, nil
}
