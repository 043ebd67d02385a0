package lsp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// Server is a language server the lsp tool knows how to start.
type Server struct {
	Name    string            // the language, as the tool names it: go, typescript, python, rust
	Command []string          // the program, found on PATH, and its arguments
	Langs   map[string]string // file extension → languageId
	Roots   []string          // files that mark a workspace's root, nearest first
	// Pull says the file's diagnostics are asked for (PullRequests) rather
	// than waited for: typescript-language-server publishes them in parts
	// (syntax, then semantics, …) with no version and no word of the
	// last, and publishes nothing when an edit leaves none as before.
	Pull bool
}

// Servers are the language servers looked for on PATH.
var Servers = []Server{
	{Name: "go", Command: []string{"gopls"}, Langs: map[string]string{".go": "go"}, Roots: []string{"go.work", "go.mod"}},
	{Name: "typescript", Command: []string{"typescript-language-server", "--stdio"},
		Langs: map[string]string{".ts": "typescript", ".tsx": "typescriptreact", ".mts": "typescript", ".cts": "typescript",
			".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript"},
		Roots: []string{"tsconfig.json", "jsconfig.json", "package.json"}, Pull: true},
	{Name: "python", Command: []string{"pyright-langserver", "--stdio"}, Langs: map[string]string{".py": "python", ".pyi": "python"},
		Roots: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}},
	{Name: "rust", Command: []string{"rust-analyzer"}, Langs: map[string]string{".rs": "rust"}, Roots: []string{"Cargo.toml"}},
}

// ServerFor is the server of a file's extension, and the file's
// languageId.
func ServerFor(path string) (Server, string, bool) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, s := range Servers {
		if id, ok := s.Langs[ext]; ok {
			return s, id, true
		}
	}
	return Server{}, "", false
}

// Root is the workspace root of file for server s: the nearest directory
// from the file's up to stop (included) that holds one of s.Roots (for
// Go, go.work wins over go.mod at any depth), else stop. exists says
// whether a path exists.
func (s Server) Root(file, stop string, exists func(string) bool) string {
	for _, marker := range s.markerGroups() {
		for d := filepath.Dir(file); ; d = filepath.Dir(d) {
			for _, m := range marker {
				if exists(filepath.Join(d, m)) {
					return d
				}
			}
			if d == stop || d == filepath.Dir(d) || !within(d, stop) {
				break
			}
		}
	}
	return stop
}

// markerGroups are the root markers in the order they are looked for:
// go.work first over the whole way up, then go.mod; for the others all
// at once.
func (s Server) markerGroups() [][]string {
	if s.Name == "go" {
		return [][]string{{"go.work"}, {"go.mod"}}
	}
	return [][]string{s.Roots}
}

func within(d, root string) bool {
	r, err := filepath.Rel(root, d)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../")
}

// Installed is where a server's program and its companions are on this
// machine, as the caller found them (symbolic links resolved): what
// InitOptions needs.
type Installed struct {
	Root   string            // the workspace root
	Server string            // the server's program
	Tsc    string            // TypeScript's tsc on PATH ("": none)
	Exists func(string) bool // whether a file exists
}

// InitOptions are the initializationOptions server s starts with (nil:
// none). typescript-language-server needs TypeScript's tsserver and looks
// only in the workspace's node_modules: a workspace without its own
// TypeScript gets the tsserver installed beside the server (npm puts
// them side by side, or one inside the other), else the one of the tsc on
// PATH.
func (s Server) InitOptions(in Installed) map[string]any {
	if s.Name != "typescript" {
		return nil
	}
	const tsserver = "typescript/lib/tsserver.js"
	cands := []string{filepath.Join(in.Root, "node_modules", tsserver)}
	// …/node_modules/typescript-language-server/lib/cli.mjs
	if i := strings.LastIndex(in.Server, "/node_modules/typescript-language-server/"); i >= 0 {
		nm := in.Server[:i] + "/node_modules"
		cands = append(cands, filepath.Join(nm, tsserver), filepath.Join(nm, "typescript-language-server", "node_modules", tsserver))
	}
	// …/typescript/bin/tsc
	if in.Tsc != "" && filepath.Base(filepath.Dir(in.Tsc)) == "bin" {
		cands = append(cands, filepath.Join(filepath.Dir(filepath.Dir(in.Tsc)), "lib", "tsserver.js"))
	}
	for i, c := range cands {
		if in.Exists(c) {
			if i == 0 {
				return nil // the server finds the workspace's own
			}
			return map[string]any{"tsserver": map[string]any{"path": c}}
		}
	}
	return nil
}

// PullRequests are the workspace/executeCommand params that ask
// typescript-language-server's tsserver for file's diagnostics: the
// syntactic and the semantic ones, each answered when known
// (TSDiagnostics reads the answers).
func PullRequests(file string) []map[string]any {
	var out []map[string]any
	for _, cmd := range []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync"} {
		out = append(out, map[string]any{"command": "typescript.tsserverRequest",
			"arguments": []any{cmd, map[string]any{"file": file}}})
	}
	return out
}

// TSDiagnostics reads the answer of a PullRequests request: tsserver's
// response, whose body holds diagnostics with 1-based lines and offsets
// (UTF-16 units), as LSP diagnostics.
func TSDiagnostics(raw json.RawMessage) ([]Diagnostic, error) {
	type pos struct{ Line, Offset int }
	var r struct {
		Success bool   `json:"success"`
		Message string `json:"message"`
		Body    []struct {
			Start, End pos
			Text       string          `json:"text"`
			Code       json.RawMessage `json:"code"`
			Category   string          `json:"category"`
		} `json:"body"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("tsserver's diagnostics: %v", err)
	}
	if !r.Success {
		return nil, fmt.Errorf("tsserver's diagnostics: %s", r.Message)
	}
	at := func(p pos) Position { return Position{Line: max(p.Line-1, 0), Character: max(p.Offset-1, 0)} }
	severity := map[string]int{"error": 1, "warning": 2, "message": 3, "suggestion": 4}
	out := make([]Diagnostic, 0, len(r.Body))
	for _, d := range r.Body {
		out = append(out, Diagnostic{Range: Range{Start: at(d.Start), End: at(d.End)}, Severity: cmp.Or(severity[d.Category], 1),
			Code: d.Code, Source: "typescript", Message: d.Text})
	}
	return out, nil
}
