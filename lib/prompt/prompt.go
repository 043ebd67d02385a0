// Package prompt assembles agent-chat's system prompt from values: the
// tools, the environment, the context files (AGENTS.md, CLAUDE.md), the
// SYSTEM.md / APPEND_SYSTEM.md texts, skills, rules and prompt templates.
// Finding and reading those files is internal/contextfiles' job; this
// package never touches the file system, the clock or the environment, so
// the same Input always gives the same prompt.
package prompt

import (
	_ "embed"
	"strings"
	"text/template"
)

// Input is everything the system prompt is made of.
type Input struct {
	Tools []Tool
	Env   Env
	// ContextFiles are AGENTS.md / CLAUDE.md files, farthest first (user
	// config dir, then the git root down to the cwd).
	ContextFiles []File
	// NestedAgents lists AGENTS.md files below the cwd (relative paths):
	// they are named in the prompt, not loaded.
	NestedAgents []string
	// Custom replaces the default prompt (SYSTEM.md or --system-prompt);
	// the project context, skills, rules and date are still added.
	Custom string
	// Append is added at the end (APPEND_SYSTEM.md or --append-system-prompt).
	Append string
	Skills []Skill
	Rules  []Rule
}

// Tool is a tool as the prompt lists it.
type Tool struct {
	Name        string
	Description string
}

// Env describes where the agent runs. Empty fields are left out.
type Env struct {
	Cwd   string
	Date  string // YYYY-MM-DD
	OS    string // e.g. "linux 6.8.0 (amd64)"
	Shell string
	Git   *Git // nil outside a git repository
}

// Git is a point-in-time summary of the repository at the cwd.
type Git struct {
	Branch     string
	MainBranch string
	Status     string // git status --porcelain --untracked-files=no; "" is clean
	Log        string // git log --oneline -5
}

// File is a context file: its path (as shown to the model) and contents.
type File struct {
	Path    string
	Content string
}

// Skill is listed by name and description; the model reads Path on demand.
type Skill struct {
	Name        string
	Description string
	Path        string
}

// Rule is a rule file. Rules with a description that are not AlwaysApply
// are listed (the model reads Path when one applies); AlwaysApply rules
// have their Body included in full; rules with a Condition are
// stream-triggered rules, which this version does not use.
type Rule struct {
	Name        string
	Description string
	Globs       []string
	AlwaysApply bool
	Condition   string
	Body        string
	Path        string
}

//go:embed default.tmpl
var defaultText string

//go:embed custom.tmpl
var customText string

var tmpl = template.Must(template.Must(template.New("default").Funcs(template.FuncMap{
	"trim":      strings.TrimSpace,
	"trimRight": func(s string) string { return strings.TrimRight(s, " \t\r\n") },
	"firstLine": firstLine,
	"join":      strings.Join,
}).Parse(defaultText)).New("custom").Parse(customText))

// data is what the templates see.
type data struct {
	Input
	Listed []Rule // the rulebook: rules the model may read
	Always []Rule // rules included in full
}

// Build renders the system prompt: the default template, or the custom
// frame when in.Custom is set. The result ends with a single newline.
func Build(in Input) string {
	d := data{Input: in}
	for _, r := range in.Rules {
		switch {
		case r.Condition != "":
		case r.AlwaysApply:
			if strings.TrimSpace(r.Body) != "" {
				d.Always = append(d.Always, r)
			}
		case r.Description != "":
			d.Listed = append(d.Listed, r)
		}
	}
	name := "default"
	if strings.TrimSpace(in.Custom) != "" {
		name = "custom"
	}
	var b strings.Builder
	if err := tmpl.ExecuteTemplate(&b, name, d); err != nil {
		panic(err) // the templates are constants; tests execute both
	}
	return tidy(b.String())
}

// firstLine is the first paragraph of a tool description, on one line: the
// full text goes to the model with the tool schema anyway.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

// tidy collapses the blank lines the template's conditionals leave behind
// (never more than one empty line in a row, none at the ends).
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	blank := true
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if strings.HasPrefix(l, "</") && len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1] // no blank line before a closing tag
		}
		if l == "" && len(out) > 0 && isOpenTag(out[len(out)-1]) {
			continue // no blank line after an opening tag
		}
		if l == "" {
			if blank {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n") + "\n"
}

// isOpenTag reports whether l is a bare opening tag such as "<project>".
func isOpenTag(l string) bool {
	return len(l) > 2 && l[0] == '<' && l[1] != '/' && l[len(l)-1] == '>' && !strings.ContainsAny(l, " /")
}
