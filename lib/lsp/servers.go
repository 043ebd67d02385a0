package lsp

import (
	"path/filepath"
	"strings"
)

// Server is a language server the lsp tool knows how to start.
type Server struct {
	Name    string            // the language, as the tool names it: go, typescript, python, rust
	Command []string          // the program, found on PATH, and its arguments
	Langs   map[string]string // file extension → languageId
	Roots   []string          // files that mark a workspace's root, nearest first
}

// Servers are the language servers looked for on PATH.
var Servers = []Server{
	{Name: "go", Command: []string{"gopls"}, Langs: map[string]string{".go": "go"}, Roots: []string{"go.work", "go.mod"}},
	{Name: "typescript", Command: []string{"typescript-language-server", "--stdio"},
		Langs: map[string]string{".ts": "typescript", ".tsx": "typescriptreact", ".mts": "typescript", ".cts": "typescript",
			".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript"},
		Roots: []string{"tsconfig.json", "jsconfig.json", "package.json"}},
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
