package tooldef

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLookupAndResolve(t *testing.T) {
	for _, tc := range []struct {
		name            string
		lookup, resolve string // the tool found, "" for none
	}{
		{"read", "read", "read"},
		{"Read", "", "read"},
		{"MultiEdit", "", "edit"},
		{"Glob", "", "find"},
		{"apply_patch", "apply_patch", "apply_patch"},
		{"skill", "", ""},
	} {
		l, _ := Lookup(tc.name)
		r, _ := Resolve(tc.name)
		if l.Name != tc.lookup || r.Name != tc.resolve {
			t.Errorf("%s: Lookup %q, Resolve %q; want %q, %q", tc.name, l.Name, r.Name, tc.lookup, tc.resolve)
		}
	}
	if d := cmp.Diff([]string{"write", "edit", "undo_edit", "bash", "notebook_edit", "memory", "apply_patch"}, Names(func(t Tool) bool { return t.Approve })); d != "" {
		t.Error(d)
	}
}

// TestTableRules: names are unique and no alias is one of our names (a
// hook matcher or an imported session would mean two tools), every class
// is one of the four, the read-only tools are the MCP read-only ones.
func TestTableRules(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range table {
		if seen[e.Name] {
			t.Errorf("%s twice", e.Name)
		}
		seen[e.Name] = true
	}
	for _, e := range table {
		for _, a := range e.Aliases {
			if seen[a] {
				t.Errorf("%s: alias %s is a tool's name", e.Name, a)
			}
		}
		switch e.Class {
		case Read, Network:
			if !e.MCP.ReadOnly || e.Approve {
				t.Errorf("%s: a %s tool is read-only and asks no one", e.Name, e.Class)
			}
		case Write, Exec:
			if e.MCP.ReadOnly || !e.MCP.Destructive {
				t.Errorf("%s: a %s tool is not read-only", e.Name, e.Class)
			}
		default:
			t.Errorf("%s: class %q", e.Name, e.Class)
		}
		if len(e.Schemas) == 0 {
			t.Errorf("%s: no schema file", e.Name)
		}
	}
}
