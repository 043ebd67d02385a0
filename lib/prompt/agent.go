package prompt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentutils/agentutils/lib/tooldef"
)

// Agent is a sub-agent definition: a Markdown file of .agentutils/agents/
// or Claude Code's .claude/agents/ whose frontmatter names it (name,
// description, tools, model) and whose body is its system prompt. The
// task tool lists the definitions to the model and runs one by name.
type Agent struct {
	Name        string
	Description string
	// Tools are the tools it is offered, by our names (Claude Code's Read
	// is read); none: the parent's. Names the table does not know (an MCP
	// server's tools) are kept as written.
	Tools []string
	// Model is a model pattern; "" or "inherit": the parent's.
	Model  string
	Prompt string // the body: the system prompt
	Path   string
}

// NewAgent reads a definition from its file's name (without .md), path
// and contents. A file without a description is an error: the model
// could not know when to use it.
func NewAgent(name, path, doc string) (Agent, error) {
	fm, body, err := ParseFrontmatter(doc)
	if err != nil {
		return Agent{}, err
	}
	a := Agent{Name: name, Description: fm.Description, Prompt: strings.TrimSpace(body), Path: path}
	if fm.Name != "" {
		a.Name = fm.Name
	}
	if strings.TrimSpace(a.Description) == "" {
		return a, fmt.Errorf("no description in the frontmatter")
	}
	if m, ok := fm.Extra["model"].(string); ok && m != "inherit" {
		a.Model = strings.TrimSpace(m)
	}
	var tools []string
	switch v := fm.Extra["tools"].(type) {
	case string:
		tools = strings.Split(v, ",")
	case []any:
		for _, t := range v {
			if s, ok := t.(string); ok {
				tools = append(tools, s)
			}
		}
	case nil:
	default:
		return a, fmt.Errorf("tools: want a list of tool names")
	}
	for _, t := range tools {
		t = strings.TrimSpace(t)
		if e, ok := tooldef.Resolve(t); ok {
			t = e.Name
		}
		if t != "" && !slices.Contains(a.Tools, t) {
			a.Tools = append(a.Tools, t)
		}
	}
	return a, nil
}
