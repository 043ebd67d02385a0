package ignore

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Filter decides which walked entries are searched, in rg's order:
// -g/--iglob overrides first (a match either way is final), then ignore
// files, then -t/-T, then hidden names. The walker (internal/grepfs)
// lists the directories; the Filter reads ignore files through its
// IgnoreFS.
type Filter struct {
	o       WalkOptions
	rules   *ignoreRules
	filters []string // FilterGlobs, compiled (compileFilterGlobs)
}

// Overrides are -g and --iglob globs compiled by CompileGlobs, once per
// run, for any number of walks.
type Overrides struct {
	globs  []overrideGlob
	nWhite int // globs that include (not '!')
}

// overrideGlob is one -g/--iglob glob, compiled as rg does: gitignore
// syntax, '*' stops at '/', "**" spans directories, {a,b} alternates.
type overrideGlob struct {
	glob    string // the doublestar pattern
	exclude bool   // '!'
	dirOnly bool
	fold    bool
}

// NewFilter reads the walk's global and --ignore-file ignore files
// through fsys.
func NewFilter(o WalkOptions, fsys IgnoreFS) *Filter {
	f := &Filter{o: o, rules: &ignoreRules{o: o, fs: fsys}, filters: compileFilterGlobs(o.FilterGlobs)}
	if o.GlobalIgnore != "" && !o.NoIgnore && !o.NoIgnoreVCS && !o.NoIgnoreGlobal {
		f.rules.global = readIgnoreList(fsys, "", o.GlobalIgnore, o.IgnoreCaseInsensitive)
	}
	if !o.NoIgnoreFiles {
		for _, path := range o.IgnoreFiles {
			if l := readIgnoreList(fsys, o.Cwd, path, o.IgnoreCaseInsensitive); l != nil {
				f.rules.explicit = append(f.rules.explicit, l)
			}
		}
	}
	return f
}

// CompileGlobs checks and compiles -g and --iglob globs (the --iglob ones
// rank after, so they win, as in rg).
func CompileGlobs(globs, iglobs []string) (Overrides, error) {
	var out Overrides
	for i, list := range [][]string{globs, iglobs} {
		for _, line := range list {
			g, ok, err := compileOverride(line, i == 1)
			if err != nil {
				return Overrides{}, err
			}
			if ok {
				out.globs = append(out.globs, g)
				if !g.exclude {
					out.nWhite++
				}
			}
		}
	}
	return out, nil
}

func compileOverride(line string, fold bool) (overrideGlob, bool, error) {
	g := overrideGlob{fold: fold}
	if strings.HasPrefix(line, "#") {
		return g, false, nil
	}
	if !strings.HasSuffix(line, "\\ ") {
		line = strings.TrimRight(line, " \t\r\n")
	}
	if line == "" {
		return g, false, nil
	}
	anchored := false
	if strings.HasPrefix(line, "\\!") || strings.HasPrefix(line, "\\#") {
		line = line[1:]
		anchored = strings.HasPrefix(line, "/")
	} else {
		if strings.HasPrefix(line, "!") {
			g.exclude = true
			line = line[1:]
		}
		if strings.HasPrefix(line, "/") {
			line = line[1:]
			anchored = true
		}
	}
	if strings.HasSuffix(line, "/") {
		g.dirOnly = true
		line = strings.TrimSuffix(line, "/")
		line = strings.TrimSuffix(line, "\\")
	}
	orig := line
	if !anchored && !strings.Contains(line, "/") && !strings.HasPrefix(line, "**/") {
		line = "**/" + line
	}
	if strings.HasSuffix(line, "/**") {
		line += "/*"
	}
	if err := checkGlob(orig); err != nil {
		return g, false, fmt.Errorf("error parsing glob '%s': %s", orig, err)
	}
	if fold {
		line = strings.ToLower(line)
	}
	g.glob = line
	return g, true, nil
}

