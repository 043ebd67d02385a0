package checkpoint

import (
	"slices"
	"strings"
)

// Span is what a scan found now at a path a watcher reported changed:
// the files at Path and below it (none: nothing is there now), in Less
// order.
type Span struct {
	Path  string
	Files []File
}

// Tops is the changed paths a watcher reported as the subtrees to scan
// again: in Less order, without duplicates nor a path below another
// ("a/b" goes when "a" is there: a's scan covers it).
func Tops(paths []string) []string {
	ps := slices.Clone(paths)
	slices.SortFunc(ps, Compare)
	out := make([]string, 0, len(ps)) // never nil: a partial scan's
	for _, p := range ps {
		if n := len(out); n > 0 && (out[n-1] == p || Under(p, out[n-1])) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// Under: path p is dir's descendant ("" is the root, above every path).
func Under(p, dir string) bool {
	return dir == "" || (len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir))
}

// Patch is the files of old (in Less order) with each span's subtree
// replaced by what the span found: the manifest of a scan that looked
// only where a watcher saw changes. The spans are in Less order and
// disjoint (Tops).
func Patch(old []File, spans []Span) []File {
	out := make([]File, 0, len(old)+8)
	i := 0
	for _, s := range spans {
		for i < len(old) && Compare(old[i].Path, s.Path) < 0 && !Under(old[i].Path, s.Path) {
			out = append(out, old[i])
			i++
		}
		for i < len(old) && (old[i].Path == s.Path || Under(old[i].Path, s.Path)) {
			i++
		}
		out = append(out, s.Files...)
	}
	return append(out, old[i:]...)
}
