package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/notebook"
)

// notebookTool edits a Jupyter notebook's cells (lib/notebook): replace,
// insert or delete one by id, or change its type. Claude Code's
// NotebookEdit, with our argument names.
func notebookTool() Tool {
	return Tool{
		Def: def("notebook_edit", "Edit a Jupyter notebook (.ipynb) by cell: replace a cell's source (and optionally its type), insert a new cell after cell_id (at the top without one; cell_type required), or delete a cell. cell_id is the id read shows (cell-N in notebooks without ids). A changed code cell loses its outputs.",
			`{"type":"object","properties":{"path":{"type":"string","description":"the .ipynb file; a path: relative to the working directory, ~ is home; confined by --root"},"cell_id":{"type":"string"},"new_source":{"type":"string"},"cell_type":{"type":"string","enum":["code","markdown","raw"]},"edit_mode":{"type":"string","enum":["replace","insert","delete"],"description":"default replace"}},"required":["path"],"additionalProperties":false}`),
		Run: func(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
			var a struct {
				Path      string
				CellID    string  `json:"cell_id"`
				NewSource *string `json:"new_source"`
				CellType  string  `json:"cell_type"`
				EditMode  string  `json:"edit_mode"`
			}
			if err := decode(args, &a); err != nil {
				return event.ToolOutput{}, err
			}
			if !strings.HasSuffix(a.Path, ".ipynb") {
				return event.ToolOutput{}, fmt.Errorf("%s is not a notebook (.ipynb); use edit or write for other files.", a.Path)
			}
			fsys, p, abs, err := env.at(a.Path)
			if err != nil {
				return event.ToolOutput{}, err
			}
			raw, err := fsys.ReadFile(p)
			if err != nil {
				return event.ToolOutput{}, fileError(a.Path, err)
			}
			nb, err := notebook.Parse(raw)
			if err != nil {
				return event.ToolOutput{}, fmt.Errorf("%s: %v", a.Path, err)
			}
			e := notebook.Edit{Mode: a.EditMode, CellID: a.CellID, Type: a.CellType, HasSource: a.NewSource != nil}
			if a.NewSource != nil {
				e.Source = *a.NewSource
			}
			id, err := nb.Apply(e)
			if err != nil {
				return event.ToolOutput{}, fmt.Errorf("%s: %v", a.Path, err)
			}
			saveUndo(env, abs, raw, true)
			if err := atomicfile.WriteFS(fsys, p, nb.Bytes(), 0o644); err != nil {
				return event.ToolOutput{}, err
			}
			done := map[string]string{"": "Replaced", "replace": "Replaced", "insert": "Inserted", "delete": "Deleted"}[a.EditMode]
			return event.ToolOutput{Content: []event.Content{event.Text(fmt.Sprintf("%s cell %s in %s.", done, id, a.Path))},
				Details: details(map[string]any{"cellId": id, "editMode": a.EditMode})}, nil
		},
	}
}

// readNotebook shows a notebook as read does without offset and limit:
// its cells with their outputs, images as images; ok is false when the
// file is not a notebook (read shows its lines then).
func readNotebook(f io.Reader, path string) (event.ToolOutput, bool) {
	raw, err := io.ReadAll(f)
	if err != nil {
		return event.ToolOutput{}, false
	}
	nb, err := notebook.Parse(raw)
	if err != nil {
		return event.ToolOutput{}, false
	}
	view, images := nb.View()
	view = stripANSI(view)
	if len(view) > maxBytes {
		view = headOf(view, maxBytes) + fmt.Sprintf("\n[Showing the first %s of the notebook's %s. Read the JSON with offset and limit: read with path %s, offset 1 and limit 2000]", event.FormatBytes(maxBytes), event.FormatBytes(len(view)), path)
	}
	out := event.ToolOutput{Content: []event.Content{event.Text(view)}}
	for _, im := range images {
		out.Content = append(out.Content, event.Content{Type: "image", Data: im.Data, MimeType: im.MimeType})
	}
	return out, true
}
