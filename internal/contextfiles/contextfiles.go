// Package contextfiles finds the files agent-chat's system prompt is made
// of: AGENTS.md and CLAUDE.md context files, SYSTEM.md and APPEND_SYSTEM.md,
// skills, rules and prompt templates, and the git snapshot. It reads real
// directories and hands values to lib/prompt, which assembles the text.
//
// Where it looks (project directories are the git root down to the cwd, or
// only the cwd outside a repository; user directories are the agentutils
// config dir, then ~/.claude, ~/.codex):
//
//   - context files: every AGENTS.md and CLAUDE.md in the user directories,
//     then in each project directory (and its .agentutils/ and .claude/),
//     farthest first, deduplicated by real path, empty files skipped;
//   - SYSTEM.md / APPEND_SYSTEM.md: the first found in the project's
//     .agentutils/, .claude/, .codex/, .gemini/ (nearest directory first),
//     then in the user directories;
//   - skills: <root>/skills/<name>/SKILL.md, project roots (.agentutils,
//     .claude; nearest first) before user roots; first name wins;
//   - rules: .agentutils/rules, .cursor/rules, .windsurf/rules (*.md,
//     *.mdc), the nearest .clinerules (a file or a directory), then the
//     user's rules/ and ~/.cursor/rules; first name wins;
//   - prompt templates: commands/*.md and prompts/**/*.md under the project
//     .agentutils/ and .claude/, then under the user directories; first
//     name wins;
//   - nested AGENTS.md / CLAUDE.md 1–4 levels below the cwd (at most 200,
//     skipping node_modules and dot-directories): listed, not loaded.
package contextfiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/prompt"
)

// Options says where to look and what to skip.
type Options struct {
	Cwd       string // absolute
	Home      string // the user's home; "" skips ~/.claude and ~/.codex
	ConfigDir string // $XDG_CONFIG_HOME/agentutils (lib/dirs)

	NoContextFiles bool // no AGENTS.md / CLAUDE.md and no nested listing
	NoSkills       bool
	NoRules        bool
	NoTemplates    bool
	// Skills, when set, keeps only the skills whose name matches one of
	// these globs (path.Match syntax).
	Skills []string
}

// DefaultOptions looks in the agentutils config dir that lib/dirs resolves
// from getenv (AGENTUTILS_HOME, XDG_CONFIG_HOME, HOME) and in $HOME.
func DefaultOptions(cwd string, getenv func(string) string) Options {
	return Options{Cwd: cwd, Home: getenv("HOME"), ConfigDir: dirs.Resolve(getenv).Config}
}

// Found is what discovery found. Paths are absolute.
type Found struct {
	GitRoot      string // "" outside a repository
	ContextFiles []prompt.File
	NestedAgents []string // relative to the cwd, slash-separated, sorted

	System, SystemPath string // SYSTEM.md: replaces the default prompt
	Append, AppendPath string // APPEND_SYSTEM.md: appended

	Skills    []prompt.Skill
	Rules     []prompt.Rule
	Templates []prompt.Template

	// Warnings are problems worth a line on stderr (a skill without a
	// description, a frontmatter error); discovery carries on past them.
	Warnings []string
}

const (
	maxNestedDepth = 4
	maxNested      = 200
	maxNestedDirs  = 5000    // directories looked into, so a huge tree cannot stall startup
	maxFileSize    = 1 << 20 // larger context files are skipped with a warning
)

