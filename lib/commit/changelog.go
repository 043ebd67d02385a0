package commit

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Categories are Keep a Changelog's section names in canonical order.
var Categories = []string{"Breaking Changes", "Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}

// ErrNoUnreleased is returned when a changelog has no [Unreleased] heading.
var ErrNoUnreleased = errors.New("no [Unreleased] section found in changelog")

var unreleasedRe = lazyRe(`(?i)^##\s+\[?Unreleased\]?`)

// Section is one "### Name" block of the [Unreleased] section. Items are the
// bullet entries ("- " or "* "), with wrapped continuation lines joined.
type Section struct {
	Name  string   `json:"name"`
	Items []string `json:"items"`
}

// Unreleased is the parsed [Unreleased] section. Start and End are 0-based
// line indexes (End exclusive: the next "## " heading or EOF).
type Unreleased struct {
	Start    int       `json:"start"`
	End      int       `json:"end"`
	Sections []Section `json:"sections"`
}

// ParseUnreleased finds and reads the [Unreleased] section of a changelog.
func ParseUnreleased(text string) (Unreleased, error) {
	lines := strings.Split(text, "\n")
	u := Unreleased{Start: -1}
	for i, l := range lines {
		if unreleasedRe().MatchString(strings.TrimSpace(l)) {
			u.Start = i
			break
		}
	}
	if u.Start < 0 {
		return u, ErrNoUnreleased
	}
	u.End = len(lines)
	for i := u.Start + 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "## ") {
			u.End = i
			break
		}
	}
	var cur *Section
	inItem := false
	for _, l := range lines[u.Start+1 : u.End] {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "### "):
			u.Sections = append(u.Sections, Section{Name: strings.TrimSpace(l[4:]), Items: []string{}})
			cur = &u.Sections[len(u.Sections)-1]
			inItem = false
		case cur != nil && (strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || t == "-" || t == "*"):
			cur.Items = append(cur.Items, strings.TrimSpace(t[1:]))
			inItem = true
		case cur != nil && inItem && t != "" && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")):
			cur.Items[len(cur.Items)-1] += " " + t
		default:
			inItem = false
		}
	}
	return u, nil
}

// Merge edits the [Unreleased] section in place: items in deletions are
// removed (case-insensitive, with their continuation lines), and each new item
// is appended under its existing "### Category" heading unless a
// case-insensitive duplicate exists; missing known headings are inserted in
// canonical order. Every other line is kept byte for byte. With create, a
// missing [Unreleased] section is added after the title.
func Merge(text string, entries, deletions map[string][]string, create bool) (string, error) {
	if _, err := ParseUnreleased(text); errors.Is(err, ErrNoUnreleased) {
		if !create {
			return "", err
		}
		text = insertUnreleased(text)
	}
	for cat, items := range deletions {
		text = deleteItems(text, cat, items)
	}
	for _, cat := range orderedKeys(entries) {
		for _, item := range entries[cat] {
			text = addItem(text, cat, item)
		}
	}
	return text, nil
}

func orderedKeys(m map[string][]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range Categories {
		if _, ok := m[c]; ok {
			out = append(out, c)
			seen[c] = true
		}
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func insertUnreleased(text string) string {
	lines := strings.Split(text, "\n")
	at := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "# ") {
			at = i + 1
			break
		}
	}
	// Insert before the first release heading when there is one after the title.
	for i := at; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "## ") {
			out := append([]string{}, lines[:i]...)
			out = append(out, "## [Unreleased]", "")
			return strings.Join(append(out, lines[i:]...), "\n")
		}
	}
	out := append([]string{}, lines[:at]...)
	if at > 0 {
		out = append(out, "")
	}
	out = append(out, "## [Unreleased]")
	if at < len(lines) {
		out = append(out, "")
	}
	return strings.Join(append(out, lines[at:]...), "\n")
}

