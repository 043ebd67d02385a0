package grep

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// WalkOptions choose the files to search, with rg's meanings.
type WalkOptions struct {
	Hidden       bool     // --hidden
	NoIgnore     bool     // --no-ignore: no ignore files at all
	NoIgnoreVCS  bool     // --no-ignore-vcs: no .gitignore / .git/info/exclude / core.excludesFile
	NoIgnoreDot  bool     // --no-ignore-dot: no .ignore / .rgignore
	Follow       bool     // -L
	MaxDepth     int      // --max-depth (0: none)
	MaxFilesize  int64    // --max-filesize (0: none)
	Globs        []string // -g (a leading ! excludes), matched against the path below the root
	IGlobs       []string // --iglob: case-insensitive globs
	Types        []string // -t
	TypesNot     []string // -T
	GlobalIgnore string   // core.excludesFile contents' path ("" for none)
}

// File is one file to search.
type File struct {
	Path  string // as printed (relative to the cwd when the root was)
	Abs   string
	Size  int64 // -1 when not known (no stat was needed)
	Named bool  // given on the command line rather than found by walking
}

// ignoreFiles are read in every directory, in rg's order (later wins).
var vcsFiles, dotFiles = []string{".gitignore"}, []string{".ignore", ".rgignore"}

// Walk lists the files under root that a search visits, in path order.
func Walk(root string, o WalkOptions) ([]File, []error) {
	var files []File
	errs := WalkFunc(root, o, func(f File) bool {
		files = append(files, f)
		return true
	})
	return files, errs
}

// WalkFunc calls fn with each file under root that a search visits, in
// path order (a directory's entries sorted by name, each directory's
// files where its name sorts: rg's --sort path), as it finds them, so a
// search can start before the walk ends. fn returning false stops the walk.
// An explicitly named file is always searched, ignored or not (as in rg).
// An empty root is the working directory, printed without a "./" prefix
// (rg's output when no path is given).
func WalkFunc(root string, o WalkOptions, fn func(File) bool) []error {
	dir := root
	if dir == "" {
		dir = "."
	}
	st, err := os.Stat(dir)
	if err != nil {
		return []error{err}
	}
	if !st.IsDir() {
		fn(File{Path: root, Abs: root, Size: st.Size(), Named: true})
		return nil
	}
	abs, _ := filepath.Abs(dir)
	inRepo := gitRoot(abs) != ""
	var base []gitignore.Pattern
	if !o.NoIgnore && !o.NoIgnoreVCS && inRepo {
		if g := gitRoot(abs); g != "" {
			base = append(base, readPatterns(filepath.Join(g, ".git", "info", "exclude"), nil)...)
		}
		if o.GlobalIgnore != "" {
			base = append(base, readPatterns(o.GlobalIgnore, nil)...)
		}
		// .gitignore files above the root, down to it, apply too.
		if g := gitRoot(abs); g != "" && g != abs {
			rel, _ := filepath.Rel(g, abs)
			parts := strings.Split(filepath.ToSlash(rel), "/")
			for i := 0; i < len(parts); i++ {
				dir := filepath.Join(append([]string{g}, parts[:i]...)...)
				dom := relDomain(abs, dir)
				base = append(base, readPatterns(filepath.Join(dir, ".gitignore"), dom)...)
			}
		}
	}
	var errs []error
	stopped := false
	ra := newReadAhead(readAheadWorkers)
	defer ra.close()
	// Each directory is listed, then its entries are filtered, then its
	// subdirectories are handed to the read-ahead, then files and
	// subdirectories are visited in order.
	type item struct {
		name, path string
		size       int64
		rel        []string // set for a subdirectory
		sub        *listing // set for a subdirectory
	}
	var walk func(l *listing, dir string, rel []string, pats []gitignore.Pattern, depth int)
	walk = func(l *listing, dir string, rel []string, pats []gitignore.Pattern, depth int) {
		ents, err := l.get()
		if err != nil {
			errs = append(errs, err)
			return
		}
		if !o.NoIgnore {
			// Only the ignore files the listing shows are opened: trying
			// each name in every directory was a failed open per name.
			has := func(name string) bool {
				i := sort.Search(len(ents), func(i int) bool { return ents[i].Name() >= name })
				return i < len(ents) && ents[i].Name() == name
			}
			if !o.NoIgnoreVCS && inRepo {
				for _, f := range vcsFiles {
					if has(f) {
						pats = append(pats, readPatterns(dir+"/"+f, rel)...)
					}
				}
			}
			if !o.NoIgnoreDot {
				for _, f := range dotFiles {
					if has(f) {
						pats = append(pats, readPatterns(dir+"/"+f, rel)...)
					}
				}
			}
		}
		var m gitignore.Matcher
		if len(pats) > 0 {
			m = gitignore.NewMatcher(pats)
		}
		prefix := ""
		if len(rel) > 0 {
			prefix = strings.Join(rel, "/") + "/"
		}
		var items []item
		for _, e := range ents {
			name := e.Name()
			if name == ".git" {
				continue
			}
			if !o.Hidden && strings.HasPrefix(name, ".") {
				continue
			}
			p := dir + "/" + name // dir is absolute and clean
			isDir := e.IsDir()
			var size int64 = -1 // a stat only when something needs it
			if e.Type()&os.ModeSymlink != 0 {
				if !o.Follow {
					continue
				}
				info, err := os.Stat(p)
				if err != nil {
					continue
				}
				isDir, size = info.IsDir(), info.Size()
			} else if !isDir && !e.Type().IsRegular() {
				continue // FIFOs, devices and sockets are not searched
			}
			var r []string
			if len(pats) > 0 {
				r = append(append(make([]string, 0, len(rel)+1), rel...), name)
				if m.Match(r, isDir) {
					continue
				}
			}
			if isDir {
				if o.MaxDepth == 0 || depth < o.MaxDepth {
					if r == nil {
						r = append(append(make([]string, 0, len(rel)+1), rel...), name)
					}
					items = append(items, item{name: name, path: p, rel: r, sub: ra.ask(p)})
				}
				continue
			}
			if o.MaxDepth > 0 && depth+1 > o.MaxDepth {
				continue
			}
			relPath := prefix + name
			if !globsAllow(relPath, name, o) || !typesAllow(name, o) {
				continue
			}
			if o.MaxFilesize > 0 {
				if size < 0 {
					info, err := e.Info()
					if err != nil {
						continue
					}
					size = info.Size()
				}
				if size > o.MaxFilesize {
					continue
				}
			}
			items = append(items, item{name: name, path: p, size: size})
		}
		for _, it := range items {
			if stopped {
				return
			}
			if it.sub != nil {
				walk(it.sub, it.path, it.rel, pats, depth+1)
			} else if !fn(File{Path: join(root, prefix+it.name), Abs: it.path, Size: it.size}) {
				stopped = true
			}
		}
	}
	walk(ra.ask(abs), abs, nil, base, 0)
	return errs
}

