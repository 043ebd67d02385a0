package prompt

import (
	"fmt"
	"strconv"
	"strings"
)

// Frontmatter is the metadata block at the top of a SKILL.md, rule or prompt
// template: the lines between a first line "---" and the next "---". Values
// are strings, booleans or lists of strings; keys the caller does not know
// are kept in Extra so nothing is lost.
type Frontmatter struct {
	Name        string
	Description string
	Globs       []string
	AlwaysApply bool
	// Condition is a stream-triggered (TTSR) rule's trigger: the keys
	// condition, scope, ttsr_trigger or ttsrTrigger. Such rules are not
	// listed in the prompt.
	Condition string
	// ArgumentHint is a prompt template's "argument-hint" (Claude Code's
	// commands use it to describe their arguments).
	ArgumentHint string
	Extra        map[string]any
}

// SplitFrontmatter separates the frontmatter block from the body. A document
// without one (no "---" first line, or no closing "---") has an empty block
// and the whole text as its body. HTML comments are removed from the block.
func SplitFrontmatter(doc string) (block, body string) {
	doc = strings.TrimPrefix(doc, "\ufeff")
	first, rest, ok := strings.Cut(doc, "\n")
	if !ok || strings.TrimRight(first, " \t\r") != "---" {
		return "", doc
	}
	var lines []string
	for {
		line, more, ok := strings.Cut(rest, "\n")
		if strings.TrimRight(line, " \t\r") == "---" {
			return stripComments(strings.Join(lines, "\n")), more
		}
		if !ok {
			return "", doc // never closed: not frontmatter
		}
		lines = append(lines, line)
		rest = more
	}
}

func stripComments(s string) string {
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "-->")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+3:]
	}
}

// ParseFrontmatter reads doc's frontmatter and returns it with the body.
// The block is the small YAML subset these files use: "key: value" lines
// (plain, 'single' or "double" quoted scalars, true/false, flow lists
// [a, "b"]), block lists ("key:" then "- item" lines) and folded
// continuation lines. A line it cannot read is an error naming its line
// number in doc; a document with no frontmatter is not an error.
func ParseFrontmatter(doc string) (Frontmatter, string, error) {
	var fm Frontmatter
	block, body := SplitFrontmatter(doc)
	if block == "" {
		return fm, body, nil
	}
	vals, err := parseBlock(block)
	if err != nil {
		return fm, body, err
	}
	for _, kv := range vals {
		switch kv.key {
		case "name":
			fm.Name = asString(kv.val)
		case "description":
			fm.Description = asString(kv.val)
		case "globs", "glob", "paths":
			fm.Globs = append(fm.Globs, asList(kv.val)...)
		case "alwaysApply", "always_apply":
			fm.AlwaysApply = asBool(kv.val)
		case "condition", "scope", "ttsr_trigger", "ttsrTrigger":
			if l, ok := kv.val.([]string); ok {
				fm.Condition = strings.Join(l, "\n")
			} else {
				fm.Condition = asString(kv.val)
			}
		case "argument-hint", "argumentHint":
			fm.ArgumentHint = asString(kv.val)
		default:
			if fm.Extra == nil {
				fm.Extra = map[string]any{}
			}
			fm.Extra[kv.key] = kv.val
		}
	}
	return fm, body, nil
}

type keyVal struct {
	key string
	val any // string, bool or []string
}

// LineError is a frontmatter syntax error at a line of the document
// (1-based, counting the opening "---" as line 1).
type LineError struct {
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

func lineErr(line int, format string, args ...any) error {
	return &LineError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

func parseBlock(block string) ([]keyVal, error) {
	var out []keyVal
	lines := strings.Split(block, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		lineNo := i + 2 // the block starts after the "---" line
		if line[0] == ' ' || line[0] == '\t' || strings.HasPrefix(trimmed, "- ") || trimmed == "-" {
			// A continuation of the previous scalar (folded), or a list item
			// of a key that had no value.
			if len(out) == 0 {
				return nil, lineErr(lineNo, "indented line before any key")
			}
			last := &out[len(out)-1]
			if strings.HasPrefix(trimmed, "- ") || trimmed == "-" {
				items, ok := last.val.([]string)
				if !ok {
					if s, isStr := last.val.(string); !isStr || s != "" {
						return nil, lineErr(lineNo, "list item after a scalar value of %q", last.key)
					}
				}
				item := unquote(strings.TrimSpace(strings.TrimPrefix(trimmed, "-")))
				last.val = append(items, item)
				continue
			}
			s, ok := last.val.(string)
			if !ok {
				return nil, lineErr(lineNo, "continuation of non-text value %q", last.key)
			}
			if s == ">" || s == "|" || s == ">-" || s == "|-" {
				last.val = trimmed
			} else if s == "" {
				last.val = trimmed
			} else {
				last.val = s + " " + trimmed
			}
			continue
		}
		key, raw, ok := strings.Cut(line, ":")
		if !ok {
			return nil, lineErr(lineNo, "want \"key: value\", got %q", trimmed)
		}
		key = strings.TrimSpace(key)
		if key == "" || strings.ContainsAny(key, " \t\"'") {
			return nil, lineErr(lineNo, "bad key %q", key)
		}
		v, err := scalar(strings.TrimSpace(raw))
		if err != nil {
			return nil, lineErr(lineNo, "%s: %v", key, err)
		}
		out = append(out, keyVal{key, v})
	}
	// A bare block-scalar marker with no continuation is an empty string.
	for i := range out {
		if s, ok := out[i].val.(string); ok && (s == ">" || s == "|" || s == ">-" || s == "|-") {
			out[i].val = ""
		}
	}
	return out, nil
}

func scalar(s string) (any, error) {
	switch {
	case s == "true" || s == "True" || s == "yes":
		return true, nil
	case s == "false" || s == "False" || s == "no":
		return false, nil
	case strings.HasPrefix(s, "["):
		if !strings.HasSuffix(s, "]") {
			return nil, fmt.Errorf("unclosed list %q", s)
		}
		inner := strings.TrimSpace(s[1 : len(s)-1])
		if inner == "" {
			return []string{}, nil
		}
		items := splitFlow(inner)
		out := make([]string, 0, len(items))
		for _, it := range items {
			out = append(out, unquote(strings.TrimSpace(it)))
		}
		return out, nil
	case strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "'"):
		if len(s) < 2 || s[len(s)-1] != s[0] {
			return nil, fmt.Errorf("unclosed quote in %q", s)
		}
		return unquote(s), nil
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i]) // trailing comment
	}
	return s, nil
}

// splitFlow splits a flow list's inside on commas outside quotes.
func splitFlow(s string) []string {
	var out []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == ',':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
		return s[1 : len(s)-1]
	}
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	return s
}

func asString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case []string:
		return strings.Join(x, ", ")
	}
	return ""
}

func asList(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case string:
		if x == "" {
			return nil
		}
		// "globs: *.go, *.ts" is common in Cursor rules.
		var out []string
		for _, p := range strings.Split(x, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	return nil
}

func asBool(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return x == "true"
	}
	return false
}
