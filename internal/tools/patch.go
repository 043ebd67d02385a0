package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/lib/edit"
	"github.com/agentutils/agentutils/lib/event"
)

// applyPatchTool is the edit tool's apply_patch mode (the Codex envelope),
// under the wire name the reference gives it. Unlike the reference it is
// all-or-nothing: every file op is computed before the first write.
func applyPatchTool() Tool {
	return Tool{
		Def: def("apply_patch", "Apply a patch in the Codex envelope: '*** Begin Patch', then '*** Add File: PATH' (lines prefixed '+'), '*** Delete File: PATH', or '*** Update File: PATH' (optional '*** Move to: PATH') with '@@ CONTEXT' sections of ' ' context, '-' removed and '+' added lines, then '*** End Patch'. Returns a diff.",
			`{"type":"object","properties":{"input":{"type":"string","description":"the whole patch, from *** Begin Patch to *** End Patch; the path of each File and Move to header is a path: relative to the working directory, ~ is home; confined by --root"}},"required":["input"],"additionalProperties":false}`),
		Run: func(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
			var a struct{ Input string }
			if err := decode(args, &a); err != nil {
				return event.ToolOutput{}, err
			}
			ops, err := edit.ParsePatch(a.Input)
			if err != nil {
				return event.ToolOutput{}, err
			}
			type write struct {
				fsys            FS
				name, abs, from string // from: a name to remove after writing (move, delete)
				fromAbs         string
				data            []byte
				del             bool
				old             []byte
				existed         bool
			}
			var writes []write
			var summary, diffs []string
			for _, op := range ops {
				fsys, p, abs, err := env.at(op.Path)
				if err != nil {
					return event.ToolOutput{}, err
				}
				if strings.HasSuffix(abs, ".ipynb") {
					return event.ToolOutput{}, errNotebook
				}
				old, rerr := fsys.ReadFile(p)
				switch op.Op {
				case edit.OpAdd:
					writes = append(writes, write{fsys: fsys, name: p, abs: abs, data: []byte(op.Text), old: old, existed: rerr == nil})
					summary = append(summary, "A "+op.Path)
					diffs = append(diffs, edit.Diff(op.Path, string(old), op.Text))
				case edit.OpDelete:
					if rerr != nil {
						return event.ToolOutput{}, fmt.Errorf("Failed to delete file %s: %s", op.Path, missing(rerr))
					}
					writes = append(writes, write{fsys: fsys, name: p, abs: abs, del: true, old: old, existed: true})
					summary = append(summary, "D "+op.Path)
					diffs = append(diffs, edit.Diff(op.Path, string(old), ""))
				case edit.OpUpdate:
					if rerr != nil {
						return event.ToolOutput{}, fmt.Errorf("Failed to read file to update %s: %v", op.Path, fileError(op.Path, rerr))
					}
					f := edit.Parse(string(old))
					text, err := edit.ApplyChunks(op.Path, f.Text, op.Chunks)
					if err != nil {
						return event.ToolOutput{}, err
					}
					w := write{fsys: fsys, name: p, abs: abs, data: []byte(f.Render(text)), old: old, existed: true}
					name := op.Path
					if op.MoveTo != "" {
						_, to, toAbs, err := env.at(op.MoveTo)
						if err != nil {
							return event.ToolOutput{}, err
						}
						w.name, w.abs, w.from, w.fromAbs, name = to, toAbs, p, abs, op.MoveTo
					}
					writes = append(writes, w)
					summary = append(summary, "M "+name)
					diffs = append(diffs, edit.Diff(name, f.Text, text))
				}
			}
			for _, w := range writes {
				if w.del {
					saveUndo(env, w.abs, w.old, true)
					if err := w.fsys.Remove(w.name); err != nil {
						return event.ToolOutput{}, err
					}
					continue
				}
				saveUndo(env, w.abs, w.old, w.existed && w.from == "")
				if err := atomicfile.WriteFS(w.fsys, w.name, w.data, 0o644); err != nil {
					return event.ToolOutput{}, err
				}
				if w.from != "" && w.fromAbs != w.abs {
					saveUndo(env, w.fromAbs, w.old, true)
					if err := w.fsys.Remove(w.from); err != nil {
						return event.ToolOutput{}, err
					}
				}
			}
			return event.ToolOutput{Content: []event.Content{event.Text("Success. Updated the following files:\n" + strings.Join(summary, "\n"))},
				Details: details(map[string]any{"diff": strings.Join(diffs, "")})}, nil
		},
	}
}

func missing(err error) string {
	if errors.Is(err, os.ErrNotExist) {
		return "no such file"
	}
	return err.Error()
}

// undoPath is where the pre-edit copy of path lives in the state dir.
func undoPath(env *Env, path string) (string, error) {
	d, err := env.stateDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(d, "undo", hex.EncodeToString(sum[:12])+".json"), nil
}

type undoRecord struct {
	Path    string `json:"path"`
	Existed bool   `json:"existed"`
	Content []byte `json:"content"`
}

// saveUndo keeps one level of history per file, as the reference does;
// a failure to save it never fails the edit.
func saveUndo(env *Env, path string, old []byte, existed bool) {
	env.touch(path)
	u, err := undoPath(env, path)
	if err != nil {
		return
	}
	b, _ := json.Marshal(undoRecord{Path: path, Existed: existed, Content: old})
	_ = atomicfile.Write(u, b, 0o600)
}

func undoTool() Tool {
	return Tool{
		Def: def("undo_edit", "Revert a file to its state before the last edit, write or apply_patch that changed it (one level per file).",
			`{"type":"object","properties":{"path":{"type":"string","description":"a path: relative to the working directory, ~ is home; confined by --root"}},"required":["path"],"additionalProperties":false}`),
		Run: func(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
			var a struct{ Path string }
			if err := decode(args, &a); err != nil {
				return event.ToolOutput{}, err
			}
			fsys, p, abs, err := env.at(a.Path)
			if err != nil {
				return event.ToolOutput{}, err
			}
			u, err := undoPath(env, abs)
			if err != nil {
				return event.ToolOutput{}, err
			}
			b, err := os.ReadFile(u)
			var rec undoRecord
			if err != nil || json.Unmarshal(b, &rec) != nil {
				return event.ToolOutput{}, fmt.Errorf("No undo history for %s. Only the most recent edit per file can be undone.", a.Path)
			}
			cur, _ := fsys.ReadFile(p)
			if rec.Existed {
				err = atomicfile.WriteFS(fsys, p, rec.Content, 0o644)
			} else {
				err = fsys.Remove(p)
			}
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return event.ToolOutput{}, err
			}
			os.Remove(u)
			return event.ToolOutput{Content: []event.Content{event.Text(fmt.Sprintf("Reverted %s to its state before the last edit", a.Path))},
				Details: details(map[string]any{"diff": edit.Diff(a.Path, string(cur), string(rec.Content))})}, nil
		},
	}
}
