package compact

import (
	"encoding/json"
	"math"

	"github.com/agentutils/agentutils/lib/session"
)

// Plan is what a compaction will do (prepareCompaction, §4.5); agent-compact
// --dry-run prints it.
type Plan struct {
	FirstKeptEntryID string            `json:"firstKeptEntryId"`
	FirstKept        int               `json:"firstKeptIndex"`
	TurnStart        int               `json:"turnStartIndex"`
	SplitTurn        bool              `json:"splitTurn"`
	TokensBefore     int               `json:"tokensBefore"`
	KeepTokens       int               `json:"keepTokens"`
	Summarize        []json.RawMessage `json:"-"`
	TurnPrefix       []json.RawMessage `json:"-"`
	Kept             []json.RawMessage `json:"-"`
	PreviousSummary  string            `json:"previousSummary,omitempty"`
	Files            FileOps           `json:"-"`
	// For the plan's readers: counts and estimates.
	SummarizeMessages int `json:"summarizeMessages"`
	TurnPrefixCount   int `json:"turnPrefixMessages"`
	KeptMessages      int `json:"keptMessages"`
	KeptTokens        int `json:"keptTokensEstimate"`
}

type usage struct {
	Input, Output, CacheRead, CacheWrite, TotalTokens int
}

func (u usage) context() int {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

func (u usage) prompt() int {
	if p := u.Input + u.CacheRead + u.CacheWrite; p > 0 {
		return p
	}
	return u.context()
}

// LastUsage is the usage of the newest assistant message on the path that
// did not end in an error or abort.
func LastUsage(path []Entry) (usage, bool) {
	for i := len(path) - 1; i >= 0; i-- {
		e := path[i]
		if e.Type != "message" || e.info.role != "assistant" || e.info.usage == nil || e.info.stopReason == "error" || e.info.stopReason == "aborted" {
			continue
		}
		var u usage
		if json.Unmarshal(e.info.usage, &u) == nil && u.context() > 0 { // all zeros: no usage (imported rollouts)
			return u, true
		}
	}
	return usage{}, false
}

// ContextTokens is what the threshold test counts: the last usage (§4.3).
// A path without usage (a session imported from Codex has none) is
// estimated instead, as the context BuildContext resolves: the newest
// compaction's summary and kept entries, and everything after it.
func ContextTokens(path []Entry) int {
	if u, ok := LastUsage(path); ok {
		return u.context()
	}
	return EstimateContext(path)
}

// EstimateContext is the chars/4 estimate of the context path resolves to.
func EstimateContext(path []Entry) int {
	from, total := 0, 0
	if c, kept, _ := lastCompaction(path); c >= 0 {
		total = int(math.Ceil(float64(max(0, session.StrLen(session.MemberVals(path[c].Raw, "summary")[0]))) / 4))
		from = c + 1
		if kept >= 0 {
			for _, e := range path[kept:c] {
				total += e.Tokens
			}
		}
	}
	for _, e := range path[from:] {
		total += e.Tokens
	}
	return total
}

// OverThreshold is the reference's test: tokens > window − max(15%, reserve).
func OverThreshold(tokens, window, reserve int) bool {
	if window <= 0 {
		return false
	}
	return tokens > window-max(window*15/100, reserve)
}

// Prepare plans a compaction of path (the active path, root first). It
// reports false when there is nothing to do (the path is empty, already
// ends in a compaction, or fits in the kept part).
func Prepare(path []Entry, s Settings) (Plan, bool) {
	if len(path) == 0 || path[len(path)-1].Type == "compaction" {
		return Plan{}, false
	}
	prev := -1
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == "compaction" {
			prev = i
			break
		}
	}
	start := prev + 1
	p := Plan{KeepTokens: s.KeepRecentTokens}
	p.TokensBefore = ContextTokens(path)
	if u, ok := LastUsage(path); ok {
		est := 0
		for _, e := range path[start:] {
			est += e.Tokens
		}
		if est > 0 {
			if ratio := float64(u.prompt()) / float64(est); ratio > 1 && !math.IsInf(ratio, 0) {
				p.KeepTokens = max(1, int(float64(s.KeepRecentTokens)/ratio))
			}
		}
	}
	cut := FindCutPoint(path, start, len(path), p.KeepTokens)
	if cut.FirstKept >= len(path) || path[cut.FirstKept].ID == "" {
		return Plan{}, false
	}
	p.FirstKept, p.TurnStart, p.SplitTurn = cut.FirstKept, cut.TurnStart, cut.Split
	p.FirstKeptEntryID = path[cut.FirstKept].ID
	historyEnd := cut.FirstKept
	if cut.Split {
		historyEnd = cut.TurnStart
	}
	collect := func(from, to int) []json.RawMessage {
		var out []json.RawMessage
		for _, e := range path[from:to] {
			if e.Message != nil {
				out = append(out, e.Message)
			}
		}
		return out
	}
	p.Summarize = collect(start, historyEnd)
	if cut.Split {
		p.TurnPrefix = collect(cut.TurnStart, cut.FirstKept)
	}
	if len(p.Summarize) == 0 && len(p.TurnPrefix) == 0 {
		return Plan{}, false // the kept part is the whole path: nothing to summarize
	}
	p.Kept = collect(cut.FirstKept, len(path))
	var prevDetails json.RawMessage
	if prev >= 0 {
		var c struct {
			Summary       string          `json:"summary"`
			Details       json.RawMessage `json:"details"`
			FromExtension bool            `json:"fromExtension"`
		}
		json.Unmarshal(path[prev].Raw, &c)
		p.PreviousSummary = c.Summary
		if !c.FromExtension {
			prevDetails = c.Details
		}
	}
	p.Files = NewFileOps(prevDetails)
	for _, e := range path[start:cut.FirstKept] { // the summarized part and the turn prefix
		if e.Message != nil && e.info.role == "assistant" {
			p.Files.add(e.info.files)
		}
	}
	p.SummarizeMessages, p.TurnPrefixCount, p.KeptMessages = len(p.Summarize), len(p.TurnPrefix), len(p.Kept)
	for _, e := range path[cut.FirstKept:] {
		p.KeptTokens += e.Tokens
	}
	return p, true
}
