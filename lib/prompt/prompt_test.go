package prompt

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, d)
	}
}

var fullInput = Input{
	Tools: []Tool{
		{Name: "read", Description: "Read a file.\n\nLong details the model gets with the schema."},
		{Name: "bash", Description: "Run a shell\ncommand."},
		{Name: "nodesc"},
	},
	Env: Env{
		Cwd: "/repo/sub", Date: "2026-11-23", OS: "linux 6.8 (amd64)", Shell: "/bin/bash",
		Git: &Git{Branch: "feature", MainBranch: "main", Status: " M a.go\n", Log: "abc1234 first\n"},
	},
	ContextFiles: []File{
		{Path: "/home/u/.config/agentutils/AGENTS.md", Content: "Be terse.\n"},
		{Path: "/repo/AGENTS.md", Content: "Run make test.\n\n\n\nTwice."},
	},
	NestedAgents: []string{"sub/inner/AGENTS.md"},
	Append:       "Appended text.",
	Skills:       []Skill{{Name: "release", Description: "Cut a release.", Path: "/repo/.agentutils/skills/release/SKILL.md"}},
	Rules: []Rule{
		{Name: "go-style", Description: "Go conventions.", Globs: []string{"*.go", "**/*.go"}, Path: "/repo/.agentutils/rules/go-style.md"},
		{Name: "always", AlwaysApply: true, Body: "Never use panic.\n", Path: "/repo/.cursor/rules/always.mdc"},
		{Name: "ttsr", Description: "x", Condition: "TODO", Path: "/r"},
		{Name: "nodesc", Path: "/r2"},
	},
}

func TestBuildGolden(t *testing.T) {
	custom := fullInput
	custom.Custom = "You are a pirate.\n"
	minimal := Input{Env: Env{Cwd: "/tmp/x"}}
	for name, in := range map[string]Input{
		"full.golden":    fullInput,
		"custom.golden":  custom,
		"minimal.golden": minimal,
	} {
		t.Run(name, func(t *testing.T) { golden(t, name, Build(in)) })
	}
}
