// Package grep is the search engine behind agent-grep and the agent's grep
// and find tools: a matcher (Go's RE2 regexp, with a literal fast path), a
// walker that applies ignore files as git does, and ripgrep's output
// formats. Search(ctx, Options) walks and searches in parallel and hands
// results back in path order, so output is deterministic.
package grep

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
)

// Matcher finds matches in a buffer.
type Matcher struct {
	re       *regexp.Regexp
	literal  []byte // set when the whole pattern is a literal: bytes.Index
	fold     bool
	required []byte // a literal every match contains (lowered when reqFold)
	reqFold  bool
	multi    bool     // -U: matches may span lines (multiline.go)
	word     bool     // -w: the match is the regexp's group 1 (word.go)
	uni      *Matcher // \w \d \s as Unicode classes, for non-ASCII buffers (unicode.go)
}

// MatchOptions are the pattern flags of rg.
type MatchOptions struct {
	Patterns   []string
	Fixed      bool // -F
	IgnoreCase bool // -i
	SmartCase  bool // -S: ignore case unless a pattern has an uppercase letter
	Word       bool // -w
	Line       bool // -x
	Multiline  bool // -U: a match may span lines
	DotAll     bool // --multiline-dotall
}

// Compile builds the matcher. A bad pattern is an error that names it and
// the position, as rg does.
func Compile(o MatchOptions) (*Matcher, error) {
	if len(o.Patterns) == 0 {
		return nil, fmt.Errorf("no pattern given")
	}
	fold := o.IgnoreCase
	if o.SmartCase && !o.IgnoreCase {
		fold = true
		for _, p := range o.Patterns {
			if strings.IndexFunc(p, unicode.IsUpper) >= 0 {
				fold = false
			}
		}
	}
	var alts []string
	for _, p := range o.Patterns {
		if o.Fixed {
			p = regexp.QuoteMeta(p)
		} else if _, err := syntax.Parse(p, syntax.Perl); err != nil {
			return nil, regexError(p, err)
		}
		alts = append(alts, p)
	}
	expr := strings.Join(alts, "|")
	if len(alts) > 1 {
		expr = "(?:" + expr + ")"
	}
	if o.Word && !o.Line {
		expr = wordExpr(expr) // rg's -w: the match is group 1 (word.go)
	}
	if o.Line {
		expr = "^(?:" + expr + ")$"
	}
	flags := "(?m"
	if fold {
		flags += "i"
	}
	if o.DotAll {
		flags += "s"
	}
	expr = flags + ")" + expr
	if !o.Multiline {
		var err error
		if expr, err = lineOnly(expr); err != nil { // newline.go
			return nil, err
		}
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, regexError(strings.Join(o.Patterns, "|"), err)
	}
	m := &Matcher{re: re, fold: fold, multi: o.Multiline, word: o.Word && !o.Line}
	if !o.Multiline && !o.DotAll {
		// Lines are searched one by one (as rg does without -U), and only
		// those holding a literal every match needs.
		if parsed, err := syntax.Parse(expr, syntax.Perl); err == nil {
			if req := requiredLiteral(parsed.Simplify()); len(req) >= 2 && isASCII(req) {
				m.required = []byte(req)
				m.reqFold = fold || parsed.Flags&syntax.FoldCase != 0 || strings.ToLower(req) != req && false
				if fold {
					m.required = []byte(strings.ToLower(req))
				}
			}
		}
	}
	if len(o.Patterns) == 1 && !o.Word && !o.Line && !fold {
		if o.Fixed && o.Patterns[0] != "" { // (an empty literal would never advance)
			m.literal = []byte(o.Patterns[0])
		} else if prefix, complete := regexp.MustCompile(o.Patterns[0]).LiteralPrefix(); complete && prefix != "" {
			m.literal = []byte(prefix)
		}
	}
	if !o.Multiline && !o.DotAll {
		// A pattern that can match a newline would match across lines; rg
		// refuses that without -U.
		if strings.Contains(strings.Join(o.Patterns, ""), `\n`) && !o.Fixed {
			return nil, fmt.Errorf("the literal \"\\n\" is not allowed in a regex\n\nConsider enabling multiline mode with the --multiline flag (or -U for short).\nWhen multiline mode is enabled, new line characters can be matched.")
		}
	}
	if !o.Fixed {
		uo, changed := o, false
		uo.Patterns = nil
		for _, p := range o.Patterns {
			u, c := unicodeClasses(p)
			uo.Patterns, changed = append(uo.Patterns, u), changed || c
		}
		if changed {
			if u, err := Compile(uo); err == nil {
				m.uni = u
			}
		}
	}
	return m, nil
}

func regexError(p string, err error) error {
	if se, ok := err.(*syntax.Error); ok {
		return rgRegexError(p, se)
	}
	return fmt.Errorf("regex parse error: %v", err)
}

// Span is a match: byte offsets in the searched buffer.
type Span struct{ Start, End int }

// Find returns the matches in buf, at most limit (0: all). Empty matches
// are kept only at the start of a line (so ^ and $ patterns match lines).
func (m *Matcher) Find(buf []byte, limit int) []Span {
	if m.uni != nil && hasNonASCII(buf) {
		return m.uni.Find(buf, limit)
	}
	if m.word {
		return m.findWords(buf, limit)
	}
	var out []Span
	if m.literal != nil {
		off := 0
		for {
			i := bytes.Index(buf[off:], m.literal)
			if i < 0 {
				return out
			}
			s := off + i
			out = append(out, Span{s, s + len(m.literal)})
			if limit > 0 && len(out) >= limit {
				return out
			}
			off = s + len(m.literal)
		}
	}
	if m.required != nil {
		return m.findByLines(buf, limit)
	}
	n := -1
	if limit > 0 {
		n = limit
	}
	for _, loc := range m.re.FindAllIndex(buf, n) {
		out = append(out, Span{loc[0], loc[1]})
	}
	return out
}

// HasMatch reports whether buf contains a match.
func (m *Matcher) HasMatch(buf []byte) bool {
	if m.uni != nil && hasNonASCII(buf) {
		return m.uni.HasMatch(buf)
	}
	if m.word {
		return len(m.findWords(buf, 1)) > 0
	}
	if m.literal != nil {
		return bytes.Contains(buf, m.literal)
	}
	if m.required != nil {
		return len(m.findByLines(buf, 1)) > 0
	}
	return m.re.Match(buf)
}

// Expand replaces each match in text with tmpl ($1, ${name} expand as in
// regexp.Expand), for rg's --replace (output only).
func (m *Matcher) Expand(text []byte, tmpl string) []byte {
	return m.re.ReplaceAll(text, []byte(tmpl))
}

// ExpandMatch is the replacement for one match span of text.
func (m *Matcher) ExpandMatch(text []byte, s Span, tmpl string) []byte {
	sub := m.re.FindSubmatchIndex(text[s.Start:])
	if sub == nil {
		return []byte(tmpl)
	}
	for i := range sub {
		if sub[i] >= 0 {
			sub[i] += s.Start
		}
	}
	return m.re.Expand(nil, []byte(tmpl), text, sub)
}
