package ignore

import (
	"bufio"
	"bytes"
	"path/filepath"
	"strings"
)

// Ignore files as git reads them (gitignore(5)), proven against
// `git check-ignore` by TestIgnoreMatchesGit: comments, escaped '#' and
// '!', trailing spaces, negation, directory-only patterns, anchoring by a
// leading or inner slash, and wildmatch globs with '**'. Our own port, not
// a gitignore library: it must agree with git itself case by case (the
// test runs git on each), and it carries ripgrep's layering (.ignore and
// .rgignore over .gitignore, info/exclude, core.excludesFile, a worktree's
// commondir), which those libraries do not model.

// IgnorePattern is one line of an ignore file.
type IgnorePattern struct {
	glob    string // without the '!', the trailing '/' and a leading '/'
	negate  bool   // '!': re-include
	dirOnly bool   // trailing '/': directories only
	noDir   bool   // no slash: matched against the base name at any depth
	prefix  int    // length of the leading part without glob characters
}

// ParseIgnore parses the lines of an ignore file. Lines that are blank,
// comments or hold only a '!' give no pattern.
func ParseIgnore(data []byte) []IgnorePattern {
	var out []IgnorePattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if p, ok := ParseIgnoreLine(sc.Text()); ok {
			out = append(out, p)
		}
	}
	return out
}

// ParseIgnoreLine parses one line (git's parse_path_pattern).
func ParseIgnoreLine(line string) (IgnorePattern, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return IgnorePattern{}, false
	}
	var p IgnorePattern
	if line[0] == '!' {
		p.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return IgnorePattern{}, false
	}
	p.noDir = !strings.Contains(line, "/")
	if !p.noDir && line[0] == '/' {
		line = line[1:]
	}
	p.glob = line
	p.prefix = simpleLength(line)
	return p, true
}

// trimTrailingSpaces drops trailing spaces that are not escaped by a
// backslash (git's trim_trailing_spaces).
func trimTrailingSpaces(s string) string {
	end := -1 // where the trailing run of spaces starts
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if end < 0 {
				end = i
			}
		case '\\':
			end = -1
			i++ // the escaped character is kept
		default:
			end = -1
		}
	}
	if end >= 0 {
		return s[:end]
	}
	return s
}

func simpleLength(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', '\\':
			return i
		}
	}
	return len(s)
}

// Match reports whether the pattern matches rel, a slash-separated path
// relative to the directory of the pattern's ignore file.
func (p IgnorePattern) Match(rel string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if p.noDir {
		base := rel
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			base = rel[i+1:]
		}
		if p.prefix == len(p.glob) {
			return base == p.glob
		}
		return wildmatch(p.glob, base, false) == wmMatch
	}
	if p.prefix > 0 {
		if p.prefix > len(rel) || rel[:p.prefix] != p.glob[:p.prefix] {
			return false
		}
		if p.prefix == len(p.glob) {
			return len(rel) == p.prefix
		}
		return wildmatch(p.glob[p.prefix:], rel[p.prefix:], true) == wmMatch
	}
	return wildmatch(p.glob, rel, true) == wmMatch
}

// ignoreList is one ignore file: its patterns and the directory they are
// relative to (absolute, cleaned).
type ignoreList struct {
	dir  string
	pats []IgnorePattern
	fold bool     // case-insensitive
	set  *ruleSet // the rules compiled, when there are many (globset.go)
}

// match is the decision of the file's last matching pattern: 1 ignored,
// -1 re-included, 0 none. abs is an absolute cleaned path.
func (l *ignoreList) match(abs string, isDir bool) int {
	if l == nil || len(l.pats) == 0 {
		return 0
	}
	rel, ok := relUnder(l.dir, abs)
	if !ok {
		return 0
	}
	if l.fold {
		rel = strings.ToLower(rel)
	}
	i := len(l.pats) - 1
	if l.set != nil {
		i = l.set.last(l.pats, rel, isDir)
	} else {
		for i >= 0 && !l.pats[i].Match(rel, isDir) {
			i--
		}
	}
	switch {
	case i < 0:
		return 0
	case l.pats[i].negate:
		return -1
	}
	return 1
}

func relUnder(dir, abs string) (string, bool) {
	if dir == "/" {
		return strings.TrimPrefix(abs, "/"), abs != "/"
	}
	if len(abs) <= len(dir) || abs[len(dir)] != '/' || abs[:len(dir)] != dir {
		return "", false
	}
	return abs[len(dir)+1:], true
}

// IgnoreFS is the file system the ignore rules read their files from
// (the walker's): lib/grep itself opens nothing.
type IgnoreFS struct {
	ReadFile func(path string) ([]byte, error)
	Exists   func(path string) bool // the path exists (not followed when a symlink)
}

// readIgnoreList reads an ignore file; fold matches it case-insensitively
// (--ignore-file-case-insensitive: patterns and paths lowercased).
func readIgnoreList(fsys IgnoreFS, dir, file string, fold bool) *ignoreList {
	data, err := fsys.ReadFile(file)
	if err != nil {
		return nil
	}
	if fold {
		data = bytes.ToLower(data)
	}
	pats := ParseIgnore(data)
	if len(pats) == 0 {
		return nil
	}
	l := &ignoreList{dir: dir, pats: pats, fold: fold}
	if len(pats) >= minSet {
		l.set = newRuleSet(pats)
	}
	return l
}

// IgnoreLevel holds the ignore files of one directory (Filter.Level).
type IgnoreLevel struct {
	parent  *IgnoreLevel
	path    string // the directory
	hasGit  bool
	repo    *IgnoreLevel // the nearest level, this one or above, holding .git (nil: none)
	rg, dot *ignoreList  // .rgignore, .ignore
	git     *ignoreList  // .gitignore
	exclude *ignoreList  // .git/info/exclude (in a directory holding .git)
}

