package prompt

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Frontmatter is the metadata block at the top of a SKILL.md, rule or prompt
// template: the lines between a first line "---" and the next "---", read
// as YAML. Keys the caller does not know are kept in Extra (as YAML
// decodes them: strings, numbers, booleans, lists, maps) so nothing is lost.
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
// The block is YAML (go.yaml.in/yaml/v3): quoted and plain scalars with
// comments, block scalars (| keeps the lines, > folds them), flow and block
// lists, nested maps. One allowance for Cursor's rules: a glob value that
// starts with "*" (globs: *.ts, *.tsx) is read as text, not as a YAML
// alias. An error names its line in doc; a document with no frontmatter is
// not an error.
func ParseFrontmatter(doc string) (Frontmatter, string, error) {
	var fm Frontmatter
	block, body := SplitFrontmatter(doc)
	if strings.TrimSpace(block) == "" {
		return fm, body, nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(quoteGlobs(block)), &root); err != nil {
		return fm, body, yamlErr(err)
	}
	if len(root.Content) == 0 {
		return fm, body, nil // only comments
	}
	m := root.Content[0]
	if m.Kind == yaml.ScalarNode {
		return fm, body, lineErr(m.Line+1, "want \"key: value\", got %q", m.Value)
	}
	if m.Kind != yaml.MappingNode {
		return fm, body, lineErr(m.Line+1, "want \"key: value\" lines, got %s", kindName(m))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if first, dup := seen[k.Value]; dup {
			return fm, body, lineErr(k.Line+1, "mapping key %q already defined at line %d", k.Value, first)
		}
		seen[k.Value] = k.Line + 1
		if err := fm.set(k.Value, v); err != nil {
			return fm, body, lineErr(v.Line+1, "%s: %v", k.Value, err)
		}
	}
	return fm, body, nil
}

func (fm *Frontmatter) set(key string, v *yaml.Node) error {
	var err error
	switch key {
	case "name":
		fm.Name, err = text(v)
	case "description":
		fm.Description, err = text(v)
	case "globs", "glob", "paths":
		var l []string
		if l, err = list(v); err == nil {
			fm.Globs = append(fm.Globs, l...)
		}
	case "alwaysApply", "always_apply":
		var s string
		s, err = text(v)
		fm.AlwaysApply = s == "true" || s == "True" || s == "yes"
	case "condition", "scope", "ttsr_trigger", "ttsrTrigger":
		if v.Kind == yaml.SequenceNode {
			var l []string
			l, err = list(v)
			fm.Condition = strings.Join(l, "\n")
		} else {
			fm.Condition, err = text(v)
		}
	case "argument-hint", "argumentHint":
		fm.ArgumentHint, err = text(v)
	default:
		var x any
		if err = v.Decode(&x); err == nil {
			if fm.Extra == nil {
				fm.Extra = map[string]any{}
			}
			fm.Extra[key] = x
		}
	}
	return err
}

// text is a scalar's text (a block scalar without its last newline); a list
// of scalars is joined with ", ".
func text(v *yaml.Node) (string, error) {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return "", nil
		}
		return strings.TrimRight(v.Value, "\n"), nil
	case yaml.SequenceNode:
		l, err := list(v)
		return strings.Join(l, ", "), err
	}
	return "", fmt.Errorf("want text, got %s", kindName(v))
}

// list is a sequence of scalars, or one scalar split on commas ("globs:
// *.go, *.mod" is common in Cursor rules).
func list(v *yaml.Node) ([]string, error) {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil, nil
		}
		var out []string
		for _, p := range strings.Split(v.Value, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	case yaml.SequenceNode:
		out := make([]string, 0, len(v.Content))
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("want a list of text, got an item that is %s", kindName(it))
			}
			out = append(out, it.Value)
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a list, got %s", kindName(v))
}

func kindName(v *yaml.Node) string {
	switch v.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return "text"
}

// globLine is a glob key whose plain value starts with "*", which YAML
// would read as an alias.
var globLine = regexp.MustCompile(`(?m)^(globs|glob|paths)([ \t]*:[ \t]*)(\*[^\r\n]*?)([ \t]*\r?)$`)

func quoteGlobs(block string) string {
	return globLine.ReplaceAllStringFunc(block, func(l string) string {
		m := globLine.FindStringSubmatch(l)
		return m[1] + m[2] + strconv.Quote(m[3]) + m[4]
	})
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

// yamlLine is the line in the YAML library's messages ("yaml: line 3: …").
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlErr turns the library's error into a LineError in doc's numbering
// (the block starts on doc's line 2).
func yamlErr(err error) error {
	msg := err.Error()
	if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return lineErr(n+1, "%s", m[2])
	}
	return lineErr(2, "%s", strings.TrimPrefix(msg, "yaml: "))
}