// checkGlob finds the errors rg's glob parser reports.
func checkGlob(s string) error {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			j := i + 1
			if j < len(s) && (s[j] == '!' || s[j] == '^') {
				j++
			}
			if j < len(s) && s[j] == ']' {
				j++
			}
			for j < len(s) && s[j] != ']' {
				j++
			}
			if j >= len(s) {
				return fmt.Errorf("unclosed character class; missing ']'")
			}
			i = j
		case '{':
			if depth > 0 {
				return fmt.Errorf("nested alternate groups are not allowed")
			}
			depth++
		case '}':
			if depth == 0 {
				return fmt.Errorf("unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)")
			}
			depth--
		}
	}
	if depth > 0 {
		return fmt.Errorf("unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)")
	}
	if !doublestar.ValidatePattern(s) {
		return fmt.Errorf("invalid glob")
	}
	return nil
}

// overrideDecision: 1 included, -1 excluded, 0 no opinion.
func (f *Filter) overrideDecision(rel string, isDir bool) int {
	ovs := f.o.Overrides.globs
	if len(ovs) == 0 {
		return 0
	}
	lower := ""
	for i := len(ovs) - 1; i >= 0; i-- {
		g := ovs[i]
		if g.dirOnly && !isDir {
			continue
		}
		subj := rel
		if g.fold {
			if lower == "" {
				lower = strings.ToLower(rel)
			}
			subj = lower
		}
		if ok, _ := doublestar.Match(g.glob, subj); ok {
			if g.exclude {
				return -1
			}
			return 1
		}
	}
	if f.o.Overrides.nWhite > 0 && !isDir {
		return -1
	}
	return 0
}

// overridePath is the path globs match: as printed, without "./", and
// relative to the working directory when it is below it.
func (f *Filter) overridePath(shown string) string {
	for strings.HasPrefix(shown, "./") {
		shown = shown[2:]
	}
	if f.o.Cwd != "" && strings.HasPrefix(shown, "/") {
		if rel, ok := relUnder(f.o.Cwd, shown); ok {
			return rel
		}
	}
	return shown
}

// Level reads the ignore files of dir, below the level parent; has says
// whether a name is in the directory (nil: ask the IgnoreFS), so missing
// files cost no open.
func (f *Filter) Level(parent *IgnoreLevel, dir string, has func(name string) bool) *IgnoreLevel {
	return f.rules.level(parent, dir, has)
}

// Parents is the level of the directories above root (absolute, clean),
// whose ignore files apply under root too.
func (f *Filter) Parents(root string) *IgnoreLevel { return f.rules.parents(root) }

// Narrowed reports whether the FilterGlobs leave out the file at abs
// below the walk's root.
func (f *Filter) Narrowed(root, abs string) bool {
	if len(f.filters) == 0 {
		return false
	}
	rel, _ := relUnder(root, abs)
	return !filterGlobs(f.filters, rel)
}

// Skip decides one entry of a walk: abs is its absolute path, shown the
// path as printed, lvl the ignore files of its directory.
func (f *Filter) Skip(lvl *IgnoreLevel, abs, shown, name string, isDir bool) bool {
	if f.o.SkipGitDir && name == ".git" {
		return true
	}
	if len(f.o.Overrides.globs) > 0 {
		switch f.overrideDecision(f.overridePath(shown), isDir) {
		case 1:
			return false
		case -1:
			return true
		}
	}
	white := false
	switch f.rules.ignored(lvl, abs, isDir) {
	case 1:
		return true
	case -1:
		white = true
	}
	if !isDir {
		switch typeDecision(name, f.o) {
		case -1:
			return true
		case 1:
			white = true
		}
	}
	return !white && !f.o.Hidden && strings.HasPrefix(name, ".")
}

// compileFilterGlobs readies the agent tools' globs (tools-grep.md §5.1)
// once per walk: '\\' becomes '/', and a glob without '/' that does not
// start with "**" gets "**/" in front.
func compileFilterGlobs(globs []string) []string {
	out := make([]string, len(globs))
	for i, g := range globs {
		g = strings.ReplaceAll(g, "\\", "/")
		if !strings.Contains(g, "/") && !strings.HasPrefix(g, "**") {
			g = "**/" + g
		}
		out[i] = g
	}
	return out
}

// filterGlobs reports whether rel (below the root) matches one of the
// compiled agent globs.
func filterGlobs(globs []string, rel string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
	}
	return false
}
