package session

import (
	"encoding/json"
	"sort"
)

// Node is an entry in the session tree, with its resolved label.
type Node struct {
	Entry    Record  `json:"-"`
	ID       string  `json:"id"`
	Type     string  `json:"type"`
	Label    string  `json:"label,omitempty"`
	Children []*Node `json:"children"`
}

// Flat is a node of the tree as JSON writes it (agent-session open
// --tree, export --json's "tree"): in depth-first order, its place given
// by its depth, its parent's id and its children's, not by nesting (a
// linear session would nest one level per entry: past any parser's
// limit).
type Flat struct {
	ID       string          `json:"id"`
	Type     string          `json:"type"`
	Label    string          `json:"label,omitempty"`
	Parent   *string         `json:"parent"` // null for a root
	Depth    int             `json:"depth"`
	Children []string        `json:"children"`
	Entry    json.RawMessage `json:"entry"`
}

// Flatten is the tree of roots in depth-first order, without recursion.
func Flatten(roots []*Node) []Flat {
	type item struct {
		n      *Node
		parent *string
		depth  int
	}
	var out []Flat
	stack := make([]item, 0, len(roots))
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, item{roots[i], nil, 0})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f := Flat{ID: it.n.ID, Type: it.n.Type, Label: it.n.Label, Parent: it.parent, Depth: it.depth, Children: make([]string, len(it.n.Children)), Entry: it.n.Entry.Raw}
		for i, c := range it.n.Children {
			f.Children[i] = c.ID
		}
		out = append(out, f)
		id := it.n.ID
		for i := len(it.n.Children) - 1; i >= 0; i-- {
			stack = append(stack, item{it.n.Children[i], &id, it.depth + 1})
		}
	}
	return out
}

// index maps ids to their first entry (later duplicates are ignored, as the
// reference's byId map keeps the last write but the first is what the
// tree saw; we report duplicates when loading).
func index(entries []Record) map[string]int {
	return indexOf(len(entries), func(i int) *Record { return &entries[i] })
}

// indexOf is index over n records read through rec.
func indexOf(n int, rec func(i int) *Record) map[string]int {
	byID := make(map[string]int, n)
	for i := range n {
		if id := rec(i).ID; id != "" {
			if _, dup := byID[id]; !dup {
				byID[id] = i
			}
		}
	}
	return byID
}

// Labels resolves label entries in file order (the last wins; an empty or
// absent label clears).
func Labels(entries []Record) map[string]string {
	out := map[string]string{}
	for _, e := range entries {
		if e.Type != "label" {
			continue
		}
		var l struct {
			TargetID string `json:"targetId"`
			Label    string `json:"label"`
		}
		if json.Unmarshal(e.Raw, &l) != nil || l.TargetID == "" {
			continue
		}
		if l.Label == "" {
			delete(out, l.TargetID)
		} else {
			out[l.TargetID] = l.Label
		}
	}
	return out
}

// Tree builds the session tree. Roots are entries whose parent is null,
// themselves, missing, or part of a cycle; children are sorted by
// timestamp (stable in file order).
func Tree(entries []Record) []*Node {
	byID := index(entries)
	labels := Labels(entries)
	nodes := make([]*Node, len(entries))
	for i, e := range entries {
		nodes[i] = &Node{Entry: e, ID: e.ID, Type: e.Type, Label: labels[e.ID], Children: []*Node{}}
	}
	cyclic := cycles(entries, byID)
	var roots []*Node
	for i, e := range entries {
		p, ok := byID[e.ParentID]
		if e.ParentID == "" || !ok || p == i || cyclic[i] {
			roots = append(roots, nodes[i])
			continue
		}
		if byID[e.ID] != i { // duplicate id: its own root, never a parent
			roots = append(roots, nodes[i])
			continue
		}
		nodes[p].Children = append(nodes[p].Children, nodes[i])
	}
	var sortKids func(ns []*Node)
	sortKids = func(ns []*Node) {
		sort.SliceStable(ns, func(a, b int) bool { return ns[a].Entry.Timestamp < ns[b].Entry.Timestamp })
		for _, n := range ns {
			sortKids(n.Children)
		}
	}
	for _, r := range roots {
		sortKids(r.Children)
	}
	return roots
}

// cycles marks the entries that lie on a parent cycle, in one pass.
func cycles(entries []Record, byID map[string]int) []bool {
	const (
		unseen = iota
		walking
		done
	)
	state := make([]byte, len(entries))
	cyclic := make([]bool, len(entries))
	var chain []int
	for start := range entries {
		chain = chain[:0]
		j, ended := start, false
		for state[j] == unseen {
			state[j] = walking
			chain = append(chain, j)
			p, ok := byID[entries[j].ParentID]
			if entries[j].ParentID == "" || !ok {
				ended = true
				break
			}
			j = p
		}
		if !ended && state[j] == walking { // closed a cycle: mark it
			for k := len(chain) - 1; k >= 0; k-- {
				cyclic[chain[k]] = true
				if chain[k] == j {
					break
				}
			}
		}
		for _, k := range chain {
			state[k] = done
		}
	}
	return cyclic
}

// Path is the branch from the root to leaf (leaf "" = the last entry), in
// order. A missing parent ends the walk; a cycle is cut where it closes.
func Path(entries []Record, leaf string) []Record {
	at, _ := pathIndexes(len(entries), func(i int) *Record { return &entries[i] }, leaf)
	if at == nil {
		return nil
	}
	out := make([]Record, len(at))
	for k, i := range at {
		out[k] = entries[i]
	}
	return out
}

// pathIndexes is Path over n records read through rec, as their indexes,
// root first; ok is false when leaf is not the id of one of them.
func pathIndexes(n int, rec func(i int) *Record, leaf string) (path []int, ok bool) {
	if n == 0 {
		return nil, leaf == ""
	}
	byID := indexOf(n, rec)
	i := n - 1
	if leaf != "" {
		if i, ok = byID[leaf]; !ok {
			return nil, false
		}
	}
	// Two walks up from the leaf: one to count, one to fill, so a long
	// path is made once, at its size.
	seen := make([]bool, n)
	count := 0
	for j := i; !seen[j]; {
		seen[j] = true
		count++
		parent := rec(j).ParentID
		p, ok := byID[parent]
		if parent == "" || !ok {
			break
		}
		j = p
	}
	path = make([]int, count)
	for j, k := i, count-1; k >= 0; k-- {
		path[k] = j
		j = byID[rec(j).ParentID]
	}
	return path, true
}