// readAheadWorkers list directories ahead of the walk, so that the walk,
// one goroutine that keeps the order, seldom waits for the file system.
const readAheadWorkers = 2

// listing is one directory's entries, read once by whoever comes first:
// a read-ahead worker, or the walk when it gets there before them.
type listing struct {
	dir  string
	once sync.Once
	ents []os.DirEntry
	err  error
}

func (l *listing) get() ([]os.DirEntry, error) {
	l.once.Do(func() { l.ents, l.err = os.ReadDir(l.dir) })
	return l.ents, l.err
}

type readAhead struct {
	q    chan *listing
	stop atomic.Bool
}

func newReadAhead(workers int) *readAhead {
	ra := &readAhead{q: make(chan *listing, 1<<12)}
	for range workers {
		go func() {
			for l := range ra.q {
				if !ra.stop.Load() {
					l.get()
				}
			}
		}()
	}
	return ra
}

// ask returns dir's listing, queued for reading ahead when there is room.
func (ra *readAhead) ask(dir string) *listing {
	l := &listing{dir: dir}
	select {
	case ra.q <- l:
	default:
	}
	return l
}

func (ra *readAhead) close() {
	ra.stop.Store(true)
	close(ra.q)
}

func join(root, rel string) string {
	if root == "" {
		return rel
	}
	return strings.TrimSuffix(root, "/") + "/" + rel
}

func relDomain(root, dir string) []string {
	r, err := filepath.Rel(root, dir)
	if err != nil || r == "." || strings.HasPrefix(r, "..") {
		return nil
	}
	return strings.Split(filepath.ToSlash(r), "/")
}

func readPatterns(path string, domain []string) []gitignore.Pattern {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// gitRoot is the nearest directory at or above dir holding .git.
func gitRoot(dir string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// globsAllow applies -g/--iglob as rg does: a file must match one of the
// positive globs (when there are any) and none of the negated ones; a glob
// without a slash matches the file name at any depth.
func globsAllow(rel, name string, o WalkOptions) bool {
	check := func(globs []string, fold bool) (allowed, hasPositive bool) {
		allowed = true
		pos := false
		for _, g := range globs {
			neg := strings.HasPrefix(g, "!")
			g = strings.TrimPrefix(g, "!")
			subj := rel
			if !strings.Contains(g, "/") {
				subj = name
			}
			if fold {
				g, subj = strings.ToLower(g), strings.ToLower(subj)
			}
			ok, _ := doublestar.Match(g, subj)
			if neg {
				if ok {
					return false, true
				}
			} else {
				hasPositive = true
				pos = pos || ok
			}
		}
		if hasPositive {
			return pos, true
		}
		return allowed, false
	}
	a, _ := check(o.Globs, false)
	b, _ := check(o.IGlobs, true)
	return a && b
}
