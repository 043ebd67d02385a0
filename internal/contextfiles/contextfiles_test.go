package contextfiles

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agentutils/agentutils/lib/prompt"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixture extracts testdata/tree.txtar into a temp dir, makes repo/ a git
// repository with one commit (fixed author and dates, so a fixed hash) and a
// modified file, and returns the root.
func fixture(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	// Resolve symlinks (macOS /var) so paths in the output are stable.
	root, _ = filepath.EvalSymlinks(root)
	ar, err := txtar.ParseFile("testdata/tree.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repo := filepath.Join(root, "repo")
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(),
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
			"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "README.md")
	git("commit", "-q", "-m", "initial commit")
	git("checkout", "-q", "-b", "feature")
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

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

var tools = []prompt.Tool{
	{Name: "read", Description: "Read a file's contents."},
	{Name: "edit", Description: "Replace text in a file."},
}

func build(t *testing.T, root string, opt Options, system, appendText string) string {
	t.Helper()
	f, err := Discover(opt)
	if err != nil {
		t.Fatal(err)
	}
	env := prompt.Env{Cwd: opt.Cwd, Date: "2026-11-23", OS: "testos", Shell: "/bin/sh", Git: Git(context.Background(), opt.Cwd)}
	out := prompt.Build(f.PromptInput(tools, env, system, appendText))
	for _, w := range f.Warnings {
		out += "WARNING " + w + "\n"
	}
	return strings.ReplaceAll(out, root, "$ROOT")
}

func opts(root string) Options {
	return Options{
		Cwd:       filepath.Join(root, "repo", "app", "sub"),
		Home:      filepath.Join(root, "home"),
		ConfigDir: filepath.Join(root, "config"),
	}
}

func TestPromptGolden(t *testing.T) {
	root := fixture(t)
	// SYSTEM.md in the config dir makes the custom frame; the default frame
	// is shown by removing it.
	t.Run("custom", func(t *testing.T) {
		golden(t, "custom.golden", build(t, root, opts(root), "", ""))
	})
	t.Run("flags", func(t *testing.T) {
		golden(t, "flags.golden", build(t, root, opts(root), "From --system-prompt.", "From --append-system-prompt."))
	})
	if err := os.Remove(filepath.Join(root, "config", "SYSTEM.md")); err != nil {
		t.Fatal(err)
	}
	t.Run("default", func(t *testing.T) {
		golden(t, "default.golden", build(t, root, opts(root), "", ""))
	})
	t.Run("no-context-no-skills-no-rules", func(t *testing.T) {
		o := opts(root)
		o.NoContextFiles, o.NoSkills, o.NoRules = true, true, true
		golden(t, "bare.golden", build(t, root, o, "", ""))
	})
}

func TestDiscover(t *testing.T) {
	root := fixture(t)
	f, err := Discover(opts(root))
	if err != nil {
		t.Fatal(err)
	}
	rel := func(p string) string { r, _ := filepath.Rel(root, p); return filepath.ToSlash(r) }
	var ctx, skills, rules, tpls []string
	for _, c := range f.ContextFiles {
		ctx = append(ctx, rel(c.Path))
	}
	for _, s := range f.Skills {
		skills = append(skills, s.Name+"="+rel(s.Path))
	}
	for _, r := range f.Rules {
		rules = append(rules, r.Name+"="+rel(r.Path))
	}
	for _, tp := range f.Templates {
		tpls = append(tpls, tp.Name+"="+rel(tp.Path))
	}
	want := map[string][]string{
		"context": {"config/AGENTS.md", "home/.claude/CLAUDE.md", "repo/AGENTS.md", "repo/CLAUDE.md", "repo/app/AGENTS.md"},
		"nested":  {"inner/AGENTS.md"},
		"skills":  {"notes=repo/.agentutils/skills/notes/SKILL.md", "release=repo/.agentutils/skills/release/SKILL.md"},
		"rules": {"go=repo/.agentutils/rules/go.md", "always=repo/.cursor/rules/always.mdc", "ttsr=repo/.cursor/rules/ttsr.mdc",
			"clinerules=repo/.clinerules", "user-rule=config/rules/user-rule.md"},
		"templates": {"fix=repo/.agentutils/commands/fix.md", "review=repo/.claude/commands/review.md"},
		"system":    {"config/SYSTEM.md", "repo/.agentutils/APPEND_SYSTEM.md"},
		"gitroot":   {"repo"},
	}
	got := map[string][]string{
		"context": ctx, "nested": f.NestedAgents, "skills": skills, "rules": rules, "templates": tpls,
		"system": {rel(f.SystemPath), rel(f.AppendPath)}, "gitroot": {rel(f.GitRoot)},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Discover (-want +got):\n%s", d)
	}
	if len(f.Warnings) != 3 {
		t.Errorf("warnings = %q, want 3 (nodesc, bad frontmatter, shadowed notes)", f.Warnings)
	}
}

func TestDiscoverOutsideGit(t *testing.T) {
	dir := t.TempDir()
	for d := filepath.Dir(dir); d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			t.Skipf("%s/.git makes every temporary directory part of a repository here (left by some other program: remove it)", d)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("only here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("CLAUDE.md", filepath.Join(dir, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	f, err := Discover(Options{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	if f.GitRoot != "" || len(f.ContextFiles) != 1 || f.ContextFiles[0].Path != filepath.Join(dir, "AGENTS.md") {
		t.Errorf("got root %q files %+v; want one file (the symlink deduplicated)", f.GitRoot, f.ContextFiles)
	}
	if _, err := Discover(Options{Cwd: "relative"}); err == nil {
		t.Error("relative cwd: no error")
	}
}

func TestResolvePromptInput(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.md"), []byte("from file"), 0o644); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"p.md":                     "from file",
		filepath.Join(dir, "p.md"): "from file",
		"missing.md":               "missing.md",
		"two\nlines":               "two\nlines",
		"":                         "",
		"Be brief.":                "Be brief.",
	} {
		if got := ResolvePromptInput(in, dir); got != want {
			t.Errorf("ResolvePromptInput(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSystemPrompt(t *testing.T) {
	root := fixture(t)
	now := time.Date(2026, 11, 23, 1, 2, 3, 0, time.UTC)
	getenv := func(k string) string { return map[string]string{"SHELL": "/bin/zsh"}[k] }
	o := opts(root)
	out, f, err := SystemPrompt(o, tools, now, getenv, Git(context.Background(), o.Cwd), "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"You are the user's custom agent.", "Current date: 2026-11-23", " M README.md", "<skill name=\"release\""} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if len(f.Templates) != 2 {
		t.Errorf("templates: %d", len(f.Templates))
	}
	if _, _, err := SystemPrompt(Options{Cwd: filepath.Join(root, "missing")}, nil, now, getenv, nil, "", ""); err == nil {
		t.Error("missing cwd: no error")
	}
}

func TestDefaultOptions(t *testing.T) {
	env := map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x"}
	got := DefaultOptions("/w", func(k string) string { return env[k] })
	want := Options{Cwd: "/w", Home: "/h", ConfigDir: "/x/agentutils"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	env["AGENTUTILS_HOME"] = "/a"
	if got := DefaultOptions("/w", func(k string) string { return env[k] }); got.ConfigDir != "/a" {
		t.Errorf("AGENTUTILS_HOME: %+v", got)
	}
}
