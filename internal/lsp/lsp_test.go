package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/internal/testbin"
	"github.com/agentutils/agentutils/lib/lsp"
)

// manager is a Manager with the gopls of `make gopls` on its PATH, for a
// module in a temp dir; the test is skipped when it is not installed.
func manager(t *testing.T, files map[string]string) (*Manager, string) {
	t.Helper()
	dir, ok := testbin.GoplsDir()
	if !ok {
		t.Skip("gopls is not installed: run `make gopls` (it goes install-s it into .tools/bin)")
	}
	w := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(w, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOROOT"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	m := &Manager{Stop: w, Env: env}
	t.Cleanup(m.Close)
	return m, w
}

// TestGopls drives a real gopls: the diagnostics of a file with a type
// error, then of its fixed text (the same server, the document changed),
// and a hover.
func TestGopls(t *testing.T) {
	m, w := manager(t, map[string]string{
		"go.mod":  "module example.com/w\n\ngo 1.22\n",
		"main.go": "package main\n\n// Greet says hello.\nfunc Greet(name string) string { return \"hello \" + name }\n\nfunc main() { println(Greet(1)) }\n",
	})
	ctx := context.Background()
	path := filepath.Join(w, "main.go")
	d, err := m.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ds, ok := d.Diagnostics(ctx)
	got := lsp.ShowDiagnostics("main.go", d.Lines, lsp.Errors(ds), d.Units)
	if !ok || !strings.HasPrefix(got, "main.go:6:29: error: cannot use 1 (untyped int constant) as string value") {
		t.Fatalf("diagnostics (ok %v):\n%s", ok, got)
	}
	if known, ok := m.Known(path); !ok || len(known) != len(ds) {
		t.Errorf("Known = %v, %v", known, ok)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(d.Text, "Greet(1)", "Greet(\"x\")", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	d2, err := m.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if ds, ok := d2.Diagnostics(ctx); !ok || len(lsp.Errors(ds)) != 0 {
		t.Errorf("after the fix (ok %v): %v", ok, ds)
	}
	raw, err := d2.Call(ctx, "textDocument/hover", map[string]any{"textDocument": map[string]string{"uri": d2.URI}, "position": lsp.Position{Line: 3, Character: 6}})
	if err != nil {
		t.Fatal(err)
	}
	if h := lsp.HoverText(raw); !strings.Contains(h, "func Greet(name string) string") || !strings.Contains(h, "Greet says hello.") {
		t.Errorf("hover: %q", h)
	}
}

func TestUnsupported(t *testing.T) {
	m := &Manager{Stop: t.TempDir(), Env: []string{"PATH=" + t.TempDir()}}
	for _, c := range []struct{ path, want string }{
		{"notes.md", "no language server handles .md files"},
		{"x.go", ".go files need gopls on PATH, and it is not there"},
		{"x.py", ".py files need pyright-langserver on PATH"},
	} {
		if _, err := m.Open(context.Background(), c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%s) = %v, want %q", c.path, err, c.want)
		}
	}
}
