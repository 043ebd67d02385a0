package commit

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Analysis is what the model returns for a staged diff (commit.md §2.6):
// the message in parts, validated before it is rendered.
type Analysis struct {
	Type     string   `json:"type"`
	Scope    string   `json:"scope,omitempty"`
	Summary  string   `json:"summary"`
	Details  []string `json:"details,omitempty"`
	Breaking string   `json:"breaking,omitempty"` // the BREAKING CHANGE text; "" when none
	// Changelog holds entries per changelog path and category, when they
	// were asked for (commit without --no-changelog).
	Changelog map[string]map[string][]string `json:"changelog,omitempty"`
}

// DiffBudget is the most diff text sent to the model (commit.md §6.9 item 12).
const DiffBudget = 120000

// MsgSystemPrompt asks for the analysis as one JSON object.
const MsgSystemPrompt = `You write git commit messages in the Conventional Commits format.
Read the staged diff and answer with ONE JSON object and nothing else:
{"type": "...", "scope": "...", "summary": "...", "details": ["..."], "breaking": ""}
- type: one of build, chore, ci, docs, feat, fix, perf, refactor, revert, style, test.
- scope: optional; one or two lowercase segments such as "parser" or "api/auth"; "" when unclear.
- summary: imperative or past tense, lowercase first word, at most 72 characters, no trailing period.
- details: up to 6 short sentences ending with a period, for what a reviewer needs to know; [] for small changes.
- breaking: a sentence describing an incompatible change, or "" when there is none.`

// ScopeHint is the scope analysis of a change (Scopes' results).
type ScopeHint struct {
	Cands   []ScopeCandidate
	Wide    bool
	Pattern string
}

// prompt says what the scope analysis found, as the reference's scope
// candidates text does: the top 5 candidates of at least 10%, or for a wide
// change its cross-cutting pattern or no scope.
func (h ScopeHint) prompt() string {
	switch {
	case h.Wide && h.Pattern != "":
		return fmt.Sprintf("Scope candidates: (cross-cutting: %s) - the change spans several components.\n\n", h.Pattern)
	case h.Wide:
		return "Scope candidates: (none - multi-component change) - leave the scope empty.\n\n"
	}
	var b strings.Builder
	for i, c := range topScopes(h.Cands) {
		conf := "high confidence"
		if !c.High {
			conf = "moderate confidence"
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%.0f%%, %s)", c.Scope, c.Percent, conf)
	}
	if b.Len() == 0 {
		return ""
	}
	return "Scope candidates (share of changed lines): " + b.String() + "\nPrefer a two-segment scope marked high confidence.\n\n"
}

// topScopes are the candidates the prompts show, as the reference does: the
// first 5 in Scopes' order, stopping at the first under 10%.
func topScopes(cands []ScopeCandidate) []ScopeCandidate {
	for i, c := range cands {
		if i == 5 || c.Percent < 10 {
			return cands[:i]
		}
	}
	return cands
}

// MsgPrompt assembles the user prompt: optional context from the user, the
// scope candidates, the excluded lock files by name, and the diff of the
// other files cut to DiffBudget characters.
func MsgPrompt(files []FileDiff, scopes ScopeHint, userContext string) string {
	var b strings.Builder
	if userContext != "" {
		fmt.Fprintf(&b, "Context from the author:\n%s\n\n", userContext)
	}
	b.WriteString(scopes.prompt())
	var excluded []string
	var diff strings.Builder
	rest := 0 // characters left out once the budget is used
	for _, f := range files {
		if Excluded(f.Path) {
			excluded = append(excluded, f.Path)
			continue
		}
		if diff.Len() > DiffBudget {
			rest += diffSize(f)
			continue
		}
		diff.WriteString(fileText(f))
	}
	if len(excluded) > 0 {
		fmt.Fprintf(&b, "Lock files changed (diff not shown): %s\n\n", strings.Join(excluded, ", "))
	}
	d := diff.String()
	if len(d) > DiffBudget || rest > 0 {
		cut := len(d)
		if cut > DiffBudget {
			cut = strings.LastIndex(d[:DiffBudget], "\n") + 1
		}
		d = d[:cut] + fmt.Sprintf("... (truncated %d characters) ...\n", len(d)-cut+rest)
	}
	b.WriteString("Staged diff:\n")
	b.WriteString(d)
	return b.String()
}

