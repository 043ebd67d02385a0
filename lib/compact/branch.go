package compact

import (
	"encoding/json"
	"fmt"

	"github.com/agentutils/agentutils/lib/session"
)

// Branch is what a branch summary covers when the leaf moves from an old
// leaf to a target (reference §4.11).
type Branch struct {
	// NewLeaf is where the session goes: the target, or the target's parent
	// when the target is a user message or a custom_message (its text goes
	// back to the editor). "" is the root.
	NewLeaf string
	// Ancestor is the deepest entry on both paths ("" when they share none).
	Ancestor string
	// Entries run from the old leaf up to, not including, the ancestor,
	// oldest first; compactions do not stop the walk.
	Entries []session.Record
}

// FindBranch locates the abandoned branch in all the session's entries
// (file order, as 'agent-session open --all' prints them).
func FindBranch(all []session.Record, oldLeaf, target string) (Branch, error) {
	byID := make(map[string]int, len(all))
	for i, e := range all {
		if e.ID != "" {
			byID[e.ID] = i
		}
	}
	for _, id := range []string{oldLeaf, target} {
		if _, ok := byID[id]; !ok && id != "root" {
			return Branch{}, fmt.Errorf("entry %q is not in the stream (read it with 'agent-session open --all')", id)
		}
	}
	// up lists id and its ancestors, newest first; a cycle or a dangling
	// parent ends it.
	up := func(id string) []int {
		var out []int
		seen := map[int]bool{}
		for id != "" && id != "root" {
			i, ok := byID[id]
			if !ok || seen[i] {
				break
			}
			seen[i] = true
			out = append(out, i)
			id = all[i].ParentID
		}
		return out
	}
	b := Branch{NewLeaf: target}
	if target == "root" {
		b.NewLeaf = ""
	} else if t := all[byID[target]]; t.Type == "custom_message" || roleOf(t) == "user" {
		b.NewLeaf = t.ParentID
	}
	onTarget := map[int]bool{}
	for _, i := range up(target) {
		onTarget[i] = true
	}
	var chain []int
	for _, i := range up(oldLeaf) {
		if onTarget[i] {
			b.Ancestor = all[i].ID
			break
		}
		chain = append(chain, i)
	}
	for k := len(chain) - 1; k >= 0; k-- {
		b.Entries = append(b.Entries, all[chain[k]])
	}
	return b, nil
}

// BranchMessages picks the messages of a branch summary within budget
// tokens, newest first (tool results are left out: the call carries the
// context), and gathers the file operations, merging those of earlier
// branch summaries. A summary entry is still taken past the budget while
// under 90% of it.
func BranchMessages(entries []session.Record, budget int) ([]json.RawMessage, FileOps) {
	files := NewFileOps(nil)
	for _, e := range entries {
		if e.Type != "branch_summary" {
			continue
		}
		var d struct {
			Details       json.RawMessage `json:"details"`
			FromExtension bool            `json:"fromExtension"`
		}
		json.Unmarshal(e.Raw, &d)
		if !d.FromExtension {
			files.merge(NewFileOps(d.Details))
		}
	}
	var out []json.RawMessage
	total := 0
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		var m json.RawMessage
		switch e.Type {
		case "message", "custom_message", "branch_summary":
			m = session.MessageOf(e) // as BuildContext: a retried failed attempt is left out
		case "compaction":
			var c struct {
				Summary      string          `json:"summary"`
				TokensBefore json.RawMessage `json:"tokensBefore"`
			}
			json.Unmarshal(e.Raw, &c)
			m, _ = json.Marshal(struct {
				Role         string          `json:"role"`
				Summary      string          `json:"summary"`
				TokensBefore json.RawMessage `json:"tokensBefore,omitempty"`
			}{"compactionSummary", c.Summary, c.TokensBefore})
		}
		if m == nil {
			continue
		}
		mi := skimMessage(m, false) // one skim: role, tool-call files and tokens
		if e.Type == "message" && mi.role == "toolResult" {
			continue
		}
		if mi.role == "assistant" {
			files.add(mi.files)
		}
		t := mi.tokens
		if total+t > budget {
			if (e.Type == "compaction" || e.Type == "branch_summary") && float64(total) < 0.9*float64(budget) {
				out = append(out, m)
				total += t
			}
			break
		}
		out = append(out, m)
		total += t
	}
	for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	return out, files
}

func (f FileOps) merge(g FileOps) {
	for p := range g.Read {
		f.Read[p] = true
	}
	for p := range g.Written {
		f.Written[p] = true
	}
	for p := range g.Edited {
		f.Edited[p] = true
	}
}