// ignoreRules applies the ignore files of a walk as rg does: in each
// category the deepest directory with a matching pattern decides, and the
// categories rank .rgignore > .ignore > .gitignore > .git/info/exclude >
// core.excludesFile. Git's files count only inside a repository and stop
// at its top.
type ignoreRules struct {
	o        WalkOptions
	fs       IgnoreFS
	global   *ignoreList
	explicit []*ignoreList // --ignore-file, in the order given
}

// level reads the ignore files of dir; has says whether a name is in the
// directory (nil: try to open each), so missing files cost no open.
func (r *ignoreRules) level(parent *IgnoreLevel, dir string, has func(string) bool) *IgnoreLevel {
	l := &IgnoreLevel{parent: parent, path: dir}
	if r.o.NoIgnore {
		return l
	}
	if has == nil {
		has = func(name string) bool {
			return r.fs.Exists(filepath.Join(dir, name))
		}
	}
	l.hasGit = has(".git")
	switch {
	case l.hasGit:
		l.repo = l
	case parent != nil:
		l.repo = parent.repo
	}
	if !r.o.NoIgnoreVCS {
		if has(".gitignore") {
			l.git = readIgnoreList(r.fs, dir, filepath.Join(dir, ".gitignore"), r.o.IgnoreCaseInsensitive)
		}
		if l.hasGit && !r.o.NoIgnoreExclude {
			if gitDir, ok := r.commonDir(dir); ok {
				l.exclude = readIgnoreList(r.fs, dir, filepath.Join(gitDir, "info", "exclude"), r.o.IgnoreCaseInsensitive)
			}
		}
	}
	if !r.o.NoIgnoreDot && has(".ignore") {
		l.dot = readIgnoreList(r.fs, dir, filepath.Join(dir, ".ignore"), r.o.IgnoreCaseInsensitive)
	}
	if has(".rgignore") {
		l.rg = readIgnoreList(r.fs, dir, filepath.Join(dir, ".rgignore"), r.o.IgnoreCaseInsensitive)
	}
	return l
}

// commonDir is where dir's repository keeps info/exclude, as rg 13
// finds it: dir/.git, or for a .git file ("gitdir: X", a worktree's) the
// directory X's commondir names (relative to X when it starts with ".";
// X itself relative to the working directory, as rg takes it); false
// when a .git file leads nowhere.
func (r *ignoreRules) commonDir(dir string) (string, bool) {
	dotGit := filepath.Join(dir, ".git")
	data, err := r.fs.ReadFile(dotGit)
	if err != nil {
		return dotGit, true // (a directory)
	}
	line, ok := strings.CutPrefix(firstLine(data), "gitdir: ")
	if !ok {
		return "", false
	}
	real := line
	if !filepath.IsAbs(real) {
		real = filepath.Join(r.o.Cwd, real)
	}
	common, err := r.fs.ReadFile(filepath.Join(real, "commondir"))
	if err != nil {
		return "", false
	}
	c := firstLine(common)
	if strings.HasPrefix(c, ".") {
		return filepath.Join(real, c), true
	}
	return c, true
}

// firstLine is data's first line, without its "\n" or "\r\n".
func firstLine(data []byte) string {
	line, _, _ := strings.Cut(string(data), "\n")
	return strings.TrimSuffix(line, "\r")
}

// parents builds the levels of the directories above root (from the
// filesystem root down), whose ignore files apply under root too.
func (r *ignoreRules) parents(root string) *IgnoreLevel {
	var dirs []string
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	var l *IgnoreLevel
	for i := len(dirs) - 1; i >= 0; i-- {
		l = r.level(l, dirs[i], nil)
		if r.o.NoIgnoreParent {
			l.rg, l.dot, l.git, l.exclude = nil, nil, nil, nil // only where .git is still counts
		}
	}
	return l
}

// ignored is the decision for abs (absolute, cleaned) in the directory
// whose level is l: 1 ignored, -1 re-included (whitelisted), 0 none.
func (r *ignoreRules) ignored(l *IgnoreLevel, abs string, isDir bool) int {
	if m := r.ignoredByFiles(l, abs, isDir); m != 0 {
		return m
	}
	for i := len(r.explicit) - 1; i >= 0; i-- {
		if m := r.explicit[i].match(abs, isDir); m != 0 {
			return m
		}
	}
	return 0
}

func (r *ignoreRules) ignoredByFiles(l *IgnoreLevel, abs string, isDir bool) int {
	if r.o.NoIgnore {
		return 0
	}
	anyGit := r.o.NoRequireGit || l.repo != nil
	var mRg, mDot, mGit, mExcl int
	sawGit := false
	for p := l; p != nil; p = p.parent {
		if mRg == 0 {
			mRg = p.rg.match(abs, isDir)
		}
		if mDot == 0 {
			mDot = p.dot.match(abs, isDir)
		}
		if anyGit && !sawGit {
			if mGit == 0 {
				mGit = p.git.match(abs, isDir)
			}
			if mExcl == 0 {
				mExcl = p.exclude.match(abs, isDir)
			}
		}
		sawGit = sawGit || p.hasGit
	}
	for _, m := range []int{mRg, mDot, mGit, mExcl} {
		if m != 0 {
			return m
		}
	}
	if anyGit && r.global != nil && !r.o.NoIgnoreVCS {
		// core.excludesFile: relative to the repository's top (the
		// working directory outside one)
		g := *r.global
		g.dir = r.o.Cwd
		if l.repo != nil {
			g.dir = l.repo.path
		}
		if g.dir != "" {
			if m := g.match(abs, isDir); m != 0 {
				return m
			}
		}
	}
	return 0
}