// ParseAnalysis reads the model's answer: a JSON object, possibly inside a
// ```json fence or surrounded by prose; else, from a model that answers
// with the commit message itself, that message (see fromMessage).
func ParseAnalysis(text string) (Analysis, error) {
	var a Analysis
	i, j := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if i < 0 || j < i {
		if a, ok := fromMessage(text); ok {
			return a, nil
		}
		return a, fmt.Errorf("the answer holds neither a JSON object nor a conventional commit message (type(scope): subject)")
	}
	if err := json.Unmarshal([]byte(text[i:j+1]), &a); err != nil {
		return a, fmt.Errorf("the answer is not the analysis JSON: %v", err)
	}
	a.Type = strings.TrimSpace(a.Type)
	a.Scope = strings.TrimSpace(a.Scope)
	a.Summary = strings.TrimSpace(a.Summary)
	a.Breaking = strings.TrimSpace(a.Breaking)
	return a, nil
}

// fromMessage reads a plain-text answer as a commit message: its first
// line that is a conventional header (out of a ``` fence, after any prose), body lines
// starting "- " or "* " the details (other lines joined to the detail
// before them), a BREAKING CHANGE footer the breaking text. ok is false
// when no line is a conventional header; the result is checked as any
// answer is (Check lints the rendered message).
func fromMessage(text string) (a Analysis, ok bool) {
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "```") {
			lines = append(lines, strings.TrimRight(l, " \t"))
		}
	}
	var typ, scope, subject string
	var bang bool
	for len(lines) > 0 && !ok {
		typ, scope, bang, subject, ok = matchHeader(strings.TrimSpace(lines[0]))
		ok = ok && typ != "" && strings.TrimSpace(subject) != ""
		if !ok {
			lines = lines[1:] // prose before the message ("Here it is:")
		}
	}
	if !ok {
		return a, false
	}
	a = Analysis{Type: typ, Scope: scope, Summary: strings.TrimSpace(subject)}
	for _, l := range lines[1:] {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
		case strings.HasPrefix(t, "BREAKING CHANGE:") || strings.HasPrefix(t, "BREAKING-CHANGE:"):
			a.Breaking = strings.TrimSpace(t[len("BREAKING CHANGE:"):])
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
			a.Details = append(a.Details, strings.TrimSpace(t[2:]))
		case a.Breaking != "":
			a.Breaking += " " + t
		case len(a.Details) > 0:
			a.Details[len(a.Details)-1] += " " + t
		default:
			a.Details = append(a.Details, t)
		}
	}
	if bang && a.Breaking == "" {
		a.Breaking = a.Summary
	}
	return a, true
}

// Render writes the message: header, details as "- " bullets, and a
// BREAKING CHANGE footer (with "!" in the header) for a breaking change.
func (a Analysis) Render() string {
	var b strings.Builder
	b.WriteString(a.Type)
	if a.Scope != "" {
		b.WriteString("(" + a.Scope + ")")
	}
	if a.Breaking != "" {
		b.WriteString("!")
	}
	b.WriteString(": " + a.Summary)
	if len(a.Details) > 0 {
		b.WriteString("\n\n")
		for i, d := range a.Details {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString("- " + strings.TrimSpace(d))
		}
	}
	if a.Breaking != "" {
		b.WriteString("\n\nBREAKING CHANGE: " + a.Breaking)
	}
	return b.String()
}

// Check validates an analysis: the rendered message must pass lint with cfg
// and the scope must be well formed. It returns the problems to send back
// to the model ("" when it is fine).
func (a Analysis) Check(cfg Config) string {
	var probs []string
	if !ValidScope(a.Scope) {
		probs = append(probs, "scope must be one or two lowercase segments separated by /")
	}
	r := Lint(a.Render(), cfg)
	for _, p := range r.Errors {
		probs = append(probs, fmt.Sprintf("%s [%s]", p.Message, p.Rule))
	}
	return strings.Join(probs, "\n")
}
