package commit

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentutils/agentutils/lib/llm"
)

// The split planner (commit.md §3.3, §3.4): the model looks at the captured
// staged diff through read-only tools and finishes with split_commit; every
// tool answers from the capture, so what the model sees is what gets
// committed. The loop itself lives in the command; this is the pure part.

// SplitAgentMaxTurns bounds the model calls of one planning run.
const SplitAgentMaxTurns = 16

// SplitReminders is how often a model that stops without a valid plan is
// reminded to call split_commit (the reference's reminder loop).
const SplitReminders = 3

// fileDiffBudget is the git_file_diff budget in characters (30,000 tokens),
// and fileDiffCap the lines one file diff keeps (first 300, last 100) when
// the budget runs short (commit.md §6.9 item 10).
const (
	fileDiffBudget = 120000
	fileDiffHead   = 300
	fileDiffTail   = 100
)

// SplitSystemPrompt tells the model how to plan.
const SplitSystemPrompt = `You split staged git changes into a series of atomic commits (Conventional Commits).
Look at the changes with the tools, then finish by calling split_commit exactly once with a valid plan.

Rules:
- Group the changes by concern: each commit does one thing and builds on its own. Unrelated changes go in
  separate commits; a single concern may be one commit.
- A file goes in exactly one commit. Use {"path","kind":"all"} normally. {"kind":"indices","indices":[..]}
  (1-based hunk numbers from git_hunk) or {"kind":"lines","start":N,"end":M} (new-side line range) commit only
  part of a file; the hunks left out stay staged for later.
- Every staged file in the overview must be in the plan. Lock files (go.sum, package-lock.json, ...) are
  hidden from you and join the commit that touches their manifest automatically.
- "dependencies" lists the 0-based indexes of the commits this one needs (a commit that uses a function
  depends on the commit that adds it). The commits are made in dependency order.
- Messages: type is one of build, chore, ci, docs, feat, fix, perf, refactor, revert, style, test; scope is
  optional, one or two lowercase segments; summary is lowercase, at most 72 characters, no trailing period;
  details are short sentences ending with a period (at most 6).
- If split_commit answers valid:false, fix the listed problems and call it again.
- Use few tool calls: git_file_diff for up to 10 files at a time, git_hunk only to see hunk numbers.`

// SplitTools are the tools the planner offers the model.
func SplitTools() []llm.Tool {
	return []llm.Tool{
		{Name: "git_overview", Description: "The staged files with their status, added/deleted line counts, hunk counts and scope candidates. Lock files are listed as excluded.",
			Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Name: "git_file_diff", Description: "The staged diff of up to 10 files, from the captured staged diff. Long diffs are shortened only when the 120,000-character budget runs out.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"files":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":10,"description":"repository-relative paths"}},"required":["files"]}`)},
		{Name: "git_hunk", Description: "The hunks of one staged file, each with its 1-based number (use it in indices selectors) and its new-side line range.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"file":{"type":"string"},"hunks":{"type":"array","items":{"type":"integer","minimum":1},"description":"1-based hunk numbers; all when omitted"}},"required":["file"]}`)},
		{Name: "split_commit", Description: "Finish: the plan of commits. Dependencies are 0-based commit indexes; hunk indices are 1-based.",
			Parameters: json.RawMessage(splitCommitSchema)},
	}
}

const splitCommitSchema = `{"type":"object","required":["commits"],"properties":{"commits":{"type":"array","minItems":1,"items":{
"type":"object","required":["type","summary","changes"],"properties":{
"type":{"type":"string","enum":["build","chore","ci","docs","feat","fix","perf","refactor","revert","style","test"]},
"scope":{"type":"string","description":"one or two lowercase segments, or empty"},
"summary":{"type":"string","description":"lowercase, at most 72 characters, no trailing period"},
"details":{"type":"array","items":{"type":"string"},"maxItems":6,"description":"sentences ending with a period"},
"breaking":{"type":"string","description":"the incompatible change, or empty"},
"changes":{"type":"array","minItems":1,"items":{"type":"object","required":["path","kind"],"properties":{
"path":{"type":"string"},"kind":{"type":"string","enum":["all","indices","lines"]},
"indices":{"type":"array","items":{"type":"integer","minimum":1},"description":"1-based hunk numbers (kind indices)"},
"start":{"type":"integer","minimum":1},"end":{"type":"integer","minimum":1}}}},
"dependencies":{"type":"array","items":{"type":"integer","minimum":0},"description":"0-based indexes of the commits this one needs"},
"rationale":{"type":"string"}}}}}}`

// SplitAgent answers the planner's tool calls from the captured staged diff.
type SplitAgent struct {
	Files []FileDiff
	Cfg   Config
	Plan  *SplitPlan // the last valid split_commit, once there is one
}