// Discover walks the directories of opt. Only a cwd that cannot be read is
// an error; unreadable or malformed files become warnings.
func Discover(opt Options) (Found, error) {
	var f Found
	if !filepath.IsAbs(opt.Cwd) {
		return f, fmt.Errorf("contextfiles: cwd %q is not absolute", opt.Cwd)
	}
	if _, err := os.Stat(opt.Cwd); err != nil {
		return f, err
	}
	f.GitRoot = GitRoot(opt.Cwd)
	project := projectDirs(opt.Cwd, f.GitRoot) // farthest first
	nearest := reverse(project)
	user := userDirs(opt)

	d := &discovery{opt: opt, found: &f, seen: map[string]bool{}}

	if !opt.NoContextFiles {
		for _, u := range user {
			for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
				d.context(filepath.Join(u, name))
			}
		}
		for _, p := range project {
			for _, rel := range []string{"AGENTS.md", "CLAUDE.md", ".agentutils/AGENTS.md", ".claude/CLAUDE.md"} {
				d.context(filepath.Join(p, filepath.FromSlash(rel)))
			}
		}
		f.NestedAgents = nested(opt.Cwd)
	}

	var sysRoots []string
	for _, p := range nearest {
		for _, sub := range []string{".agentutils", ".claude", ".codex", ".gemini"} {
			sysRoots = append(sysRoots, filepath.Join(p, sub))
		}
	}
	sysRoots = append(sysRoots, user...)
	f.System, f.SystemPath = d.first(sysRoots, "SYSTEM.md")
	f.Append, f.AppendPath = d.first(sysRoots, "APPEND_SYSTEM.md")

	var roots []string // .agentutils-style roots: project (nearest first), then user
	for _, p := range nearest {
		roots = append(roots, filepath.Join(p, ".agentutils"), filepath.Join(p, ".claude"))
	}
	roots = append(roots, user...)

	if !opt.NoSkills {
		d.skills(roots)
	}
	if !opt.NoRules {
		d.rules(nearest, user)
	}
	if !opt.NoTemplates {
		d.templates(roots)
	}
	return f, nil
}

// GitRoot is the nearest directory at or above dir holding a .git entry
// (a directory, or a file in worktrees and submodules), or "".
func GitRoot(dir string) string {
	root, _ := dirs.Up(dir, func(d string) bool {
		_, err := os.Lstat(filepath.Join(d, ".git"))
		return err == nil
	})
	return root
}

