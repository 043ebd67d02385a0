package commit

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTopoOrder(t *testing.T) {
	deps := func(ds ...[]int) []SplitCommit {
		cs := make([]SplitCommit, len(ds))
		for i, d := range ds {
			cs[i].Dependencies = d
		}
		return cs
	}
	tests := []struct {
		cs   []SplitCommit
		want []int
		err  bool
	}{
		{deps(nil, nil, nil), []int{0, 1, 2}, false},
		{deps([]int{2}, nil, []int{1}), []int{1, 2, 0}, false},
		{deps([]int{1}, []int{0}), nil, true},
		{deps([]int{0}), nil, true},
		{deps([]int{5}), nil, true},
	}
	for _, tt := range tests {
		got, err := TopoOrder(tt.cs)
		if (err != nil) != tt.err {
			t.Errorf("TopoOrder err = %v, want error %v", err, tt.err)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Error(d)
		}
	}
}

func TestAnalysisRender(t *testing.T) {
	a, err := ParseAnalysis("```json\n{\"type\":\"feat\",\"scope\":\"api\",\"summary\":\"drop v1\",\"details\":[\"Removed v1.\"],\"breaking\":\"v1 is gone.\"}\n```")
	if err != nil {
		t.Fatal(err)
	}
	want := "feat(api)!: drop v1\n\n- Removed v1.\n\nBREAKING CHANGE: v1 is gone."
	if d := cmp.Diff(want, a.Render()); d != "" {
		t.Error(d)
	}
	if p := a.Check(Conventional()); p != "" {
		t.Errorf("Check = %q", p)
	}
	if _, err := ParseAnalysis("no json"); err == nil {
		t.Error("want error")
	}
}

func FuzzParseSplitPlan(f *testing.F) {
	f.Add(`{"commits":[{"type":"fix","summary":"a","changes":[{"path":"x","kind":"all"}],"dependencies":[0]}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseSplitPlan([]byte(s))
		if err != nil {
			return
		}
		order, err := TopoOrder(p.Commits)
		if err == nil && len(order) != len(p.Commits) {
			t.Fatal("order length")
		}
		files := ParseDiff("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")
		PlanSplit(p, files, Conventional())
	})
}

func TestMapFiles(t *testing.T) {
	mk := func(paths ...string) []FileDiff {
		var fs []FileDiff
		for _, p := range paths {
			fs = append(fs, FileDiff{Path: p, Header: "diff --git a/" + p + " b/" + p + "\n"})
		}
		return fs
	}
	if _, big := MapFiles(mk("a", "b", "c", "go.sum")); big {
		t.Error("3 files plus a lock file: not big")
	}
	if fs, big := MapFiles(mk("a", "b", "c", "d", "go.sum")); !big || len(fs) != 4 {
		t.Errorf("4 files: big=%v n=%d", big, len(fs))
	}
	huge := mk("a")
	huge[0].Hunks = []Hunk{{Content: strings.Repeat("+x\n", MapReduceMaxFileToken*2)}}
	if _, big := MapFiles(huge); !big {
		t.Error("one huge file: big")
	}
	if p := MapPrompt(huge[0]); len(p) > MapReduceMaxFileToken*4+200 {
		t.Errorf("map prompt not cut: %d", len(p))
	}
}
