package compact

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSummarize(t *testing.T) {
	user := json.RawMessage(`{"role":"user","content":"hello","timestamp":1}`)
	files := FileOps{Read: map[string]bool{"a.go": true}, Written: map[string]bool{}, Edited: map[string]bool{"b.go": true}}
	none := FileOps{Read: map[string]bool{}, Written: map[string]bool{}, Edited: map[string]bool{}}
	tests := []struct {
		name    string
		plan    Plan
		answers []string // what ask answers, in turn
		want    string
		asked   int
	}{
		{"history", Plan{Summarize: []json.RawMessage{user}, Files: none}, []string{"S"}, "S", 1},
		{"history and a split turn", Plan{Summarize: []json.RawMessage{user}, SplitTurn: true, TurnPrefix: []json.RawMessage{user}, Files: none},
			[]string{"S", "P"}, MergeSplit("S", "P"), 2},
		{"the previous summary, nothing new", Plan{PreviousSummary: "old", Files: none}, nil, "old", 0},
		{"no history", Plan{Files: none}, nil, NoHistory, 0},
		{"file lists", Plan{Summarize: []json.RawMessage{user}, Files: files}, []string{"S"}, UpsertFileLists("S", []string{"a.go"}, []string{"b.go"}), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prompts []string
			got, err := Summarize(tt.plan, "focus", func(p string) (string, error) {
				prompts = append(prompts, p)
				return tt.answers[len(prompts)-1], nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("summary (-want +got):\n%s", d)
			}
			if len(prompts) != tt.asked {
				t.Errorf("asked %d times, want %d", len(prompts), tt.asked)
			}
			if len(prompts) > 0 && !strings.Contains(prompts[0], "hello") {
				t.Errorf("the prompt does not hold the conversation: %s", prompts[0])
			}
		})
	}
	if _, err := Summarize(Plan{Summarize: []json.RawMessage{user}}, "", func(string) (string, error) { return "", errors.New("down") }); err == nil {
		t.Error("a failed ask: no error")
	}
}

func TestRecords(t *testing.T) {
	plan := Plan{FirstKeptEntryID: "k", TokensBefore: 1200,
		Files: FileOps{Read: map[string]bool{"a.go": true}, Written: map[string]bool{"c.go": true}, Edited: map[string]bool{}}}
	got := string(CompactionRecord("i", "p", "2026-01-01T00:00:00.000Z", "S", plan))
	want := `{"type":"compaction","id":"i","parentId":"p","timestamp":"2026-01-01T00:00:00.000Z","summary":"S","firstKeptEntryId":"k","tokensBefore":1200,` +
		`"details":{"modifiedFiles":["c.go"],"readFiles":["a.go"]},"pending":true}`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("CompactionRecord (-want +got):\n%s", d)
	}
	none := FileOps{Read: map[string]bool{}, Written: map[string]bool{}, Edited: map[string]bool{}}
	got = string(BranchSummaryRecord("i", nil, "t", "root", "S", none))
	want = `{"type":"branch_summary","id":"i","parentId":null,"timestamp":"t","fromId":"root","summary":"S","details":{"modifiedFiles":[],"readFiles":[]},"pending":true}`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("BranchSummaryRecord (-want +got):\n%s", d)
	}
}