// projectDirs lists the git root down to cwd (only cwd outside git).
func projectDirs(cwd, root string) []string {
	if root == "" {
		return []string{cwd}
	}
	var out []string
	for d := cwd; ; d = filepath.Dir(d) {
		out = append(out, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	return reverse(out)
}

func userDirs(opt Options) []string {
	var out []string
	if opt.ConfigDir != "" {
		out = append(out, opt.ConfigDir)
	}
	if opt.Home != "" {
		out = append(out, filepath.Join(opt.Home, ".claude"), filepath.Join(opt.Home, ".codex"))
	}
	return out
}

func reverse(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

type discovery struct {
	opt   Options
	found *Found
	seen  map[string]bool // real paths of loaded context files
}

// fmErr reports a frontmatter error as file:line: message, and returns it.
func (d *discovery) fmErr(p string, err error) error {
	var le *prompt.LineError
	if errors.As(err, &le) {
		err = fmt.Errorf("%s:%d: %s", p, le.Line, le.Msg)
	} else {
		err = fmt.Errorf("%s: %v", p, err)
	}
	d.warnf("%v", err)
	return err
}

func (d *discovery) warnf(format string, args ...any) {
	d.found.Warnings = append(d.found.Warnings, fmt.Sprintf(format, args...))
}

// read returns a regular file's contents; a missing file is ("", false)
// silently, other failures are warnings.
func (d *discovery) read(p string) (string, bool) {
	st, err := os.Stat(p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			d.warnf("%s: %v", p, err)
		}
		return "", false
	}
	if !st.Mode().IsRegular() {
		return "", false
	}
	if st.Size() > maxFileSize {
		d.warnf("%s: skipped: larger than %d bytes", p, maxFileSize)
		return "", false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		d.warnf("%s: %v", p, err)
		return "", false
	}
	return string(b), true
}

func (d *discovery) context(p string) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil || d.seen[real] {
		return
	}
	s, ok := d.read(p)
	if !ok {
		return
	}
	d.seen[real] = true
	if strings.TrimSpace(s) == "" {
		return
	}
	d.found.ContextFiles = append(d.found.ContextFiles, prompt.File{Path: p, Content: s})
}

func (d *discovery) first(roots []string, name string) (string, string) {
	for _, r := range roots {
		p := filepath.Join(r, name)
		if s, ok := d.read(p); ok {
			return s, p
		}
	}
	return "", ""
}

func (d *discovery) skills(roots []string) {
	seen := map[string]bool{}
	realSeen := map[string]bool{}
	for _, r := range roots {
		dir := filepath.Join(r, "skills")
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents { // ReadDir sorts by name
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(dir, e.Name(), "SKILL.md")
			real, err := filepath.EvalSymlinks(p)
			if err != nil || realSeen[real] {
				continue
			}
			doc, ok := d.read(p)
			if !ok {
				continue
			}
			realSeen[real] = true
			fm, _, err := prompt.ParseFrontmatter(doc)
			if err != nil {
				d.fmErr(p, err)
				continue
			}
			name := fm.Name
			if name == "" {
				name = e.Name()
			}
			if strings.TrimSpace(fm.Description) == "" {
				d.warnf("%s: skill %q has no description; skipped", p, name)
				continue
			}
			if seen[name] {
				d.warnf("%s: skill %q is already defined; skipped", p, name)
				continue
			}
			if !matchAny(d.opt.Skills, name) {
				continue
			}
			seen[name] = true
			d.found.Skills = append(d.found.Skills, prompt.Skill{Name: name, Description: fm.Description, Path: p})
		}
	}
}

func matchAny(globs []string, name string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// rules collects rule files. Plain .clinerules files and windsurf rules
// without frontmatter always apply in their own tools, so they are
// AlwaysApply here too.
func (d *discovery) rules(nearest, user []string) {
	seen := map[string]bool{}
	add := func(p, name string, always bool) {
		if seen[name] {
			return
		}
		doc, ok := d.read(p)
		if !ok {
			return
		}
		fm, body, err := prompt.ParseFrontmatter(doc)
		if err != nil {
			d.fmErr(p, err)
			return
		}
		block, _ := prompt.SplitFrontmatter(doc)
		seen[name] = true
		d.found.Rules = append(d.found.Rules, prompt.Rule{
			Name: name, Description: fm.Description, Globs: fm.Globs,
			AlwaysApply: fm.AlwaysApply || (always && block == ""),
			Condition:   fm.Condition, Body: body, Path: p,
		})
	}
	dirOf := func(dir string, always bool, exts ...string) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			ext := filepath.Ext(e.Name())
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") || !contains(exts, ext) {
				continue
			}
			add(filepath.Join(dir, e.Name()), strings.TrimSuffix(e.Name(), ext), always)
		}
	}
	cline := false
	for _, p := range nearest {
		dirOf(filepath.Join(p, ".agentutils", "rules"), false, ".md", ".mdc")
		dirOf(filepath.Join(p, ".cursor", "rules"), false, ".md", ".mdc")
		dirOf(filepath.Join(p, ".windsurf", "rules"), true, ".md")
		if cl := filepath.Join(p, ".clinerules"); !cline {
			if st, err := os.Stat(cl); err == nil {
				cline = true
				if st.IsDir() {
					dirOf(cl, true, ".md")
				} else {
					add(cl, "clinerules", true)
				}
			}
		}
	}
	for _, u := range user {
		dirOf(filepath.Join(u, "rules"), false, ".md", ".mdc")
	}
	if d.opt.Home != "" {
		dirOf(filepath.Join(d.opt.Home, ".cursor", "rules"), false, ".md", ".mdc")
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func (d *discovery) templates(roots []string) {
	seen := map[string]bool{}
	add := func(p, name string) {
		doc, ok := d.read(p)
		if !ok {
			return
		}
		t, err := prompt.NewTemplate(name, p, doc)
		if err != nil {
			t = prompt.Template{Name: name, Path: p, Err: d.fmErr(p, err)}
		}
		if seen[t.Name] {
			return
		}
		seen[t.Name] = true
		d.found.Templates = append(d.found.Templates, t)
	}
	for _, r := range roots {
		cmds := filepath.Join(r, "commands")
		if ents, err := os.ReadDir(cmds); err == nil {
			for _, e := range ents {
				if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
					add(filepath.Join(cmds, e.Name()), strings.TrimSuffix(e.Name(), ".md"))
				}
			}
		}
		prompts := filepath.Join(r, "prompts")
		var files []string
		_ = filepath.WalkDir(prompts, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if e.IsDir() && p != prompts && strings.HasPrefix(e.Name(), ".") {
				return filepath.SkipDir
			}
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
				files = append(files, p)
			}
			return nil
		})
		for _, p := range files {
			add(p, strings.TrimSuffix(filepath.Base(p), ".md"))
		}
	}
}

