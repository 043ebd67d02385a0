package grepfs

import (
	"errors"
	"github.com/agentutils/agentutils/lib/grep/ignore"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// Walk lists the files under root that a search visits, in path order.
func Walk(root string, o ignore.WalkOptions) ([]ignore.File, []error) {
	var files []ignore.File
	errs := WalkFunc(root, o, func(f ignore.File) bool {
		files = append(files, f)
		return true
	})
	return files, errs
}

// WalkFunc calls fn with each file under root that a search visits, in
// rg's --sort path order (a directory's entries by name, depth first; by
// modification time under SortModified), as it finds them, so a search can
// start before the walk ends. fn returning false stops the walk. An
// explicitly named file is always searched, ignored or not (as in rg). An
// empty root is the working directory, printed without a "./" prefix (rg's
// output when no path is given).
func WalkFunc(root string, o ignore.WalkOptions, fn func(ignore.File) bool) []error {
	read := os.ReadDir // entries sorted by name
	if o.SortModified {
		read = readDirUnsorted // ties keep the directory's own order, as in rg
	}
	return walkFunc(root, o, fn, read)
}

// walkFunc is WalkFunc with the directory reader given: each directory the
// walk enters is read once, by read.
func walkFunc(root string, o ignore.WalkOptions, fn func(ignore.File) bool, read func(dir string) ([]os.DirEntry, error)) []error {
	dir := root
	if dir == "" {
		dir = "."
	}
	full := dir // a relative root is below Cwd (the command's working directory)
	if o.Cwd != "" && !filepath.IsAbs(dir) {
		full = filepath.Join(o.Cwd, dir)
	}
	st, err := os.Stat(full)
	if err != nil {
		return []error{ioError(dir, err, o.OneThread)}
	}
	if !st.IsDir() {
		fn(ignore.File{Path: root, Abs: full, Size: st.Size(), Named: true})
		return nil
	}
	abs, _ := filepath.Abs(full)
	f := ignore.NewFilter(o, ignoreFS)
	var errs []error
	stopped := false
	ra := newReadAhead(readAheadWorkers, read)
	defer ra.close()
	type dirID struct{ dev, ino uint64 }
	idOf := func(info os.FileInfo) dirID {
		dev, ino := fileID(info)
		return dirID{dev, ino}
	}
	rootDev := idOf(st).dev
	// Each directory is listed, then its entries are filtered, then its
	// subdirectories are handed to the read-ahead, then files and
	// subdirectories are visited in order.
	type item struct {
		name, path, shown string
		size              int64
		sub               *listing // set for a subdirectory
		id                dirID
	}
	var walk func(l *listing, dir, shown string, lvl *ignore.IgnoreLevel, depth int, ancestors []dirID, ancestorPaths []string)
	walk = func(l *listing, dir, shown string, lvl *ignore.IgnoreLevel, depth int, ancestors []dirID, ancestorPaths []string) {
		ents, err := l.get()
		if err != nil {
			errs = append(errs, ioError(errPath(root, shown), err, o.OneThread))
			return
		}
		// Only the ignore files the listing shows are opened.
		lvl = f.Level(lvl, dir, func(name string) bool {
			if o.SortModified { // the listing is in the directory's order
				return slices.ContainsFunc(ents, func(e os.DirEntry) bool { return e.Name() == name })
			}
			i := sort.Search(len(ents), func(i int) bool { return ents[i].Name() >= name })
			return i < len(ents) && ents[i].Name() == name
		})
		if o.SortModified {
			sortByModTime(ents, o.SortReverse)
		}
		var items []item
		for _, e := range ents {
			name := e.Name()
			p := dir + "/" + name // dir is absolute and clean
			if dir == "/" {
				p = "/" + name
			}
			show := joinShown(shown, name)
			isDir := e.IsDir()
			var size int64 = -1 // a stat only when something needs it
			var target os.FileInfo
			if e.Type()&os.ModeSymlink != 0 {
				if !o.Follow {
					continue
				}
				info, err := os.Stat(p)
				if err != nil {
					errs = append(errs, ioError(errPath(root, show), err, o.OneThread))
					continue
				}
				target = info
				isDir, size = info.IsDir(), info.Size()
				if !isDir && !info.Mode().IsRegular() {
					continue // FIFOs, devices and sockets are not searched
				}
			} else if !isDir && !e.Type().IsRegular() {
				continue // FIFOs, devices and sockets are not searched
			}
			if f.Skip(lvl, p, show, name, isDir) {
				continue
			}
			if isDir {
				if o.MaxDepthSet && depth+1 > o.MaxDepth {
					continue
				}
				if o.OneFileSystem {
					info := target
					if info == nil {
						info, _ = os.Stat(p)
					}
					if info != nil && idOf(info).dev != rootDev {
						continue
					}
				}
				it := item{name: name, path: p, shown: show}
				if o.Follow {
					info := target
					if info == nil {
						if info, err = os.Stat(p); err != nil {
							continue
						}
					}
					it.id = idOf(info)
					loop := -1
					for k, a := range ancestors {
						if a == it.id && a != (dirID{}) { // zero: not known on this system
							loop = k
						}
					}
					if loop >= 0 {
						anc := errPath(root, ancestorPaths[loop])
						if root != "" && ancestorPaths[loop] == root {
							anc = root // (rg: "." stays ".")
						}
						errs = append(errs, &ignore.WalkError{Msg: "File system loop found: " + errPath(root, show) + " points to an ancestor " + anc})
						continue
					}
				}
				it.sub = ra.ask(p)
				items = append(items, it)
				continue
			}
			if o.MaxDepthSet && depth+1 > o.MaxDepth {
				continue
			}
			if f.Narrowed(abs, p) {
				continue
			}
			if o.MaxFilesize > 0 || o.MaxFilesizeSet {
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
			items = append(items, item{name: name, path: p, shown: show, size: size})
		}
		for _, it := range items {
			if stopped {
				return
			}
			if it.sub != nil {
				if o.Follow {
					walk(it.sub, it.path, it.shown, lvl, depth+1, append(ancestors[:len(ancestors):len(ancestors)], it.id),
						append(ancestorPaths[:len(ancestorPaths):len(ancestorPaths)], it.shown))
				} else {
					walk(it.sub, it.path, it.shown, lvl, depth+1, nil, nil)
				}
			} else if !fn(ignore.File{Path: it.shown, Abs: it.path, Size: it.size}) {
				stopped = true
			}
		}
	}
	var anc []dirID
	if o.Follow {
		anc = []dirID{idOf(st)}
	}
	walk(ra.ask(abs), abs, root, f.Parents(abs), 0, anc, []string{root})
	return errs
}

// ignoreFS is the file system ignore files are read from.
var ignoreFS = ignore.IgnoreFS{ReadFile: os.ReadFile, Exists: func(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}}

// readAheadWorkers list directories ahead of the walk, so that the walk,
// one goroutine that keeps the order, seldom waits for the file system.
const readAheadWorkers = 2

// listing is one directory's entries, read once by whoever comes first:
// a read-ahead worker, or the walk when it gets there before them.
type listing struct {
	dir  string
	read func(string) ([]os.DirEntry, error)
	once sync.Once
	ents []os.DirEntry
	err  error
}

func (l *listing) get() ([]os.DirEntry, error) {
	l.once.Do(func() { l.ents, l.err = l.read(l.dir) })
	return l.ents, l.err
}

// readDirUnsorted is os.ReadDir without the sort: the entries in the
// order the directory gives them.
func readDirUnsorted(dir string) ([]os.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

type readAhead struct {
	q    chan *listing
	read func(string) ([]os.DirEntry, error)
	stop atomic.Bool
}

func newReadAhead(workers int, read func(string) ([]os.DirEntry, error)) *readAhead {
	ra := &readAhead{q: make(chan *listing, 1<<12), read: read}
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
	l := &listing{dir: dir, read: ra.read}
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

// errPath is a path as rg names it in messages: with "./" when no root
// was given ("./" itself for the cwd).
func errPath(root, shown string) string {
	if root == "" {
		return "./" + shown
	}
	if shown == "." {
		return "./"
	}
	return shown
}

// ioError is an I/O error of the walk on path in rg's words: its
// one-thread walk (walkdir's error) names the operation and the path
// again, its parallel walk gives the error alone.
func ioError(path string, err error, oneThread bool) *ignore.WalkError {
	msg := ErrText(err)
	if oneThread {
		msg = "IO error for operation on " + path + ": " + msg
	}
	return &ignore.WalkError{Path: path, Msg: msg}
}

func joinShown(shown, name string) string {
	if shown == "" {
		return name
	}
	if strings.HasSuffix(shown, "/") {
		return shown + name
	}
	return shown + "/" + name
}

// ErrText is an I/O error as rg prints it ("No such file or directory (os
// error 2)").
func ErrText(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) || errno == 0 {
		return err.Error()
	}
	s := errno.Error()
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s + " (os error " + strconv.Itoa(int(errno)) + ")"
}

func sortByModTime(ents []os.DirEntry, reverse bool) {
	mod := make(map[string]int64, len(ents))
	for _, e := range ents {
		if info, err := e.Info(); err == nil {
			mod[e.Name()] = info.ModTime().UnixNano()
		}
	}
	sort.SliceStable(ents, func(i, j int) bool {
		a, b := mod[ents[i].Name()], mod[ents[j].Name()]
		if reverse {
			return a > b
		}
		return a < b
	})
}
