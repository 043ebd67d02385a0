package ignore

import (
	"slices"
	"strings"
)

// An ignore file of many rules is compiled once into a set, as ripgrep's
// globset does, so that a path is not tried against each rule in turn:
// rules that are a plain base name (`name`, `name/`) go into a table of
// names, rules `*SUFFIX` with a plain suffix (`*.log`, `*.tar.gz`) into a
// table of suffixes, rules `PREFIX*SUFFIX` (`gen_*.go`, `tmp*`) into a
// table of prefixes, and anchored plain paths (`/build`, `a/b/`) into a
// table of paths; `**/RULE` with no other slash is the base-name rule
// RULE (gitignore(5): "the same as pattern RULE"). Only the other rules
// are tried, from the last one back, and only those after the last rule
// the tables matched. The last matching rule decides, as git's.

// minSet is the rule count from which an ignore file gets a set.
const minSet = 16

// ruleSet is the compiled rules of one ignore file (ignoreList.set).
type ruleSet struct {
	names    table            // base name -> the last rule that is it
	suffixes table            // "*SUFFIX" rules by SUFFIX
	paths    table            // anchored plain paths
	prefixes map[string][]pre // "PREFIX*SUFFIX" rules by PREFIX (not empty)
	preLens  []int            // the lengths of prefixes' keys, ascending
	rest     []int            // the other rules, in order
}

// table maps a key to the last rule with it; dirs holds the
// directory-only rules (a later rule replaces an earlier one: only the
// last can decide).
type table struct{ all, dirs map[string]int }

// pre is a rule PREFIX*SUFFIX of the prefix table.
type pre struct {
	suffix  string
	rule    int
	dirOnly bool
}

func (t *table) put(dirOnly bool, key string, i int) {
	m := &t.all
	if dirOnly {
		m = &t.dirs
	}
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[key] = i
}

// get is the last rule under key for a path (-1: none).
func (t *table) get(key string, isDir bool) int {
	best := -1
	if i, ok := t.all[key]; ok {
		best = i
	}
	if i, ok := t.dirs[key]; ok && isDir && i > best {
		best = i
	}
	return best
}

// newRuleSet compiles pats.
func newRuleSet(pats []IgnorePattern) *ruleSet {
	s := &ruleSet{prefixes: map[string][]pre{}}
	for i, p := range pats {
		glob, noDir := p.glob, p.noDir
		if !noDir && strings.HasPrefix(glob, "**/") && !strings.Contains(glob[3:], "/") && glob[3:] != "" {
			glob, noDir = glob[3:], true
		}
		n := simpleLength(glob)
		switch {
		case noDir && n == len(glob):
			s.names.put(p.dirOnly, glob, i)
		case !noDir && p.prefix == len(p.glob):
			s.paths.put(p.dirOnly, glob, i)
		case noDir && n > 0 && glob[n] == '*' && simpleLength(glob[n+1:]) == len(glob)-n-1:
			if len(s.prefixes[glob[:n]]) == 0 && !slices.Contains(s.preLens, n) {
				s.preLens = append(s.preLens, n)
			}
			s.prefixes[glob[:n]] = append(s.prefixes[glob[:n]], pre{glob[n+1:], i, p.dirOnly})
		case noDir && n == 0 && len(glob) > 1 && glob[0] == '*' && simpleLength(glob[1:]) == len(glob)-1:
			s.suffixes.put(p.dirOnly, glob[1:], i)
		default:
			s.rest = append(s.rest, i)
		}
	}
	slices.Sort(s.preLens)
	return s
}

// last is the index of the last rule of pats matching rel (-1: none).
func (s *ruleSet) last(pats []IgnorePattern, rel string, isDir bool) int {
	base := rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		base = rel[i+1:]
	}
	best := max(s.names.get(base, isDir), s.paths.get(rel, isDir))
	if len(s.suffixes.all)+len(s.suffixes.dirs) > 0 {
		for j := range len(base) {
			best = max(best, s.suffixes.get(base[j:], isDir))
		}
	}
	for _, n := range s.preLens {
		if n > len(base) {
			break
		}
		for _, r := range s.prefixes[base[:n]] {
			if r.rule > best && (isDir || !r.dirOnly) && len(base)-n >= len(r.suffix) && strings.HasSuffix(base, r.suffix) {
				best = r.rule
			}
		}
	}
	for k := len(s.rest) - 1; k >= 0 && s.rest[k] > best; k-- {
		if pats[s.rest[k]].Match(rel, isDir) {
			return s.rest[k]
		}
	}
	return best
}