// nested lists AGENTS.md and CLAUDE.md files 1–4 directories below cwd.
func nested(cwd string) []string {
	var out []string
	dirs := 0
	_ = filepath.WalkDir(cwd, func(p string, e fs.DirEntry, err error) error {
		if err != nil || len(out) >= maxNested || dirs >= maxNestedDirs {
			if e != nil && e.IsDir() && p != cwd {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(cwd, p)
		depth := strings.Count(filepath.ToSlash(rel), "/") + 1
		if e.IsDir() {
			if p == cwd {
				return nil
			}
			if strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules" || depth > maxNestedDepth {
				return filepath.SkipDir
			}
			dirs++
			return nil
		}
		if depth >= 2 && (e.Name() == "AGENTS.md" || e.Name() == "CLAUDE.md") {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// PromptInput combines what was found with the tools and environment into
// lib/prompt's Input. A non-empty system or appendText (from
// --system-prompt / --append-system-prompt, see ResolvePromptInput) wins
// over SYSTEM.md / APPEND_SYSTEM.md.
func (f Found) PromptInput(tools []prompt.Tool, env prompt.Env, system, appendText string) prompt.Input {
	in := prompt.Input{
		Tools: tools, Env: env,
		ContextFiles: f.ContextFiles, NestedAgents: f.NestedAgents,
		Custom: f.System, Append: f.Append,
		Skills: f.Skills, Rules: f.Rules,
	}
	if system != "" {
		in.Custom = system
	}
	if appendText != "" {
		in.Append = appendText
	}
	return in
}

// MemoryFile is the context file that /memory edits and "# text" appends
// to: the project's (at the git root, or cwd outside git) or, with user,
// the user's: the first of the names read there that exists, else
// AGENTS.md there (to be made).
func MemoryFile(opt Options, user bool) string {
	var cands []string
	if user {
		for _, u := range userDirs(opt) {
			cands = append(cands, filepath.Join(u, "AGENTS.md"), filepath.Join(u, "CLAUDE.md"))
		}
	} else {
		root := GitRoot(opt.Cwd)
		if root == "" {
			root = opt.Cwd
		}
		for _, rel := range []string{"AGENTS.md", "CLAUDE.md", ".agentutils/AGENTS.md", ".claude/CLAUDE.md"} {
			cands = append(cands, filepath.Join(root, filepath.FromSlash(rel)))
		}
	}
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return c
		}
	}
	if len(cands) == 0 {
		return ""
	}
	return cands[0]
}

// Remember appends text to the context file file as a list item ("- "
// and the text on one line), making the file and its directory when
// missing, after a newline if the file does not end with one: what "#
// text" in agent and the memory tool write.
func Remember(file, text string) error {
	line := "- " + strings.Join(strings.Fields(text), " ")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	old, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if len(old) > 0 && !strings.HasSuffix(string(old), "\n") {
		line = "\n" + line
	}
	_, err = f.WriteString(line + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
