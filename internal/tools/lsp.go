package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	ilsp "github.com/agentutils/agentutils/internal/lsp"
	"github.com/agentutils/agentutils/lib/edit"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/lsp"
)

// LSPWait is how long the lsp tool waits for a server's diagnostics, and
// write, edit and apply_patch for those of the files they changed, when
// Env.LSPWait is zero.
const LSPWait = 5 * time.Second

// lspMaxLocations is how many definitions or references are listed.
const lspMaxLocations = 100

func lspTool() Tool {
	return Tool{
		Def: def("lsp", "Ask the language server of a file (gopls, typescript-language-server, pyright, rust-analyzer, when on PATH; started on first use): diagnostics (the file's errors and warnings), definition, references and hover (of the symbol at line and column, or of the first occurrence of symbol on line), rename (a preview: the diff renaming the symbol to new_name would make; nothing is written). Lines and columns count from 1.",
			`{"type":"object","properties":{"operation":{"type":"string","enum":["diagnostics","definition","references","hover","rename"]},"path":{"type":"string","description":"a path: relative to the working directory, ~ is home; confined by --root"},"line":{"type":"integer","minimum":1},"column":{"type":"integer","minimum":1,"description":"in characters; or give symbol"},"symbol":{"type":"string","description":"the name to look for on line, when column is not given"},"new_name":{"type":"string","description":"rename: the new name"}},"required":["operation","path"],"additionalProperties":false}`),
		Run: runLSP,
	}
}

type lspArgs struct {
	Operation string
	Path      string
	Line      int
	Column    int
	Symbol    string
	NewName   string `json:"new_name"`
}

func runLSP(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
	var a lspArgs
	if err := decode(args, &a); err != nil {
		return event.ToolOutput{}, err
	}
	if env.LSP == nil {
		return event.ToolOutput{}, fmt.Errorf("The language servers are off in this tool process (agent-tool --no-lsp).")
	}
	_, _, abs, err := env.at(a.Path)
	if err != nil {
		return event.ToolOutput{}, err
	}
	if _, err := os.Stat(abs); err != nil {
		return event.ToolOutput{}, fileError(a.Path, err)
	}
	d, err := env.LSP.Open(ctx, abs)
	if err != nil {
		return event.ToolOutput{}, err
	}
	if a.Operation == "diagnostics" {
		wctx, cancel := context.WithTimeout(ctx, env.lspWait())
		defer cancel()
		ds, ok := d.Diagnostics(wctx)
		out := lsp.ShowDiagnostics(a.Path, d.Lines, ds, d.Units)
		switch {
		case !ok && len(ds) == 0:
			out = fmt.Sprintf("%s sent no diagnostics for %s within %s (it may still be loading the workspace: ask again).", d.Server, a.Path, env.lspWait())
		case !ok:
			out += fmt.Sprintf("[%s has not finished with this version within %s: these may be stale]", d.Server, env.lspWait())
		case len(ds) == 0:
			out = "No problems in " + a.Path + "."
		}
		return event.ToolOutput{Content: []event.Content{event.Text(strings.TrimRight(out, "\n"))},
			Details: details(map[string]any{"server": d.Server, "diagnostics": ds})}, nil
	}
	pos, err := lspPosition(d, a)
	if err != nil {
		return event.ToolOutput{}, err
	}
	td := map[string]any{"textDocument": map[string]string{"uri": d.URI}, "position": pos}
	switch a.Operation {
	case "definition", "references":
		if a.Operation == "references" {
			td["context"] = map[string]bool{"includeDeclaration": true}
		}
		raw, err := d.Call(ctx, "textDocument/"+a.Operation, td)
		if err != nil {
			return event.ToolOutput{}, fmt.Errorf("%s: %s: %v", d.Server, a.Operation, err)
		}
		locs, err := lsp.Locations(raw)
		if err != nil {
			return event.ToolOutput{}, err
		}
		return text(showLocations(env, a.Operation, locs, d.Units)), nil
	case "hover":
		raw, err := d.Call(ctx, "textDocument/hover", td)
		if err != nil {
			return event.ToolOutput{}, fmt.Errorf("%s: hover: %v", d.Server, err)
		}
		if h := lsp.HoverText(raw); h != "" {
			return text(h), nil
		}
		return text("No hover information there."), nil
	case "rename":
		if strings.TrimSpace(a.NewName) == "" {
			return event.ToolOutput{}, fmt.Errorf("rename needs new_name")
		}
		td["newName"] = a.NewName
		raw, err := d.Call(ctx, "textDocument/rename", td)
		if err != nil {
			return event.ToolOutput{}, fmt.Errorf("%s: rename: %v", d.Server, err)
		}
		return renamePreview(env, raw, d.Units)
	}
	return event.ToolOutput{}, fmt.Errorf("unknown operation %q (operations: diagnostics, definition, references, hover, rename)", a.Operation)
}

