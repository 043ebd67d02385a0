package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The memory tool appends to the context file in use: the project's
// CLAUDE.md when there is one (else a new AGENTS.md), or the user's.
func TestMemory(t *testing.T) {
	home := t.TempDir()
	getenv := func(k string) string {
		return map[string]string{"HOME": home, "AGENTUTILS_HOME": filepath.Join(home, ".agentutils")}[k]
	}
	run := func(env *Env, args string) (string, bool) {
		r := Run(context.Background(), []Tool{memoryTool()}, env, "memory", json.RawMessage(args), nil)
		return r.Content[0].Text, r.IsError
	}
	claude := t.TempDir()
	os.WriteFile(filepath.Join(claude, "CLAUDE.md"), []byte("# Notes\n- old"), 0o644)
	env := &Env{Cwd: claude, Now: time.Now, Getenv: getenv}
	if got, isErr := run(env, `{"text":"run  make test\nbefore pushing"}`); isErr || got != "Remembered in CLAUDE.md: - run make test before pushing" {
		t.Errorf("project: %q %v", got, isErr)
	}
	b, _ := os.ReadFile(filepath.Join(claude, "CLAUDE.md"))
	if d := cmp.Diff("# Notes\n- old\n- run make test before pushing\n", string(b)); d != "" {
		t.Error(d)
	}
	fresh := t.TempDir()
	if _, isErr := run(&Env{Cwd: fresh, Now: time.Now, Getenv: getenv}, `{"text":"tabs"}`); isErr {
		t.Error("no AGENTS.md made")
	}
	if b, _ := os.ReadFile(filepath.Join(fresh, "AGENTS.md")); string(b) != "- tabs\n" {
		t.Errorf("AGENTS.md: %q", b)
	}
	got, isErr := run(env, `{"text":"answer in French","scope":"user"}`)
	if isErr {
		t.Fatal(got)
	}
	matches, _ := filepath.Glob(filepath.Join(home, "*", "AGENTS.md"))
	if len(matches) != 1 {
		t.Fatalf("user's file: %v (%s)", matches, got)
	}
	if b, _ := os.ReadFile(matches[0]); string(b) != "- answer in French\n" {
		t.Errorf("user's file: %q", b)
	}
	for _, c := range []struct{ args, want string }{
		{`{"text":"  "}`, "text must not be empty"},
		{`{"text":"x","scope":"team"}`, `scope "team": project or user`},
	} {
		if got, isErr := run(env, c.args); !isErr || got != c.want {
			t.Errorf("%s: %q %v, want %q", c.args, got, isErr, c.want)
		}
	}
	// --root confines the project's file.
	confined := &Env{Cwd: claude, Root: t.TempDir(), Now: time.Now, Getenv: getenv}
	if got, isErr := run(confined, `{"text":"x"}`); !isErr {
		t.Errorf("outside the root: %q", got)
	}
}
