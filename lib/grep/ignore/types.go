package ignore

import (
	_ "embed"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
)

// rgtypes.txt is ripgrep 13's default file-type table, as `rg --type-list`
// prints it (name: glob, glob, …), so -t/-T and --type-list mean what they
// mean in rg.
//
//go:embed rgtypes.txt
var rgTypes string

// Types is the file-type table, name → globs (matched against the file
// name). It holds rg's types plus the reference tool's names where they
// differ (TypeAliases); --type-list prints rg's table only. It is made at
// its first use (not at every start of every command: a search without
// -t never needs it) and shared: callers must not change it.
var Types = sync.OnceValue(func() map[string][]string { return parseTypes(rgTypes) })

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

// RGTypes is a fresh copy of rg's own table (no aliases), for a command
// line's --type-add and --type-clear to change.
func RGTypes() map[string][]string {
	t := parseTypes(rgTypes)
	for a := range TypeAliases {
		delete(t, a)
	}
	return t
}

// AddTypeDef applies one --type-add definition to table: "name:glob" adds
// a glob, "name:include:a,b" adds the globs of other types.
func AddTypeDef(table map[string][]string, def string) error {
	bad := fmt.Errorf("invalid definition (format is type:glob, e.g., html:*.html)")
	name, rest, ok := strings.Cut(def, ":")
	if !ok || name == "" || rest == "" {
		return bad
	}
	if inc, ok := strings.CutPrefix(rest, "include:"); ok {
		for _, t := range strings.Split(inc, ",") {
			globs, known := table[t]
			if !known {
				return bad
			}
			table[name] = append(table[name], globs...)
		}
	} else {
		table[name] = append(table[name], rest)
	}
	g := table[name]
	sort.Strings(g)
	table[name] = slices.Compact(g)
	return nil
}

// RenderTypeList prints table as --type-list does.
func RenderTypeList(table map[string][]string) string {
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + ": " + strings.Join(table[n], ", ") + "\n")
	}
	return b.String()
}

func typeMatch(name, t string, table map[string][]string) bool {
	if table == nil {
		table = Types()
	}
	for _, g := range table[t] {
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
		if typeMatch(name, t, o.TypeTable) {
			return -1
		}
	}
	if len(o.Types) == 0 {
		return 0
	}
	for _, t := range o.Types {
		if typeMatch(name, t, o.TypeTable) {
			return 1
		}
	}
	return -1
}