// Overview is git_overview's answer.
type Overview struct {
	Files           []OverviewFile `json:"files"`
	Excluded        []string       `json:"excludedFiles,omitempty"`
	ScopeCandidates []string       `json:"scopeCandidates"`
	Wide            bool           `json:"isWideScope"`
	Pattern         string         `json:"crossCutting,omitempty"`
}

// OverviewFile is one staged file in the overview.
type OverviewFile struct {
	Path      string `json:"path"`
	OldPath   string `json:"oldPath,omitempty"`
	Status    string `json:"status"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	Hunks     int    `json:"hunks"`
	Binary    bool   `json:"binary,omitempty"`
}

// Overview lists the staged files (lock files apart) and scope candidates.
func (a *SplitAgent) Overview() Overview {
	o := Overview{Files: []OverviewFile{}, ScopeCandidates: []string{}}
	var ns []NumstatEntry
	for _, f := range a.Files {
		if Excluded(f.Path) {
			o.Excluded = append(o.Excluded, f.Path)
			continue
		}
		o.Files = append(o.Files, OverviewFile{f.Path, f.OldPath, f.Status, f.Additions, f.Deletions, len(f.Hunks), f.Binary})
		ns = append(ns, NumstatEntry{Path: f.Path, Additions: f.Additions, Deletions: f.Deletions})
	}
	cands, wide, pattern := Scopes(ns)
	for _, c := range topScopes(cands) {
		o.ScopeCandidates = append(o.ScopeCandidates, fmt.Sprintf("%s (%.0f%%)", c.Scope, c.Percent))
	}
	o.Wide, o.Pattern = wide, pattern
	return o
}

// SplitUserPrompt is the first user message: the task, the user's context
// and the overview, so the model can start reading diffs at once.
func (a *SplitAgent) SplitUserPrompt(userContext string) string {
	var b strings.Builder
	b.WriteString("Split the staged changes into atomic commits and finish with split_commit.\n\n")
	if userContext != "" {
		fmt.Fprintf(&b, "Context from the author:\n%s\n\n", userContext)
	}
	ov, _ := json.MarshalIndent(a.Overview(), "", "  ")
	fmt.Fprintf(&b, "git_overview:\n%s\n", ov)
	return b.String()
}

// file finds a staged file by path; "./x" and the diff's "b/x" name it too
// when no file is called that.
func (a *SplitAgent) file(p string) *FileDiff {
	for _, q := range []string{p, strings.TrimPrefix(p, "./"), strings.TrimPrefix(p, "b/")} {
		for i := range a.Files {
			if a.Files[i].Path == q {
				return &a.Files[i]
			}
		}
	}
	return nil
}

// Call runs one tool call and returns its text result and whether it is an
// error result. A valid split_commit sets a.Plan.
func (a *SplitAgent) Call(name string, args json.RawMessage) (string, bool) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	switch name {
	case "git_overview":
		b, _ := json.MarshalIndent(a.Overview(), "", "  ")
		return string(b), false
	case "git_file_diff":
		var in struct {
			Files []string `json:"files"`
		}
		if err := json.Unmarshal(args, &in); err != nil || len(in.Files) == 0 {
			return "git_file_diff needs {\"files\": [\"path\", ...]}", true
		}
		if len(in.Files) > 10 {
			in.Files = in.Files[:10]
		}
		return a.fileDiffs(in.Files), false
	case "git_hunk":
		var in struct {
			File  string `json:"file"`
			Hunks []int  `json:"hunks"`
		}
		if err := json.Unmarshal(args, &in); err != nil || in.File == "" {
			return "git_hunk needs {\"file\": \"path\"}", true
		}
		return a.hunks(in.File, in.Hunks), false
	case "split_commit":
		return a.splitCommit(args), false
	}
	return fmt.Sprintf("unknown tool %q (have git_overview, git_file_diff, git_hunk, split_commit)", name), true
}

func (a *SplitAgent) fileDiffs(paths []string) string {
	type item struct {
		path string
		f    *FileDiff
		prio int
	}
	var items []item
	for _, p := range paths {
		f := a.file(p)
		items = append(items, item{p, f, filePriority(p)})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].prio > items[j].prio })
	budget := fileDiffBudget
	var parts, skipped []string
	for _, it := range items {
		var d string
		switch {
		case it.f == nil:
			d = "(not in the staged diff)"
		case Excluded(it.f.Path):
			d = "(lock file: not shown; it is committed with its manifest)"
		case it.f.Binary:
			d = "(binary file)"
		default:
			d = fileText(*it.f)
		}
		if budget <= 0 {
			skipped = append(skipped, it.path)
			continue
		}
		if len(d) > budget {
			d = capLines(d, fileDiffHead, fileDiffTail)
			if len(d) > budget {
				d = d[:budget] + "\n... (diff truncated due to size) ...\n"
			}
		}
		budget -= len(d)
		parts = append(parts, "=== "+it.path+" ===\n"+strings.TrimRight(d, "\n"))
	}
	if len(skipped) > 0 {
		parts = append(parts, "(budget used up; not shown: "+strings.Join(skipped, ", ")+"; ask for them in another call)")
	}
	return strings.Join(parts, "\n\n")
}

// capLines keeps the first head and last tail lines of s around a marker.
func capLines(s string, head, tail int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) <= head+tail {
		return s
	}
	return strings.Join(ls[:head], "\n") + fmt.Sprintf("\n... (truncated %d lines) ...\n", len(ls)-head-tail) + strings.Join(ls[len(ls)-tail:], "\n") + "\n"
}

// filePriority orders git_file_diff's files as the reference does: code
// first, binaries last.
func filePriority(p string) int {
	low := strings.ToLower(p)
	ext := low[strings.LastIndex(low, ".")+1:]
	base := low[strings.LastIndex(low, "/")+1:]
	switch {
	case strings.Contains(" png jpg jpeg gif ico woff woff2 ttf eot pdf zip tar gz exe dll so dylib ", " "+ext+" "):
		return -100
	case strings.Contains(low, "/test/") || strings.Contains(low, "/tests/") || strings.Contains(low, "/__tests__/") ||
		strings.Contains(low, "_test.") || strings.Contains(low, ".test.") || strings.Contains(low, ".spec.") || strings.Contains(low, "_spec."):
		return 10
	case strings.Contains(" cargo.toml package.json go.mod pyproject.toml requirements.txt gemfile build.gradle pom.xml ", " "+base+" "):
		return 70
	case strings.Contains(" md txt json yaml yml toml xml csv ", " "+ext+" "):
		return 20
	case strings.Contains(" sh bash zsh sql ", " "+ext+" "):
		return 80
	case strings.Contains(" rs go py js ts tsx jsx java c cpp h hpp ", " "+ext+" "):
		return 100
	}
	return 50
}

func (a *SplitAgent) hunks(path string, want []int) string {
	f := a.file(path)
	switch {
	case f == nil:
		return path + " is not in the staged diff"
	case f.Binary:
		return "Binary file diff; no hunks available."
	}
	var parts []string
	for _, h := range f.Hunks {
		n := h.Index + 1
		if len(want) > 0 && !slices.Contains(want, n) {
			continue
		}
		end := h.NewStart + h.NewLines - 1
		if h.NewLines == 0 {
			end = h.NewStart
		}
		parts = append(parts, fmt.Sprintf("Hunk %d (new lines %d-%d):\n%s", n, h.NewStart, end, h.Content))
	}
	if len(parts) == 0 {
		return "(no matching hunks)"
	}
	return strings.Join(parts, "\n\n")
}

// SplitVerdict is split_commit's answer.
type SplitVerdict struct {
	Valid    bool     `json:"valid"`
	Errors   []string `json:"errors"`
	Warnings []string `json:"warnings"`
	Order    []int    `json:"order,omitempty"`
}

func (a *SplitAgent) splitCommit(args json.RawMessage) string {
	v := SplitVerdict{Errors: []string{}, Warnings: []string{}}
	p, err := ParseSplitPlan(args)
	if err != nil {
		v.Errors = append(v.Errors, "the arguments are not a plan: "+err.Error())
	} else {
		v.Errors, v.Warnings, v.Order = a.Validate(p)
		if len(v.Errors) == 0 {
			v.Valid = true
			a.Plan = &p
		}
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// Validate checks a model-made plan: everything PlanSplit checks, plus
// that every staged file (lock files apart) is in it. It returns the
// errors, warnings and the execution order.
func (a *SplitAgent) Validate(p SplitPlan) (errs, warnings []string, order []int) {
	errs = []string{}
	seen := map[string]bool{}
	for _, c := range p.Commits {
		for _, ch := range c.Changes {
			seen[strings.TrimPrefix(ch.Path, "./")] = true
		}
	}
	for _, f := range a.Files {
		if !seen[f.Path] && !Excluded(f.Path) {
			errs = append(errs, "Staged file missing from split plan: "+f.Path)
		}
	}
	run, err := PlanSplit(p, a.Files, a.Cfg)
	if err != nil {
		errs = append(errs, err.Error())
	}
	warnings = append([]string{}, run.Warnings...)
	return errs, warnings, run.Order
}

// Clone copies a plan deeply, so PlanSplit's additions (lock files) do not
// reach the original.
func (p SplitPlan) Clone() SplitPlan {
	out := SplitPlan{Commits: make([]SplitCommit, len(p.Commits))}
	for i, c := range p.Commits {
		c.Changes = append([]Change(nil), c.Changes...)
		c.Dependencies = append([]int(nil), c.Dependencies...)
		c.Details = append([]string(nil), c.Details...)
		out.Commits[i] = c
	}
	return out
}

// SplitReminder is the user message sent when the model stops without a
// valid plan.
func SplitReminder(k int) string {
	return fmt.Sprintf("<system-reminder>\nYou must finish by calling split_commit with a valid plan (commit proposal missing). Reminder %d of %d.\n</system-reminder>", k, SplitReminders)
}
