// Package commit holds the pure parts of agent-commit: the Conventional
// Commits 1.0 parser, commitlint's config-conventional rules (same names,
// levels and messages), the strict profile, unified-diff parsing with the
// lock-file exclusions, and the Keep a Changelog [Unreleased] editor.
package commit

import (
	"regexp"
	"strings"
)

// Message is a parsed commit message. The header fields follow
// conventional-commits-parser as commitlint configures it, so rules see the
// same values commitlint sees: a header that does not match the pattern has
// an empty Type and Subject (and HeaderMatched false).
type Message struct {
	Raw           string   `json:"-"`
	Header        string   `json:"header"`
	HeaderMatched bool     `json:"-"`
	Type          string   `json:"type,omitempty"`
	Scope         string   `json:"scope,omitempty"`
	Bang          bool     `json:"bang,omitempty"`
	Subject       string   `json:"subject,omitempty"`
	Breaking      bool     `json:"breaking"`
	Body          string   `json:"body,omitempty"`
	Footer        string   `json:"footer,omitempty"`
	Notes         []Note   `json:"notes,omitempty"`
	Trailers      []Note   `json:"trailers,omitempty"`
	Lines         []string `json:"-"`
}

// Note is a footer token and its value: BREAKING CHANGE notes and git trailers.
type Note struct {
	Title string `json:"title"`
	Text  string `json:"text"`
}

// headerRe is conventional-commits-parser's headerPattern in the
// conventionalcommits preset: JS \w is ASCII, the type may be empty and the
// scope is greedy.
var headerRe = regexp.MustCompile(`^([A-Za-z0-9_]*)(?:\((.*)\))?(!?): (.*)$`)

var (
	notesRe   = regexp.MustCompile(`^[\s|*]*(BREAKING CHANGE|BREAKING-CHANGE)[:\s]+(.*)`)
	refPartRe = regexp.MustCompile(`#[\w-]*\d`)
	trailerRe = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9-]*|BREAKING CHANGE): (.*)$|^([A-Za-z][A-Za-z0-9-]*) (#.*)$`)
)

// Clean prepares a message the way git does for commit-msg: comment lines
// (starting with commentChar) are dropped, the text is cut at the scissors
// line, and leading and trailing blank lines are removed.
func Clean(raw, commentChar string) string {
	if commentChar == "" {
		commentChar = "#"
	}
	lines := strings.Split(strings.ReplaceAll(raw, "\r\n", "\n"), "\n")
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, commentChar+" ------------------------ >8 ------------------------") {
			break
		}
		if strings.HasPrefix(l, commentChar) {
			continue
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	return strings.Join(out, "\n")
}

// Parse splits a (cleaned) message into header, body and footer the way
// conventional-commits-parser does: the footer starts at the first line that
// is a BREAKING CHANGE note or carries an issue reference (#123), or at a
// final paragraph made only of git trailers.
func Parse(raw string) Message {
	raw = strings.ReplaceAll(raw, "\r\n", "\n")
	lines := strings.Split(raw, "\n")
	m := Message{Raw: raw, Lines: lines, Header: lines[0]}
	if g := headerRe.FindStringSubmatch(m.Header); g != nil {
		m.HeaderMatched = true
		m.Type, m.Scope, m.Bang, m.Subject = g[1], g[2], g[3] == "!", g[4]
		m.Breaking = m.Bang
	}
	rest := lines[1:]
	// The parser drops blank lines at the start and end of body and footer.
	var body, footer []string
	inFooter := false
	for _, l := range rest {
		if !inFooter {
			if notesRe.MatchString(l) || refPartRe.MatchString(l) {
				inFooter = true
			}
		}
		if inFooter {
			footer = append(footer, l)
		} else {
			body = append(body, l)
		}
	}
	m.Body = trimBlank(body)
	m.Footer = trimBlank(footer)
	var cur *Note
	for _, l := range footer {
		if g := notesRe.FindStringSubmatch(l); g != nil {
			m.Notes = append(m.Notes, Note{Title: g[1], Text: strings.TrimSpace(g[2])})
			m.Breaking = true
			cur = &m.Notes[len(m.Notes)-1]
			continue
		}
		if trailerRe.MatchString(l) {
			cur = nil
			continue
		}
		if cur != nil && l != "" {
			cur.Text = strings.TrimSpace(cur.Text + "\n" + l)
		}
	}
	m.Trailers = trailers(rest)
	return m
}

// trailers reads git trailers (Key: value, BREAKING CHANGE: …, Key #ref) from
// the last paragraph when every line of it is one. They are reported on their
// own: commitlint keeps such lines in the body unless they carry a reference,
// and the rules follow commitlint's split.
func trailers(rest []string) []Note {
	end := len(rest)
	for end > 0 && strings.TrimSpace(rest[end-1]) == "" {
		end--
	}
	start := end
	for start > 0 && strings.TrimSpace(rest[start-1]) != "" {
		start--
	}
	if start == 0 || start == end {
		return nil // no body paragraph before it: the header is not a trailer block
	}
	var out []Note
	for _, l := range rest[start:end] {
		g := trailerRe.FindStringSubmatch(l)
		if g == nil {
			if len(out) > 0 && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) {
				out[len(out)-1].Text += "\n" + strings.TrimSpace(l)
				continue
			}
			return nil
		}
		if g[1] != "" {
			out = append(out, Note{Title: g[1], Text: g[2]})
		} else {
			out = append(out, Note{Title: g[3], Text: g[4]})
		}
	}
	return out
}

func trimBlank(ls []string) string {
	for len(ls) > 0 && strings.TrimSpace(ls[0]) == "" {
		ls = ls[1:]
	}
	for len(ls) > 0 && strings.TrimSpace(ls[len(ls)-1]) == "" {
		ls = ls[:len(ls)-1]
	}
	return strings.Join(ls, "\n")
}
