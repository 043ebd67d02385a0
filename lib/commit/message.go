// Package commit holds the pure parts of agent-commit: the Conventional
// Commits 1.0 parser, commitlint's config-conventional rules (same names,
// levels and messages), the strict profile, unified-diff parsing with the
// lock-file exclusions, and the Keep a Changelog [Unreleased] editor.
package commit

import (
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

// headerPattern is conventional-commits-parser's headerPattern in the
// conventionalcommits preset: JS \w is ASCII, the type may be empty and the
// scope is greedy. matchHeader is a hand-written matcher for it
// (FuzzMatchHeader checks them against each other), so a linting process
// compiles no regexp for the header.
const headerPattern = `^([A-Za-z0-9_]*)(?:\((.*)\))?(!?): (.*)$`

// matchHeader returns type, scope, bang and subject as the pattern's groups.
func matchHeader(h string) (typ, scope string, bang bool, subject string, ok bool) {
	if strings.Contains(h, "\n") {
		return "", "", false, "", false // . and $ stop at a newline
	}
	i := 0
	for i < len(h) && (h[i] == '_' || h[i] >= 'a' && h[i] <= 'z' || h[i] >= 'A' && h[i] <= 'Z' || h[i] >= '0' && h[i] <= '9') {
		i++
	}
	typ = h[:i]
	rest := func(k int) (bool, string, bool) { // (!?): (.*)$ at k
		if strings.HasPrefix(h[k:], "!: ") {
			return true, h[k+3:], true
		}
		if strings.HasPrefix(h[k:], ": ") {
			return false, h[k+2:], true
		}
		return false, "", false
	}
	if i < len(h) && h[i] == '(' {
		// (.*) is greedy: the last ")" after which the rest matches.
		for j := strings.LastIndexByte(h, ')'); j > i; j = strings.LastIndexByte(h[:j], ')') {
			if b, sub, ok := rest(j + 1); ok {
				return typ, h[i+1 : j], b, sub, true
			}
		}
		return "", "", false, "", false
	}
	if b, sub, ok := rest(i); ok {
		return typ, "", b, sub, true
	}
	return "", "", false, "", false
}

var (
	notesRe   = lazyRe(`^[\s|*]*(BREAKING CHANGE|BREAKING-CHANGE)[:\s]+(.*)`)
	refPartRe = lazyRe(`#[\w-]*\d`)
	trailerRe = lazyRe(`^([A-Za-z][A-Za-z0-9-]*|BREAKING CHANGE): (.*)$|^([A-Za-z][A-Za-z0-9-]*) (#.*)$`)
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
	if typ, scope, bang, subject, ok := matchHeader(m.Header); ok {
		m.HeaderMatched = true
		m.Type, m.Scope, m.Bang, m.Subject = typ, scope, bang, subject
		m.Breaking = m.Bang
	}
	rest := lines[1:]
	// The parser drops blank lines at the start and end of body and footer.
	var body, footer []string
	inFooter := false
	for _, l := range rest {
		if !inFooter {
			if (strings.Contains(l, "BREAKING") && notesRe().MatchString(l)) || (strings.Contains(l, "#") && refPartRe().MatchString(l)) {
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
		if g := notesRe().FindStringSubmatch(l); g != nil {
			m.Notes = append(m.Notes, Note{Title: g[1], Text: strings.TrimSpace(g[2])})
			m.Breaking = true
			cur = &m.Notes[len(m.Notes)-1]
			continue
		}
		if trailerRe().MatchString(l) {
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
		g := trailerRe().FindStringSubmatch(l)
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
