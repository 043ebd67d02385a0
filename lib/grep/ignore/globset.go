package ignore

import "strings"

// An ignore file of many rules is compiled once into a set, as ripgrep's
// globset does, so that a path is not tried against each rule in turn:
// rules that are a plain base name (`name`, `name/`) go into a table of
// names, rules `*SUFFIX` with a plain suffix (`*.log`, `*.tar.gz`) into a
// table of suffixes, and only the others are tried, from the last one
// back, and only those after the last rule the tables matched. The last
// matching rule decides, as git's.

// minSet is the rule count from which an ignore file gets a set.
const minSet = 16

// ruleSet is the compiled rules of one ignore file (ignoreList.set).
type ruleSet struct {
	names, dirNames       map[string]int // base name -> the last rule that is it (dirNames: dirOnly rules)
	suffixes, dirSuffixes map[string]int // "*SUFFIX" rules by SUFFIX
	rest                  []int          // the other rules, in order
}

// newRuleSet compiles pats.
func newRuleSet(pats []IgnorePattern) *ruleSet {
	s := &ruleSet{names: map[string]int{}, dirNames: map[string]int{}, suffixes: map[string]int{}, dirSuffixes: map[string]int{}}
	for i, p := range pats {
		switch {
		case p.noDir && p.prefix == len(p.glob):
			put(s.names, s.dirNames, p.dirOnly, p.glob, i)
		case p.noDir && len(p.glob) > 1 && p.glob[0] == '*' && simpleLength(p.glob[1:]) == len(p.glob)-1:
			put(s.suffixes, s.dirSuffixes, p.dirOnly, p.glob[1:], i)
		default:
			s.rest = append(s.rest, i)
		}
	}
	return s
}

// put records rule i under key in all, or in dirs for a directory-only
// rule (a later rule replaces an earlier one: only the last can decide).
func put(all, dirs map[string]int, dirOnly bool, key string, i int) {
	if dirOnly {
		dirs[key] = i
	} else {
		all[key] = i
	}
}

// last is the index of the last rule of pats matching rel (-1: none).
func (s *ruleSet) last(pats []IgnorePattern, rel string, isDir bool) int {
	base := rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		base = rel[i+1:]
	}
	best := -1
	look := func(all, dirs map[string]int, key string) {
		if i, ok := all[key]; ok && i > best {
			best = i
		}
		if isDir {
			if i, ok := dirs[key]; ok && i > best {
				best = i
			}
		}
	}
	look(s.names, s.dirNames, base)
	if len(s.suffixes)+len(s.dirSuffixes) > 0 {
		for j := range len(base) {
			look(s.suffixes, s.dirSuffixes, base[j:])
		}
	}
	for k := len(s.rest) - 1; k >= 0 && s.rest[k] > best; k-- {
		if pats[s.rest[k]].Match(rel, isDir) {
			return s.rest[k]
		}
	}
	return best
}
