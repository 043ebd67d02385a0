package printer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/grep/search"
)

// The model-facing text of the reference agent's grep tool (tools-grep.md
// §5.2, v12): matches numbered in result order, one block per match with
// its context, ">>" marking the match line, a blank line between blocks,
// then the notices in one bracket:
//
//	1. src/a.ts:12
//	  10:context line
//	>>12:matching line
//	  13:context line
//
//	[100 matches limit reached. Use limit=200 for more. Some lines truncated to 1024 chars]
//
// agent-grep --format agent and agent-tool's grep tool both print it.

// Agent output defaults (tools-grep.md §6.1).
const (
	AgentLimit      = 100
	AgentMaxColumns = 1024
	AgentMaxBytes   = 50 * 1024
)

// AgentOptions shape the agent text.
type AgentOptions struct {
	Limit, Offset int // matches shown (0: AgentLimit) and matches skipped first
	Before, After int // context lines (the search must have kept them)
	MaxColumns    int // longer lines are cut at MaxColumns-3 bytes + "..." (0: AgentMaxColumns)
	MaxBytes      int // output budget in whole lines (0: AgentMaxBytes)
	// Name is the path as shown (nil: FileResult.Path as is).
	Name func(path string) string
}

// FileCount is one file's number of shown matches.
type FileCount struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// AgentResult is the text and the details the tool reports with it.
type AgentResult struct {
	Text              string
	MatchCount        int // matches shown
	FileCount         int
	Files             []string
	FileMatches       []FileCount
	Truncated         bool // the byte budget cut the text
	MatchLimitReached bool
	LinesTruncated    bool
}

// AgentPrinter collects results (in path order) into the agent text.
type AgentPrinter struct {
	o    AgentOptions
	b    strings.Builder
	n    int // matches seen (for Offset)
	res  AgentResult
	full bool // the byte budget is spent
}

// NewAgentPrinter starts an agent text.
func NewAgentPrinter(o AgentOptions) *AgentPrinter {
	if o.Limit <= 0 {
		o.Limit = AgentLimit
	}
	if o.MaxColumns <= 0 {
		o.MaxColumns = AgentMaxColumns
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = AgentMaxBytes
	}
	return &AgentPrinter{o: o}
}

// Add prints one file's matches; false when the match limit or the byte
// budget is reached (the search can stop).
func (p *AgentPrinter) Add(r search.FileResult) bool {
	if r.Err != nil || r.MatchedLines == 0 || len(r.Lines) == 0 {
		return !p.res.MatchLimitReached && !p.full
	}
	name := r.Path
	if p.o.Name != nil {
		name = p.o.Name(r.Path)
	}
	shownHere := 0
	for i, l := range r.Lines {
		if !l.Match {
			continue
		}
		p.n++
		if p.n <= p.o.Offset {
			continue
		}
		if p.res.MatchCount == p.o.Limit {
			p.res.MatchLimitReached = true
			break
		}
		var block []search.Line
		for j := i - 1; j >= 0 && !r.Lines[j].Match && r.Lines[j].Number >= l.Number-p.o.Before && !r.Lines[j+1].Gap; j-- {
			block = append([]search.Line{r.Lines[j]}, block...)
		}
		block = append(block, l)
		for j := i + 1; j < len(r.Lines) && !r.Lines[j].Match && r.Lines[j].Number <= l.Number+p.o.After && !r.Lines[j].Gap; j++ {
			block = append(block, r.Lines[j])
		}
		var t strings.Builder
		if p.res.MatchCount > 0 {
			t.WriteByte('\n')
		}
		width := len(strconv.Itoa(block[len(block)-1].Number))
		fmt.Fprintf(&t, "%d. %s:%d\n", p.o.Offset+p.res.MatchCount+1, name, l.Number)
		for _, bl := range block {
			mark := "  "
			if bl.Match {
				mark = ">>"
			}
			fmt.Fprintf(&t, "%s%*d:%s\n", mark, width, bl.Number, p.clip(bl.Text))
		}
		if p.b.Len()+t.Len() > p.o.MaxBytes {
			// whole lines only, up to the budget
			rest := p.o.MaxBytes - p.b.Len()
			s := t.String()
			for rest > 0 {
				k := strings.IndexByte(s, '\n')
				if k < 0 || k+1 > rest {
					break
				}
				p.b.WriteString(s[:k+1])
				s, rest = s[k+1:], rest-(k+1)
			}
			p.res.Truncated, p.full = true, true
			break
		}
		p.b.WriteString(t.String())
		p.res.MatchCount++
		shownHere++
	}
	if shownHere > 0 {
		p.res.FileCount++
		p.res.Files = append(p.res.Files, name)
		p.res.FileMatches = append(p.res.FileMatches, FileCount{name, shownHere})
	}
	return !p.res.MatchLimitReached && !p.full
}

// clip cuts a line (without its end) to MaxColumns, on a character
// boundary, marking it with "...".
func (p *AgentPrinter) clip(text []byte) string {
	s := strings.TrimRight(string(text), "\r\n")
	if len(s) <= p.o.MaxColumns {
		return s
	}
	cut := p.o.MaxColumns - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	p.res.LinesTruncated = true
	return s[:cut] + "..."
}

// Finish returns the text with its notices ("No matches found" when
// nothing was shown).
func (p *AgentPrinter) Finish() AgentResult {
	res := p.res
	if res.MatchCount == 0 && !res.Truncated {
		res.Text = "No matches found"
		return res
	}
	text := strings.TrimRight(p.b.String(), "\n")
	var notes []string
	if res.MatchLimitReached {
		notes = append(notes, fmt.Sprintf("%d matches limit reached. Use limit=%d for more", p.o.Limit, p.o.Limit*2))
	}
	if res.Truncated {
		notes = append(notes, event.FormatBytes(p.o.MaxBytes)+" limit reached")
	}
	if res.LinesTruncated {
		notes = append(notes, fmt.Sprintf("Some lines truncated to %d chars", p.o.MaxColumns))
	}
	if len(notes) > 0 {
		text += "\n\n[" + strings.Join(notes, ". ") + "]"
	}
	res.Text = text
	return res
}
