package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/grep"
)

const grepLimit = 100

func grepTool() Tool {
	return Tool{
		Def: event.ToolDef{Name: "grep", Label: "Grep", Concurrency: event.Shared,
			Description: "Search file contents with a regular expression (RE2 syntax), respecting .gitignore. Results are numbered matches with their line numbers (>> marks the match, context lines are indented), in path order. Use glob or type to narrow, offset/limit to page.",
			Parameters:  schema(`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string","description":"file or directory (default: the working directory)"},"glob":{"type":"string"},"type":{"type":"string","description":"file type such as go, py, ts"},"i":{"type":"boolean","description":"case-insensitive"},"pre":{"type":"integer","minimum":0},"post":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":0},"offset":{"type":"integer","minimum":0}},"required":["pattern"],"additionalProperties":false}`)},
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
	if a.Limit <= 0 {
		a.Limit = grepLimit
	}
	root := env.Cwd
	if a.Path != "" {
		root = env.resolve(a.Path)
	}
	st, err := os.Stat(root)
	if err != nil {
		return event.ToolOutput{}, fmt.Errorf("Path not found: %s", root)
	}
	m, err := grep.Compile(grep.MatchOptions{Patterns: []string{a.Pattern}, IgnoreCase: a.I, Multiline: strings.Contains(a.Pattern, `\n`)})
	if err != nil {
		return event.ToolOutput{}, err
	}
	wo := grep.WalkOptions{Hidden: true}
	if a.Glob != "" {
		wo.Globs = []string{a.Glob}
	}
	if a.Type != "" {
		if _, ok := grep.Types[a.Type]; !ok {
			return event.ToolOutput{}, fmt.Errorf("unknown file type %q", a.Type)
		}
		wo.Types = []string{a.Type}
	}
	files, _ := grep.Walk(root, wo)
	var b strings.Builder
	n, shown, filesWith := 0, 0, 0
	limited := false
	grep.Search(ctx, m, slices.Values(files), grep.SearchOptions{Before: a.Pre, After: a.Post}, 0, func(r grep.FileResult) bool {
		if r.Err != nil || r.MatchedLines == 0 {
			return true
		}
		filesWith++
		name := env.rel(r.Path)
		if !st.IsDir() {
			name = filepath.Base(r.Path)
		}
		// One block per match, with the context lines around it.
		for i, l := range r.Lines {
			if !l.Match {
				continue
			}
			n++
			if n <= a.Offset {
				continue
			}
			if shown == a.Limit {
				limited = true
				return false
			}
			shown++
			var block []grep.Line
			for j := i - 1; j >= 0 && !r.Lines[j].Match && r.Lines[j].Number >= l.Number-a.Pre && !r.Lines[j+1].Gap; j-- {
				block = append([]grep.Line{r.Lines[j]}, block...)
			}
			block = append(block, l)
			for j := i + 1; j < len(r.Lines) && !r.Lines[j].Match && r.Lines[j].Number <= l.Number+a.Post && !r.Lines[j].Gap; j++ {
				block = append(block, r.Lines[j])
			}
			width := len(fmt.Sprint(block[len(block)-1].Number))
			fmt.Fprintf(&b, "%d. %s:%d\n", shown+a.Offset, name, l.Number)
			for _, bl := range block {
				mark := "  "
				if bl.Match {
					mark = ">>"
				}
				text := strings.TrimRight(string(bl.Text), "\r\n")
				if len(text) > 1024 {
					text = text[:1021] + "..."
				}
				fmt.Fprintf(&b, "%s%*d:%s\n", mark, width, bl.Number, text)
			}
			b.WriteByte('\n')
		}
		return true
	})
	if shown == 0 {
		return text("No matches found"), nil
	}
	out := strings.TrimRight(b.String(), "\n")
	if len(out) > maxBytes {
		out = out[:maxBytes]
		if i := strings.LastIndexByte(out, '\n'); i > 0 {
			out = out[:i]
		}
		out += fmt.Sprintf("\n\n[%s limit reached]", formatBytes(maxBytes))
	}
	if limited {
		out += fmt.Sprintf("\n\n[%d matches limit reached. Use limit=%d for more]", a.Limit, a.Limit*2)
	}
	return event.ToolOutput{Content: []event.Content{event.Text(out)},
		Details: details(map[string]any{"scopePath": env.rel(root), "matchCount": shown, "fileCount": filesWith, "matchLimitReached": limited})}, nil
}
