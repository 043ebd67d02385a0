package main

// entry is the part of an exported session entry the tree's shape needs.
type entry struct {
	ID       string `json:"id"`
	ParentID string `json:"parentId"`
	Type     string `json:"type"`
}

// shown are the entry types the HTML export draws as sections (and so as
// items of its tree).
var shown = map[string]bool{"message": true, "compaction": true, "branch_summary": true, "custom_message": true}

// shape is the tree the export should draw for a session's entries: how
// many branch lists (one per child of a fork, and one per root when there
// are several) and how deep they nest. An entry's parent in the tree is its
// nearest drawn ancestor.
func shape(entries []entry) (branches, depth int) {
	byID := map[string]entry{}
	for _, e := range entries {
		byID[e.ID] = e
	}
	up := func(e entry) string {
		seen := map[string]bool{}
		for p := e.ParentID; p != "" && !seen[p]; p = byID[p].ParentID {
			pe, ok := byID[p]
			if !ok {
				break
			}
			seen[p] = true
			if shown[pe.Type] {
				return p
			}
		}
		return ""
	}
	kids := map[string][]string{}
	var roots []string
	for _, e := range entries {
		if !shown[e.Type] {
			continue
		}
		if p := up(e); p != "" {
			kids[p] = append(kids[p], e.ID)
		} else {
			roots = append(roots, e.ID)
		}
	}
	var walk func(id string, d int) (int, int)
	walk = func(id string, d int) (b, m int) {
		m = d
		for len(kids[id]) == 1 {
			id = kids[id][0]
		}
		if k := kids[id]; len(k) > 1 {
			for _, c := range k {
				bb, mm := walk(c, d+1)
				b, m = b+bb+1, max(m, mm)
			}
		}
		return b, m
	}
	switch {
	case len(roots) > 1:
		for _, r := range roots {
			bb, mm := walk(r, 1)
			branches, depth = branches+bb+1, max(depth, mm)
		}
	case len(roots) == 1:
		branches, depth = walk(roots[0], 0)
	}
	return branches, depth
}
