package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/lib/edit"
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
// checks each one (with Resolve and Outside): the named file or
// directory, the directory a default or a pattern searches, the headers
// of a hashline or apply_patch patch. A patch that does not parse names
// nothing (the tool refuses it before touching a file).
func Paths(name string, args json.RawMessage) []string {
	var a struct {
		Path, Pattern, Cwd, Input string
	}
	json.Unmarshal(args, &a)
	orDot := func(p string) []string {
		if strings.TrimSpace(p) == "" {
			return []string{"."}
		}
		return []string{p}
	}
	switch name {
	case "read", "write", "undo_edit":
		return []string{a.Path}
	case "ls", "grep":
		return orDot(a.Path)
	case "bash":
		return orDot(a.Cwd)
	case "find":
		base, _ := splitGlob(strings.TrimSpace(a.Pattern))
		return []string{base}
	case "edit":
		if a.Input == "" {
			return []string{a.Path}
		}
		secs, err := edit.ParseHashline(a.Input)
		if err != nil {
			return nil
		}
		var out []string
		for _, s := range secs {
			out = append(out, s.Path)
		}
		return out
	case "apply_patch":
		ops, err := edit.ParsePatch(a.Input)
		if err != nil {
			return nil
		}
		var out []string
		for _, op := range ops {
			out = append(out, op.Path)
			if op.MoveTo != "" {
				out = append(out, op.MoveTo)
			}
		}
		return out
	}
	return nil
}

// errNotebook refuses an edit of a Jupyter notebook, as Claude Code does.
var errNotebook = errors.New("Cannot edit Jupyter notebooks with the Edit tool. Use the NotebookEdit tool instead.")

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
