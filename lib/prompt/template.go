package prompt

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Template is a prompt template: a Markdown file whose body is sent as the
// prompt when the user types "/name args". Templates come from prompts/
// and commands/ directories (see internal/contextfiles).
type Template struct {
	Name        string
	Description string // frontmatter description, else the first body line
	Body        string // without the frontmatter
	Path        string
	// Err is why the file could not be read as a template (a frontmatter
	// error, FILE:LINE: message): running it is an error, not plain text.
	Err error
}

// NewTemplate builds a template from a file's name (without .md) and its
// contents. The description is the frontmatter's, or else the first
// non-empty body line cut to 60 characters.
func NewTemplate(name, path, doc string) (Template, error) {
	fm, body, err := ParseFrontmatter(doc)
	if err != nil {
		return Template{}, err
	}
	t := Template{Name: name, Description: fm.Description, Body: body, Path: path}
	if fm.Name != "" {
		t.Name = fm.Name
	}
	if t.Description == "" {
		for _, l := range strings.Split(body, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				t.Description = l
				break
			}
		}
		if r := []rune(t.Description); len(r) > 60 {
			t.Description = string(r[:60]) + "..."
		}
	}
	return t, nil
}

// SplitArgs splits a template's argument string like a shell would for
// plain words: on blanks, with 'single' and "double" quotes grouping words
// (no backslash escapes, as in the reference agent).
func SplitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

var placeholder = regexp.MustCompile(`\$(?:(\d+)|@\[(\d+)(?::(\d+))?\]|(ARGUMENTS)|(@))|\{\{\s*(ARGUMENTS|arguments|args)\s*\}\}`)

// Substitute fills a template body with arguments: $1, $2, … are the
// positional arguments (empty when missing), $@[N] is the arguments from the
// Nth on and $@[N:L] L arguments from the Nth (1-based), $ARGUMENTS, $@ and
// {{ARGUMENTS}} are all of them joined by spaces. One pass, so an argument
// that itself contains "$1" is inserted as written.
func Substitute(body string, args []string) string {
	return placeholder.ReplaceAllStringFunc(body, func(m string) string {
		g := placeholder.FindStringSubmatch(m)
		switch {
		case g[1] != "":
			n, err := strconv.Atoi(g[1])
			if err != nil || n < 1 || n > len(args) {
				return ""
			}
			return args[n-1]
		case g[2] != "":
			start, _ := strconv.Atoi(g[2])
			if start < 1 {
				start = 1
			}
			if start > len(args) {
				return ""
			}
			end := len(args)
			if g[3] != "" {
				// Compared as a count, not added to start: a huge L (Atoi
				// gives the largest int) must not overflow into a bad slice.
				l, _ := strconv.Atoi(g[3])
				if l < end-(start-1) {
					end = start - 1 + l
				}
			}
			return strings.Join(args[start-1:end], " ")
		}
		return strings.Join(args, " ")
	})
}

// Expand turns a prompt typed by the user into the prompt sent to the
// model: "/name args" with a known template name becomes the template's body
// with the arguments substituted. Anything else (no slash, an unknown name)
// is returned unchanged with ok false, so "/usr/bin is odd" reaches the
// model as typed.
func Expand(input string, templates []Template) (out string, ok bool, err error) {
	if !strings.HasPrefix(input, "/") {
		return input, false, nil
	}
	name, rest := input[1:], ""
	if i := strings.IndexAny(name, " \t\r\n"); i >= 0 {
		name, rest = name[:i], name[i+1:]
	}
	for _, t := range templates {
		if t.Name == name {
			if t.Err != nil {
				return input, false, fmt.Errorf("prompt template /%s: %w", name, t.Err)
			}
			return Substitute(t.Body, SplitArgs(rest)), true, nil
		}
	}
	return input, false, nil
}
