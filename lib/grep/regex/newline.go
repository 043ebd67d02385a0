package regex

import (
	"errors"
	"regexp/syntax"
	"slices"
	"strings"
)

// Without -U rg searches line by line: a pattern may not name a newline
// (a literal "\n", [\n], \x0A: an error, in rg's words), and classes and
// '.' never match one ([^a] and \s skip the line end). lineOnly rewrites
// the syntax tree so; patterns it does not touch are returned as they are.

//lint:ignore ST1005 ripgrep's message, word for word
var errNewline = errors.New("the literal '\"\\n\"' is not allowed in a regex\n\n" +
	"Consider enabling multiline mode with the --multiline flag (or -U for short).\n" +
	"When multiline mode is enabled, new line characters can be matched.")

func lineOnly(expr string) (string, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return expr, nil // regexp.Compile reports it
	}
	changed := false
	var walk func(r *syntax.Regexp) error
	walk = func(r *syntax.Regexp) error {
		switch r.Op {
		case syntax.OpLiteral:
			for _, c := range r.Rune {
				if c == '\n' {
					return errNewline
				}
			}
		case syntax.OpCharClass:
			if len(r.Rune) == 2 && r.Rune[0] == '\n' && r.Rune[1] == '\n' {
				return errNewline
			}
			if out, ok := withoutNewline(r.Rune); ok {
				r.Rune, changed = out, true
				if len(out) == 0 {
					r.Op = syntax.OpNoMatch
				}
			}
		case syntax.OpAnyChar:
			r.Op, changed = syntax.OpAnyCharNotNL, true
		}
		for _, s := range r.Sub {
			if err := walk(s); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(re); err != nil {
		return "", err
	}
	if !changed {
		return expr, nil
	}
	return re.String(), nil
}

// withoutNewline removes '\n' from class ranges (lo, hi pairs).
func withoutNewline(rs []rune) ([]rune, bool) {
	for i := 0; i+1 < len(rs); i += 2 {
		if rs[i] <= '\n' && '\n' <= rs[i+1] {
			out := append([]rune(nil), rs[:i]...)
			if rs[i] < '\n' {
				out = append(out, rs[i], '\n'-1)
			}
			if rs[i+1] > '\n' {
				out = append(out, '\n'+1, rs[i+1])
			}
			out = append(out, rs[i+2:]...)
			return out, true
		}
	}
	return rs, false
}

// MatchesNewline reports whether the patterns can match a '\n' (under -U:
// o.Multiline, o.DotAll). rg 13 searches line by line, as without -U, when
// they cannot (its matcher's bytes that never match hold the newline):
// `-U -c foo` counts lines, and a walked file's NUL past the first 64 KiB
// stops the search as it does without -U. rg looks at the pattern with
// -x's anchors (an anchor counts), without -w's wrapping.
func MatchesNewline(o MatchOptions) bool {
	if o.Line {
		return true
	}
	alts, _, err := goPatterns(o, o.IgnoreCase || o.SmartCase)
	if err != nil {
		return true // (Compile reports it)
	}
	flags := "(?m"
	if o.DotAll {
		flags += "s"
	}
	re, err := syntax.Parse(flags+")(?:"+strings.Join(alts, "|")+")", syntax.Perl)
	if err != nil {
		return true
	}
	return canMatchNewline(re)
}

// canMatchNewline: some match of re holds a '\n', or an anchor.
func canMatchNewline(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		if slices.Contains(re.Rune, '\n') {
			return true
		}
	case syntax.OpCharClass:
		if _, has := withoutNewline(re.Rune); has {
			return true
		}
	case syntax.OpAnyChar, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return true // (rg: an anchor may stand at a newline)
	}
	return slices.ContainsFunc(re.Sub, canMatchNewline)
}
