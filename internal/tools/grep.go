package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentutils/agentutils/internal/grepfs"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/grep/ignore"
	"github.com/agentutils/agentutils/lib/grep/printer"
	"github.com/agentutils/agentutils/lib/grep/regex"
	"github.com/agentutils/agentutils/lib/grep/search"
)

func grepTool() Tool {
	return Tool{
		Def: def("grep", "Search file contents with a regular expression (RE2 syntax), respecting .gitignore. Results are numbered matches with their line numbers (>> marks the match, context lines are indented), in path order. Use glob or type to narrow, offset/limit to page.",
			`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string","description":"file or directory (default: the working directory); a path: relative to the working directory, ~ is home; confined by --root"},"glob":{"type":"string"},"type":{"type":"string","description":"file type such as go, py, ts"},"i":{"type":"boolean","description":"case-insensitive"},"pre":{"type":"integer","minimum":0},"post":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":0},"offset":{"type":"integer","minimum":0}},"required":["pattern"],"additionalProperties":false}`),
		Run: runGrep,
	}
}

func runGrep(ctx context.Context, env *Env, args json.RawMessage, _ func(event.ToolOutput)) (event.ToolOutput, error) {
	var a struct {
		Pattern, Path, Glob, Type string
		I                         bool
		Pre, Post, Limit, Offset  int
	}
	if err := decode(args, &a); err != nil {
		return event.ToolOutput{}, err
	}
	if a.Pattern == "" {
		return event.ToolOutput{}, errors.New("Pattern must not be empty")
	}
	if a.Path == "" {
		a.Path = "."
	}
	fsys, name, root, err := env.at(a.Path)
	if err != nil {
		return event.ToolOutput{}, err
	}
	st, err := fsys.Stat(name)
	if err != nil {
		return event.ToolOutput{}, fmt.Errorf("Path not found: %s", root)
	}
	m, err := regex.Compile(regex.MatchOptions{Patterns: []string{a.Pattern}, IgnoreCase: a.I, Multiline: strings.Contains(a.Pattern, `\n`)})
	if err != nil {
		return event.ToolOutput{}, err
	}
	wo := ignore.WalkOptions{Hidden: true, SkipGitDir: true}
	if a.Glob != "" {
		wo.FilterGlobs = []string{a.Glob}
	}
	if a.Type != "" {
		if _, ok := ignore.Types()[a.Type]; !ok {
			return event.ToolOutput{}, fmt.Errorf("unknown file type %q", a.Type)
		}
		wo.Types = []string{a.Type}
	}
	// the walk feeds the search as it goes, and stops with it at the limit
	files := func(yield func(ignore.File) bool) { grepfs.WalkFunc(root, wo, yield) }
	ap := printer.NewAgentPrinter(printer.AgentOptions{Limit: a.Limit, Offset: a.Offset, Before: a.Pre, After: a.Post,
		Name: func(p string) string {
			if !st.IsDir() {
				return filepath.Base(p)
			}
			return env.rel(p)
		}})
	grepfs.Search(ctx, m, files, search.SearchOptions{Before: a.Pre, After: a.Post}, 0, ap.Add)
	res := ap.Finish()
	return event.ToolOutput{Content: []event.Content{event.Text(res.Text)},
		Details: details(map[string]any{"scopePath": env.rel(root), "matchCount": res.MatchCount, "fileCount": res.FileCount,
			"files": res.Files, "fileMatches": res.FileMatches, "truncated": res.Truncated,
			"matchLimitReached": res.MatchLimitReached, "linesTruncated": res.LinesTruncated})}, nil
}
