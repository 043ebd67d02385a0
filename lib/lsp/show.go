package lsp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Severities are the names of diagnostic severities 1-4.
var severities = []string{"", "error", "warning", "info", "hint"}

// SeverityName is the name of severity s ("error" for an absent one, as
// the protocol says a client may take it).
func SeverityName(s int) string {
	if s < 1 || s > 4 {
		return "error"
	}
	return severities[s]
}

// Lines splits a document into lines, without their line ends.
func Lines(text string) []string {
	ls := strings.Split(text, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}

// Where is "name:LINE:COL" of position p, the line and column 1-based,
// the column in characters of lines' line.
func Where(name string, lines []string, p Position, u Units) string {
	col := p.Character + 1
	if p.Line >= 0 && p.Line < len(lines) {
		col = u.Column(lines[p.Line], p)
	}
	return fmt.Sprintf("%s:%d:%d", name, p.Line+1, col)
}

// DiagnosticsNote heads the new errors the language servers found in the
// files a write, edit or apply_patch changed, at the end of its result's
// text; the result's details.diagnostics holds them too (the text after
// this head), for the person's card.
const DiagnosticsNote = "Language server diagnostics:\n"

const late = " sent no diagnostics within "

// Late is the line of DiagnosticsNote's text that says file's server
// sent no diagnostics within wait (IsLate tells it from an error's).
func Late(file, server string, wait time.Duration) string {
	return file + ": " + server + late + wait.String() + "."
}

// IsLate says whether line of DiagnosticsNote's text is a Late line.
func IsLate(line string) bool {
	return strings.Contains(line, late) && !strings.Contains(line, ": error: ")
}

// ShowDiagnostics is one line per diagnostic, in the order of their
// positions: "name:3:5: error: undefined: foo (compiler)".
func ShowDiagnostics(name string, lines []string, ds []Diagnostic, u Units) string {
	ds = sorted(ds)
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s: %s: %s", Where(name, lines, d.Range.Start, u), SeverityName(d.Severity), oneLine(d.Message))
		if d.Source != "" {
			fmt.Fprintf(&b, " (%s)", d.Source)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func sorted(ds []Diagnostic) []Diagnostic {
	ds = append([]Diagnostic(nil), ds...)
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Range.Start, ds[j].Range.Start
		return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
	})
	return ds
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

// Errors are the diagnostics of severity error.
func Errors(ds []Diagnostic) []Diagnostic {
	var out []Diagnostic
	for _, d := range ds {
		if SeverityName(d.Severity) == "error" {
			out = append(out, d)
		}
	}
	return out
}

// New are the diagnostics of after that before did not have: each of
// before's cancels one of after's with the same severity, source and
// message (positions move when lines are added above).
func New(before, after []Diagnostic) []Diagnostic {
	seen := map[string]int{}
	key := func(d Diagnostic) string {
		return fmt.Sprint(SeverityName(d.Severity), "\x00", d.Source, "\x00", d.Message)
	}
	for _, d := range before {
		seen[key(d)]++
	}
	var out []Diagnostic
	for _, d := range after {
		if k := key(d); seen[k] > 0 {
			seen[k]--
			continue
		}
		out = append(out, d)
	}
	return out
}

// HoverText is the text of a hover's contents: MarkupContent, a
// MarkedString, or a list of them.
func HoverText(raw json.RawMessage) string {
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(raw, &h) != nil || len(h.Contents) == 0 || string(h.Contents) == "null" {
		return ""
	}
	return strings.TrimSpace(marked(h.Contents))
}

func marked(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		var parts []string
		for _, m := range list {
			parts = append(parts, marked(m))
		}
		return strings.Join(parts, "\n\n")
	}
	var m struct {
		Kind     string `json:"kind"`
		Language string `json:"language"`
		Value    string `json:"value"`
	}
	if json.Unmarshal(raw, &m) == nil {
		if m.Language != "" {
			return "```" + m.Language + "\n" + m.Value + "\n```"
		}
		return m.Value
	}
	return ""
}

// Locations are the locations of a definition's or references' answer:
// null, a Location, or a list of Locations or LocationLinks.
func Locations(raw json.RawMessage) ([]Location, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	type link struct {
		Location
		TargetURI            string `json:"targetUri"`
		TargetSelectionRange *Range `json:"targetSelectionRange"`
	}
	conv := func(l link) Location {
		if l.TargetURI != "" && l.TargetSelectionRange != nil {
			return Location{URI: l.TargetURI, Range: *l.TargetSelectionRange}
		}
		return l.Location
	}
	var one link
	if raw[0] == '{' {
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, fmt.Errorf("lsp: a location: %v", err)
		}
		return []Location{conv(one)}, nil
	}
	var many []link
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("lsp: locations: %v", err)
	}
	out := make([]Location, 0, len(many))
	for _, l := range many {
		out = append(out, conv(l))
	}
	return out, nil
}

// Apply applies edits (ranges of the original text, not overlapping, in
// any order) to text.
func Apply(text string, edits []TextEdit, u Units) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	offset := func(p Position) (int, error) {
		if p.Line > len(lines) || p.Line < 0 {
			return 0, fmt.Errorf("lsp: an edit at line %d of a %d-line text", p.Line+1, len(lines))
		}
		start := 0
		for _, l := range lines[:p.Line] {
			start += len(l)
		}
		if p.Line == len(lines) {
			return start, nil
		}
		return start + u.Byte(strings.TrimRight(lines[p.Line], "\r\n"), p.Character), nil
	}
	type span struct {
		a, b int
		s    string
	}
	var spans []span
	for _, e := range edits {
		a, err := offset(e.Range.Start)
		if err != nil {
			return "", err
		}
		b, err := offset(e.Range.End)
		if err != nil {
			return "", err
		}
		if b < a {
			return "", fmt.Errorf("lsp: an edit whose end is before its start")
		}
		spans = append(spans, span{a, b, e.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s.a < at {
			return "", fmt.Errorf("lsp: overlapping edits")
		}
		b.WriteString(text[at:s.a])
		b.WriteString(s.s)
		at = s.b
	}
	b.WriteString(text[at:])
	return b.String(), nil
}