// sectionSpan returns the [start,end) lines of "### cat" inside [Unreleased],
// or -1 when absent.
func sectionSpan(lines []string, u Unreleased, cat string) (int, int) {
	for i := u.Start + 1; i < u.End; i++ {
		if strings.HasPrefix(lines[i], "### ") && strings.EqualFold(strings.TrimSpace(lines[i][4:]), cat) {
			j := i + 1
			for j < u.End && !strings.HasPrefix(lines[j], "### ") {
				j++
			}
			return i, j
		}
	}
	return -1, -1
}

func isBullet(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ")
}

func addItem(text, cat, item string) string {
	item = strings.TrimSpace(item)
	if item == "" {
		return text
	}
	u, _ := ParseUnreleased(text)
	for _, s := range u.Sections {
		if strings.EqualFold(s.Name, cat) {
			for _, it := range s.Items {
				if strings.EqualFold(it, item) {
					return text
				}
			}
		}
	}
	lines := strings.Split(text, "\n")
	bullet := "- " + item
	if s, e := sectionSpan(lines, u, cat); s >= 0 {
		// After the last non-blank line of the section.
		at := e
		for at > s+1 && strings.TrimSpace(lines[at-1]) == "" {
			at--
		}
		return strings.Join(insert(lines, at, bullet), "\n")
	}
	// A new heading, placed before the first known heading that comes later
	// in canonical order, else at the end of the section.
	rank := indexOf(Categories, cat)
	at := -1
	for i := u.Start + 1; i < u.End && rank >= 0; i++ {
		if strings.HasPrefix(lines[i], "### ") {
			if r := indexOf(Categories, strings.TrimSpace(lines[i][4:])); r > rank {
				at = i
				break
			}
		}
	}
	if at >= 0 {
		return strings.Join(insert(lines, at, "### "+cat, "", bullet, ""), "\n")
	}
	at = u.End
	for at > u.Start+1 && strings.TrimSpace(lines[at-1]) == "" {
		at--
	}
	block := []string{"", "### " + cat, "", bullet}
	if u.End < len(lines) {
		block = append(block, "") // keep a blank line before the next release
	}
	if at < len(lines) && strings.TrimSpace(lines[at]) == "" && u.End < len(lines) {
		block = block[:len(block)-1]
	}
	return strings.Join(insert(lines, at, block...), "\n")
}

func deleteItems(text, cat string, items []string) string {
	u, err := ParseUnreleased(text)
	if err != nil {
		return text
	}
	lines := strings.Split(text, "\n")
	s, e := sectionSpan(lines, u, cat)
	if s < 0 {
		return text
	}
	drop := map[string]bool{}
	for _, it := range items {
		drop[strings.ToLower(strings.TrimSpace(it))] = true
	}
	var out []string
	out = append(out, lines[:s+1]...)
	for i := s + 1; i < e; i++ {
		l := lines[i]
		if isBullet(l) {
			j := i + 1
			full := strings.TrimSpace(strings.TrimSpace(l)[1:])
			for j < e && strings.TrimSpace(lines[j]) != "" && !isBullet(lines[j]) && (strings.HasPrefix(lines[j], " ") || strings.HasPrefix(lines[j], "\t")) {
				full += " " + strings.TrimSpace(lines[j])
				j++
			}
			if drop[strings.ToLower(full)] {
				i = j - 1
				// Do not leave two blank lines where the item was.
				if len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" && j < len(lines) && strings.TrimSpace(lines[j]) == "" {
					i = j
				}
				continue
			}
		}
		out = append(out, l)
	}
	out = append(out, lines[e:]...)
	return strings.Join(out, "\n")
}

func insert(lines []string, at int, add ...string) []string {
	out := make([]string, 0, len(lines)+len(add))
	out = append(out, lines[:at]...)
	out = append(out, add...)
	return append(out, lines[at:]...)
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if strings.EqualFold(x, s) {
			return i
		}
	}
	return -1
}

// ChangelogTarget is a CHANGELOG.md and the staged files it covers.
type ChangelogTarget struct {
	Path  string   `json:"path"`
	Files []string `json:"files"`
}