// lspPosition is the server's position of the line and column (or symbol)
// the model named.
func lspPosition(d *ilsp.Doc, a lspArgs) (lsp.Position, error) {
	if a.Line < 1 || a.Line > len(d.Lines) {
		return lsp.Position{}, fmt.Errorf("%s needs a line between 1 and %d of %s", a.Operation, len(d.Lines), a.Path)
	}
	line := d.Lines[a.Line-1]
	col := 0 // a byte offset
	switch {
	case a.Column > 0:
		col = len(line)
		n := 0
		for i := range line {
			if n++; n == a.Column {
				col = i
				break
			}
		}
	case a.Symbol != "":
		i := strings.Index(line, a.Symbol)
		if i < 0 {
			return lsp.Position{}, fmt.Errorf("%q is not on line %d of %s: %s", a.Symbol, a.Line, a.Path, strings.TrimSpace(line))
		}
		col = i
	default:
		return lsp.Position{}, fmt.Errorf("%s needs column or symbol", a.Operation)
	}
	return lsp.Position{Line: a.Line - 1, Character: d.Units.Character(line, col)}, nil
}

// showLocations lists locations as path:line:col and the line's text.
func showLocations(env *Env, op string, locs []lsp.Location, u lsp.Units) string {
	if len(locs) == 0 {
		return "No " + op + " found."
	}
	files := map[string][]string{}
	var b strings.Builder
	for i, l := range locs {
		if i == lspMaxLocations {
			fmt.Fprintf(&b, "[%d more not shown]\n", len(locs)-i)
			break
		}
		p, err := lsp.Path(l.URI)
		if err != nil {
			fmt.Fprintf(&b, "%s:%d\n", l.URI, l.Range.Start.Line+1)
			continue
		}
		lines, ok := files[p]
		if !ok {
			if raw, err := os.ReadFile(p); err == nil && utf8.Valid(raw) {
				lines = lsp.Lines(string(raw))
			}
			files[p] = lines
		}
		fmt.Fprint(&b, lsp.Where(env.rel(p), lines, l.Range.Start, u))
		if l.Range.Start.Line < len(lines) {
			fmt.Fprintf(&b, ": %s", strings.TrimSpace(lines[l.Range.Start.Line]))
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// renamePreview is the diff of a rename's workspace edit, applied to the
// files as they are on disk; nothing is written.
func renamePreview(env *Env, raw json.RawMessage, u lsp.Units) (event.ToolOutput, error) {
	var we lsp.WorkspaceEdit
	if len(raw) == 0 || string(raw) == "null" {
		return text("The server renames nothing there."), nil
	}
	if err := json.Unmarshal(raw, &we); err != nil {
		return event.ToolOutput{}, fmt.Errorf("rename: %v", err)
	}
	edits := we.Edits()
	uris := make([]string, 0, len(edits))
	for uri := range edits {
		uris = append(uris, uri)
	}
	sort.Strings(uris)
	var diffs []string
	n := 0
	for _, uri := range uris {
		p, err := lsp.Path(uri)
		if err != nil {
			return event.ToolOutput{}, err
		}
		old, err := os.ReadFile(p)
		if err != nil {
			return event.ToolOutput{}, fmt.Errorf("rename: %v", err)
		}
		f := edit.Parse(string(old))
		next, err := lsp.Apply(f.Text, edits[uri], u)
		if err != nil {
			return event.ToolOutput{}, fmt.Errorf("rename of %s: %v", env.rel(p), err)
		}
		diffs = append(diffs, edit.Diff(env.rel(p), f.Text, next))
		n += len(edits[uri])
	}
	files := "files"
	if len(uris) == 1 {
		files = "file"
	}
	head := fmt.Sprintf("Renaming would change %d places in %d %s (a preview: nothing was written; make the change with edit or apply_patch):\n\n", n, len(uris), files)
	return event.ToolOutput{Content: []event.Content{event.Text(head + strings.Join(diffs, ""))},
		Details: details(map[string]any{"diff": strings.Join(diffs, "")})}, nil
}

func (e *Env) lspWait() time.Duration {
	if e.LSPWait > 0 {
		return e.LSPWait
	}
	return LSPWait
}

// changedDiagnostics is what write, edit and apply_patch add to their
// result: the errors the language servers find in the files they changed
// that were not there before, waited for at most LSPWait in all. Files
// of no known language, or whose server is not on PATH, are skipped.
func changedDiagnostics(ctx context.Context, env *Env, paths []string) string {
	ctx, cancel := context.WithTimeout(ctx, env.lspWait())
	defer cancel()
	var b strings.Builder
	for _, p := range paths {
		if _, err := env.LSP.Supported(p); err != nil {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			continue
		}
		old, known := env.LSP.Known(p) // of the text before the change
		d, err := env.LSP.Open(ctx, p)
		if err != nil {
			continue
		}
		ds, ok := d.Diagnostics(ctx)
		if !ok {
			b.WriteString(lsp.Late(env.rel(p), d.Server, env.lspWait()) + "\n")
			continue
		}
		errs := lsp.Errors(ds)
		word := "error"
		if known {
			errs = lsp.New(lsp.Errors(old), errs)
			word = "new error"
		}
		if len(errs) == 0 {
			continue
		}
		if len(errs) > 1 {
			word += "s"
		}
		fmt.Fprintf(&b, "%d %s in %s:\n%s", len(errs), word, env.rel(p), lsp.ShowDiagnostics(env.rel(p), d.Lines, errs, d.Units))
	}
	return b.String()
}
