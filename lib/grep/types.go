package grep

import (
	_ "embed"
	"path"
	"strings"
)

// rgtypes.txt is ripgrep 13's default file-type table, as `rg --type-list`
// prints it (name: glob, glob, …), so -t/-T and --type-list mean what they
// mean in rg.
//
//go:embed rgtypes.txt
var rgTypes string

// Types is the file-type table, name → globs (matched against the file
// name). It holds rg's types plus the reference tool's names where they
// differ (TypeAliases); --type-list prints rg's table only.
var Types = parseTypes(rgTypes)

// TypeAliases are the names of the agent tools' type table (tools-grep.md
// §5.1) that rg spells differently.
var TypeAliases = map[string]string{
	"yml": "yaml", "rs": "rust", "kt": "kotlin", "cxx": "cpp", "rb": "ruby", "bash": "sh", "scss": "sass",
}

func parseTypes(s string) map[string][]string {
	t := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		name, globs, ok := strings.Cut(line, ": ")
		if ok {
			t[name] = strings.Split(globs, ", ")
		}
	}
	for a, n := range TypeAliases {
		t[a] = t[n]
	}
	return t
}

// TypeList renders the table as --type-list prints it.
func TypeList() string { return rgTypes }

func typeMatch(name, t string) bool {
	for _, g := range Types[t] {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// typeDecision is rg's type filter for a file name: -1 excluded, 1
// selected (which also lets a hidden file through, as in rg), 0 no opinion.
func typeDecision(name string, o WalkOptions) int {
	for _, t := range o.TypesNot {
		if typeMatch(name, t) {
			return -1
		}
	}
	if len(o.Types) == 0 {
		return 0
	}
	for _, t := range o.Types {
		if typeMatch(name, t) {
			return 1
		}
	}
	return -1
}
