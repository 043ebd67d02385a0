package main

import "testing"

func TestShape(t *testing.T) {
	m := func(id, parent string) entry { return entry{id, parent, "message"} }
	tests := []struct {
		name            string
		entries         []entry
		branches, depth int
	}{
		{"empty", nil, 0, 0},
		{"a line", []entry{m("a", ""), m("b", "a"), m("c", "b")}, 0, 0},
		{"a fork at the first prompt", []entry{m("a", ""), m("b", "a"), m("c", "a"), m("d", "c")}, 2, 1},
		{"a fork inside a fork", []entry{m("a", ""), m("b", "a"), m("c", "a"), m("d", "c"), m("e", "c")}, 4, 2},
		{"entries not drawn are looked through", []entry{m("a", ""), {"l", "a", "label"}, m("b", "l"), m("c", "a")}, 2, 1},
		{"two roots", []entry{m("a", ""), m("b", "")}, 2, 1},
		{"a parent outside the file is a root", []entry{m("a", "gone"), m("b", "a")}, 0, 0},
	}
	for _, tt := range tests {
		b, d := shape(tt.entries)
		if b != tt.branches || d != tt.depth {
			t.Errorf("%s: shape = %d branch lists, depth %d; want %d, %d", tt.name, b, d, tt.branches, tt.depth)
		}
	}
}
