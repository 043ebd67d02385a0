package compact

import (
	"encoding/json"

	"github.com/agentutils/agentutils/lib/session"
)

// Summarize is the summary of plan: the history (updating a previous
// summary), plus the prefix of a split turn, each asked of ask (a model, or
// a summarizer command) with the reference's prompts; the read and
// modified files are listed at its end.
func Summarize(plan Plan, instructions string, ask func(prompt string) (string, error)) (string, error) {
	conv := func(msgs []json.RawMessage) string { return Serialize(session.ConvertToLLM(msgs)) }
	var summary string
	var err error
	switch {
	case len(plan.Summarize) > 0:
		summary, err = ask(HistoryPrompt(conv(plan.Summarize), plan.PreviousSummary, instructions))
	case plan.PreviousSummary != "":
		summary = plan.PreviousSummary
	default:
		summary = NoHistory
	}
	if err != nil {
		return "", err
	}
	if plan.SplitTurn && len(plan.TurnPrefix) > 0 {
		prefix, err := ask(TurnPrefixPrompt(conv(plan.TurnPrefix)))
		if err != nil {
			return "", err
		}
		summary = MergeSplit(summary, prefix)
	}
	read, mod := plan.Files.Lists()
	return UpsertFileLists(summary, read, mod), nil
}

// CompactionRecord is the pending compaction entry of plan with its
// summary (Summarize's), a child of parent ("" for a root).
func CompactionRecord(id, parent, timestamp, summary string, plan Plan) []byte {
	read, mod := plan.Files.Lists()
	b, _ := json.Marshal(struct {
		Type             string `json:"type"`
		ID               string `json:"id"`
		ParentID         string `json:"parentId"`
		Timestamp        string `json:"timestamp"`
		Summary          string `json:"summary"`
		FirstKeptEntryID string `json:"firstKeptEntryId"`
		TokensBefore     int    `json:"tokensBefore"`
		Details          any    `json:"details"`
		Pending          bool   `json:"pending"`
	}{"compaction", id, parent, timestamp, summary, plan.FirstKeptEntryID, plan.TokensBefore,
		map[string][]string{"readFiles": nonNil(read), "modifiedFiles": nonNil(mod)}, true})
	return b
}

// BranchSummaryRecord is the pending branch_summary entry for leaving the
// branch from (its leaf id, or "root") with summary, a child of parent
// (nil for a root), listing the files the branch read and modified.
func BranchSummaryRecord(id string, parent *string, timestamp, from, summary string, files FileOps) []byte {
	read, mod := files.Lists()
	b, _ := json.Marshal(struct {
		Type      string              `json:"type"`
		ID        string              `json:"id"`
		ParentID  *string             `json:"parentId"`
		Timestamp string              `json:"timestamp"`
		FromID    string              `json:"fromId"`
		Summary   string              `json:"summary"`
		Details   map[string][]string `json:"details"`
		Pending   bool                `json:"pending"`
	}{"branch_summary", id, parent, timestamp, from, summary, map[string][]string{"readFiles": nonNil(read), "modifiedFiles": nonNil(mod)}, true})
	return b
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
