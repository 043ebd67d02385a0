package commit

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// SplitPlan is the split form of a plan (commit.md §6.6): several commits
// made from one staged diff. Dependencies are 0-based commit indexes; hunk
// indices are 1-based.
type SplitPlan struct {
	Commits []SplitCommit `json:"commits"`
}

// SplitCommit is one commit of a split plan.
type SplitCommit struct {
	Analysis
	Changes      []Change `json:"changes"`
	Dependencies []int    `json:"dependencies,omitempty"`
	Rationale    string   `json:"rationale,omitempty"`
}

// Change selects a file's changes: kind "all", "indices" (1-based hunk
// numbers) or "lines" (hunks whose new-side range overlaps start..end).
type Change struct {
	Path    string `json:"path"`
	Kind    string `json:"kind"`
	Indices []int  `json:"indices,omitempty"`
	Start   int    `json:"start,omitempty"`
	End     int    `json:"end,omitempty"`
}

// UnmarshalJSON accepts the flat selector and the reference's nested form
// {"path","hunks":{"type":"all"|"indices"|"lines",…}}.
func (c *Change) UnmarshalJSON(b []byte) error {
	type flat Change
	var in struct {
		flat
		Hunks *struct {
			Type    string `json:"type"`
			Indices []int  `json:"indices"`
			Start   int    `json:"start"`
			End     int    `json:"end"`
		} `json:"hunks"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*c = Change(in.flat)
	if h := in.Hunks; h != nil && c.Kind == "" {
		c.Kind, c.Indices, c.Start, c.End = h.Type, h.Indices, h.Start, h.End
	}
	c.Path = strings.TrimPrefix(c.Path, "./")
	return nil
}

// ParseSplitPlan reads a plan; a top-level {"split": {...}} wrapper (the
// full plan document) is accepted too.
func ParseSplitPlan(data []byte) (SplitPlan, error) {
	var wrap struct {
		Split *SplitPlan `json:"split"`
	}
	var p SplitPlan
	if err := json.Unmarshal(data, &wrap); err == nil && wrap.Split != nil {
		p = *wrap.Split
	} else if err := json.Unmarshal(data, &p); err != nil {
		return p, err
	}
	if len(p.Commits) == 0 {
		return p, fmt.Errorf("the plan has no commits")
	}
	return p, nil
}

// TopoOrder returns the commit indexes in an order that puts every commit
// after its dependencies, keeping the plan's order where it is free.
func TopoOrder(cs []SplitCommit) ([]int, error) {
	n := len(cs)
	indeg := make([]int, n)
	next := make([][]int, n)
	for i, c := range cs {
		for _, d := range c.Dependencies {
			if d < 0 || d >= n {
				return nil, fmt.Errorf("commit %d depends on %d, which is not in the plan (0-based, %d commits)", i, d, n)
			}
			if d == i {
				return nil, fmt.Errorf("commit %d depends on itself", i)
			}
			indeg[i]++
			next[d] = append(next[d], i)
		}
	}
	var order, ready []int
	for i := range cs {
		if indeg[i] == 0 {
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		sort.Ints(ready)
		i := ready[0]
		ready = ready[1:]
		order = append(order, i)
		for _, j := range next[i] {
			if indeg[j]--; indeg[j] == 0 {
				ready = append(ready, j)
			}
		}
	}
	if len(order) != n {
		return nil, fmt.Errorf("the plan's dependencies form a cycle")
	}
	return order, nil
}

// manifests maps lock files to the manifests they belong with.
var manifests = map[string][]string{
	"cargo.lock": {"Cargo.toml"}, "package-lock.json": {"package.json"}, "yarn.lock": {"package.json"},
	"pnpm-lock.yaml": {"package.json"}, "bun.lock": {"package.json"}, "bun.lockb": {"package.json"},
	"go.sum": {"go.mod"}, "poetry.lock": {"pyproject.toml"}, "uv.lock": {"pyproject.toml"},
	"pipfile.lock": {"Pipfile"}, "composer.lock": {"composer.json"}, "gemfile.lock": {"Gemfile"},
	"flake.lock": {"flake.nix"}, "pubspec.lock": {"pubspec.yaml"}, "podfile.lock": {"Podfile"}, "mix.lock": {"mix.exs"},
	"gradle.lockfile": {"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"},
}

// SplitRun is a validated plan ready to execute: the plan as it will be
// made (hidden lock files attached), the execution order, each commit's
// patch as spans of the captured staged diff (read them with SpanReader),
// and warnings.
type SplitRun struct {
	Plan     SplitPlan
	Order    []int
	Patches  map[int][]Span
	Warnings []string
}

// PlanSplit validates a plan against the staged diff and returns, per commit
// in execution order, the patch to apply, plus warnings. Staged lock files
// the plan leaves out go with the commit that touches their manifest (same
// directory first, then any), else the last commit. Every message must pass
// lint with cfg. p itself is not changed.
func PlanSplit(p SplitPlan, files []FileDiff, cfg Config) (SplitRun, error) {
	p = p.Clone()
	var run SplitRun
	byPath := map[string]*FileDiff{}
	for i := range files {
		byPath[files[i].Path] = &files[i]
	}
	owner := map[string]int{}
	for i, c := range p.Commits {
		if probs := c.Check(cfg); probs != "" {
			return run, fmt.Errorf("commit %d (%q): %s", i, c.Render(), strings.ReplaceAll(probs, "\n", "; "))
		}
		if len(c.Changes) == 0 {
			return run, fmt.Errorf("commit %d has no changes", i)
		}
		for _, ch := range c.Changes {
			if byPath[ch.Path] == nil {
				return run, fmt.Errorf("commit %d: %s is not in the staged diff", i, ch.Path)
			}
			if o, ok := owner[ch.Path]; ok {
				if o == i {
					return run, fmt.Errorf("commit %d lists %s twice", i, ch.Path)
				}
				return run, fmt.Errorf("%s is in commits %d and %d; a file goes in one commit", ch.Path, o, i)
			}
			owner[ch.Path] = i
		}
	}
	order, err := TopoOrder(p.Commits)
	if err != nil {
		return run, err
	}
	// Hidden lock files join the commit of their manifest.
	for _, f := range files {
		if _, ok := owner[f.Path]; ok || !Excluded(f.Path) {
			continue
		}
		dir, base := path.Dir(f.Path), strings.ToLower(path.Base(f.Path))
		best := -1
		for _, m := range manifests[base] {
			if o, ok := owner[path.Join(dir, m)]; ok {
				best = o
				break
			}
		}
		if best < 0 {
			for pth, o := range owner {
				for _, m := range manifests[base] {
					if path.Base(pth) == m && (best < 0 || o < best) {
						best = o
					}
				}
			}
		}
		if best < 0 {
			best = order[len(order)-1]
		}
		p.Commits[best].Changes = append(p.Commits[best].Changes, Change{Path: f.Path, Kind: "all"})
		owner[f.Path] = best
	}
	patches := map[int][]Span{}
	var warnings []string
	for i, c := range p.Commits {
		for _, ch := range c.Changes {
			f := byPath[ch.Path]
			part, left, err := selectHunks(f, ch)
			if err != nil {
				return run, fmt.Errorf("commit %d: %v", i, err)
			}
			if len(left) > 0 {
				warnings = append(warnings, fmt.Sprintf("left staged: %s hunks %s", f.Path, joinInts(left)))
			}
			patches[i] = append(patches[i], part...)
		}
	}
	for _, f := range files {
		if _, ok := owner[f.Path]; !ok {
			warnings = append(warnings, "left staged: "+f.Path+" (in no commit of the plan)")
		}
	}
	return SplitRun{Plan: p, Order: order, Patches: patches, Warnings: warnings}, nil
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// selectHunks picks a file's patch section for a selector (as spans of the
// diff) and lists the 1-based hunks it leaves out.
func selectHunks(f *FileDiff, ch Change) ([]Span, []int, error) {
	switch ch.Kind {
	case "", "all":
		return []Span{{f.Off, f.Size}}, nil, nil
	case "indices", "lines":
	default:
		return nil, nil, fmt.Errorf("%s: unknown change kind %q (all, indices, lines)", f.Path, ch.Kind)
	}
	if f.Binary {
		return nil, nil, fmt.Errorf("cannot select hunks for binary file %s", f.Path)
	}
	if ch.Kind == "lines" && (ch.Start < 1 || ch.End < ch.Start) {
		return nil, nil, fmt.Errorf("%s: lines %d-%d: want 1 <= start <= end", f.Path, ch.Start, ch.End)
	}
	if ch.Kind == "indices" && len(ch.Indices) == 0 {
		return nil, nil, fmt.Errorf("%s: kind indices needs 1-based hunk numbers in indices", f.Path)
	}
	for _, x := range ch.Indices {
		if x < 1 || x > len(f.Hunks) {
			return nil, nil, fmt.Errorf("%s: hunk %d out of range 1..%d", f.Path, x, len(f.Hunks))
		}
	}
	spans := []Span{{f.Off, f.HeaderSize}}
	var left []int
	for _, h := range f.Hunks {
		var pick bool
		if ch.Kind == "indices" {
			pick = slices.Contains(ch.Indices, h.Index+1)
		} else {
			end := h.NewStart + h.NewLines - 1
			pick = h.NewStart <= ch.End && end >= ch.Start
		}
		if pick {
			spans = append(spans, Span{h.Off, h.Size})
		} else {
			left = append(left, h.Index+1)
		}
	}
	if len(spans) == 1 {
		return nil, nil, fmt.Errorf("no hunks selected for %s", f.Path)
	}
	return spans, left, nil
}
