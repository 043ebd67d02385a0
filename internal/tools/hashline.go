package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/lib/edit"
	"github.com/agentutils/agentutils/lib/event"
)

// hashlineTool is the edit tool in hashline mode (the reference's v2): a
// patch addressed by the [path#TAG] header and line numbers read showed.
// Every section is checked and applied in memory before the first write.
func hashlineTool() Tool {
	return Tool{
		Def: def("edit", "Edit files by line number. Start each file with the [path#TAG] header shown by read, then hunks: 'replace A..B:' (or 'replace N:') followed by the new lines each prefixed with '+' (no + lines deletes), 'delete A..B', 'insert before N:', 'insert after N:', 'insert head:' or 'insert tail:' followed by + lines. A lone '+' is a blank line. Line numbers are those of the file as read, for the whole patch. If the file changed since it was read, read it again.",
			`{"type":"object","properties":{"input":{"type":"string","description":"the hashline patch; the path of each [path#TAG] header is a path: relative to the working directory, ~ is home; confined by --root"}},"required":["input"],"additionalProperties":false}`),
		Run: func(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
			var a struct {
				Input  string `json:"input"`
				Input_ string `json:"_input"`
			}
			if err := decode(args, &a); err != nil {
				return event.ToolOutput{}, err
			}
			if a.Input == "" {
				a.Input = a.Input_
			}
			secs, err := edit.ParseHashline(a.Input)
			if err != nil {
				return event.ToolOutput{}, err
			}
			type write struct {
				fsys      FS
				name, abs string
				old       []byte
				data      []byte
			}
			var writes []write
			var msgs, diffs []string
			for _, s := range secs {
				fsys, p, abs, raw, err := env.readForEdit(s.Path)
				if err != nil {
					return event.ToolOutput{}, err
				}
				if len(raw) > maxHashline {
					return event.ToolOutput{}, fmt.Errorf("%s is larger than 4 MiB and has no version tag; edit it with bash (sed) or in parts.", s.Path)
				}
				f := edit.Parse(string(raw))
				text, err := edit.ApplyHunks(s.Path, f.Text, s)
				if err != nil {
					return event.ToolOutput{}, err
				}
				writes = append(writes, write{fsys, p, abs, raw, []byte(f.Render(text))})
				msgs = append(msgs, fmt.Sprintf("Updated %s [%s#%s]", s.Path, s.Path, edit.FileTag(text)))
				diffs = append(diffs, edit.Diff(s.Path, f.Text, text))
			}
			for _, w := range writes {
				saveUndo(env, w.abs, w.old, true)
				if err := atomicfile.WriteFS(w.fsys, w.name, w.data, 0o644); err != nil {
					return event.ToolOutput{}, err
				}
			}
			return event.ToolOutput{Content: []event.Content{event.Text(strings.Join(msgs, "\n"))},
				Details: details(map[string]any{"diff": strings.Join(diffs, "")})}, nil
		},
	}
}