// ChangelogTargets finds, for each staged file, the nearest CHANGELOG.md at
// or above its directory up to the repository root (paths repo-relative,
// commit.md §4.1 with the §6.9 item 6 fix); tracked reports whether a
// changelog path is tracked. Changelog files themselves are skipped. The
// result is sorted by path.
func ChangelogTargets(staged []string, tracked func(string) bool) []ChangelogTarget {
	by := map[string]*ChangelogTarget{}
	var order []string
	for _, f := range staged {
		if strings.HasSuffix(strings.ToLower(f), "changelog.md") {
			continue
		}
		dir := f
		for {
			i := strings.LastIndex(dir, "/")
			if i < 0 {
				dir = ""
			} else {
				dir = dir[:i]
			}
			p := "CHANGELOG.md"
			if dir != "" {
				p = dir + "/CHANGELOG.md"
			}
			if tracked(p) {
				if by[p] == nil {
					by[p] = &ChangelogTarget{Path: p}
					order = append(order, p)
				}
				by[p].Files = append(by[p].Files, f)
				break
			}
			if dir == "" {
				break
			}
		}
	}
	slices.Sort(order)
	out := make([]ChangelogTarget, 0, len(order))
	for _, p := range order {
		out = append(out, *by[p])
	}
	return out
}

// ChangelogPrompt asks for changelog entries in the same answer as the
// message, one object per target.
func ChangelogPrompt(targets []ChangelogTarget) string {
	var b strings.Builder
	b.WriteString("\nAlso add \"changelog\" to the JSON object: {\"<changelog path>\": {\"<category>\": [\"entry\", ...]}} with one key for each ")
	b.WriteString("of these files (an empty object {} when the change is not user-visible):\n")
	for _, t := range targets {
		fmt.Fprintf(&b, "- %s (covers %s)\n", t.Path, strings.Join(t.Files, ", "))
	}
	b.WriteString("Categories: " + strings.Join(Categories, ", ") + ". Entries describe what users notice, start with a past-tense ")
	b.WriteString("verb, take one line and have no trailing period; leave out internal refactors, tests and formatting.\n")
	return b.String()
}

// CheckChangelog validates the changelog part of an answer against the
// targets asked for; "" when it is fine.
func CheckChangelog(cl map[string]map[string][]string, targets []ChangelogTarget) string {
	var probs []string
	want := map[string]bool{}
	for _, t := range targets {
		want[t.Path] = true
		if _, ok := cl[t.Path]; !ok {
			probs = append(probs, "changelog: missing the entry for "+t.Path+" (use {} when nothing is user-visible)")
		}
	}
	for _, p := range slices.Sorted(maps.Keys(cl)) {
		if !want[p] {
			probs = append(probs, "changelog: not expected: "+p)
			continue
		}
		for cat, items := range cl[p] {
			if indexOf(Categories, cat) < 0 {
				probs = append(probs, fmt.Sprintf("changelog: unknown category for %s: %s (use one of %s)", p, cat, strings.Join(Categories, ", ")))
			}
			for _, it := range items {
				if strings.TrimSpace(it) == "" {
					probs = append(probs, "changelog: empty entry in "+p+" "+cat)
				}
			}
		}
	}
	slices.Sort(probs)
	return strings.Join(probs, "\n")
}

// NormalizeEntries trims entries, strips one trailing period and drops
// empty and duplicate ones (commit.md §3.3 propose_changelog).
func NormalizeEntries(m map[string][]string) map[string][]string {
	out := map[string][]string{}
	for cat, items := range m {
		seen := map[string]bool{}
		for _, it := range items {
			it = strings.TrimSuffix(strings.TrimSpace(it), ".")
			if it == "" || seen[strings.ToLower(it)] {
				continue
			}
			seen[strings.ToLower(it)] = true
			out[cat] = append(out[cat], it)
		}
	}
	return out
}
