package commit

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Level is a rule severity as commitlint numbers it: 0 off, 1 warning, 2 error.
type Level int

const (
	Off     Level = 0
	Warning Level = 1
	Error   Level = 2
)

// RuleConfig is one commitlint rule setting: [level, when, value].
type RuleConfig struct {
	Level Level
	When  string // "always" or "never"
	Value any    // []string, string, int, or nil
}

// Config is a set of rule settings by rule name.
type Config map[string]RuleConfig

// Types are config-conventional's type-enum.
var Types = []string{"build", "chore", "ci", "docs", "feat", "fix", "perf", "refactor", "revert", "style", "test"}

// Conventional returns commitlint's @commitlint/config-conventional rules.
func Conventional() Config {
	return Config{
		"body-leading-blank":     {Warning, "always", nil},
		"body-max-line-length":   {Error, "always", 100},
		"footer-leading-blank":   {Warning, "always", nil},
		"footer-max-line-length": {Error, "always", 100},
		"header-max-length":      {Error, "always", 100},
		"header-trim":            {Error, "always", nil},
		"subject-case":           {Error, "never", []string{"sentence-case", "start-case", "pascal-case", "upper-case"}},
		"subject-empty":          {Error, "never", nil},
		"subject-full-stop":      {Error, "never", "."},
		"type-case":              {Error, "always", "lower-case"},
		"type-empty":             {Error, "never", nil},
		"type-enum":              {Error, "always", append([]string(nil), Types...)},
	}
}

// Strict is Conventional plus the reference agent's own summary rules: a
// 72-character header, a past-tense first word, no filler words or meta
// phrases, detail bullets ending in a period.
func Strict() Config {
	c := Conventional()
	c["header-max-length"] = RuleConfig{Error, "always", 72}
	c["subject-tense"] = RuleConfig{Error, "always", "past"}
	c["subject-filler"] = RuleConfig{Warning, "never", nil}
	c["subject-meta"] = RuleConfig{Warning, "never", nil}
	c["scope-format"] = RuleConfig{Error, "always", nil}
	c["detail-full-stop"] = RuleConfig{Warning, "always", "."}
	c["detail-max-length"] = RuleConfig{Warning, "always", 120}
	return c
}

// Problem is one rule hit.
type Problem struct {
	Level   Level  `json:"level"`
	Rule    string `json:"name"`
	Message string `json:"message"`
}

// Result is the verdict on one message, shaped like commitlint's report.
type Result struct {
	Valid    bool      `json:"valid"`
	Ignored  bool      `json:"ignored,omitempty"`
	Input    string    `json:"input"`
	Errors   []Problem `json:"errors"`
	Warnings []Problem `json:"warnings"`
}

var ignoreRes = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`(?m)^((Merge pull request)|(Merge (.*?) into (.*?)|(Merge branch (.*?)))(?:\r?\n)*$)`),
		regexp.MustCompile(`(?m)^(Merge tag (.*?))(?:\r?\n)*$`),
		regexp.MustCompile(`^(R|r)evert (.*)`),
		regexp.MustCompile(`^(R|r)eapply (.*)`),
		regexp.MustCompile(`^(amend|fixup|squash)!`),
		regexp.MustCompile(`^(Merged (.*?)(in|into) (.*)|Merged PR (.*): (.*))`),
		regexp.MustCompile(`^Merge remote-tracking branch(\s*)(.*)`),
		regexp.MustCompile(`^Automatic merge(.*)`),
		regexp.MustCompile(`^Auto-merged (.*?) into (.*)`),
	}
})

// ignorePrefixes are the literal starts of the ignore patterns that are
// anchored at the message start; the others need "Merge" in the message.
var ignorePrefixes = []string{"Revert ", "revert ", "Reapply ", "reapply ", "amend!", "fixup!", "squash!", "Automatic merge", "Auto-merged "}

// mayBeIgnored is a cheap test that is true whenever an ignore pattern can
// match, so most messages never compile them.
func mayBeIgnored(msg string) bool {
	if strings.Contains(msg, "Merge") {
		return true
	}
	for _, p := range ignorePrefixes {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

var semverRe = lazyRe(`^[v=]?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)
var skipCI1 = lazyRe(`(?i)\[(skip|ci)(-|\s)(ci|skip)\]`)
var skipCI2 = lazyRe(`(?i)\((skip|ci)(-|\s)(ci|skip)\)`)
var releasePrefixRe = lazyRe(`^chore(\([^)]+\))?:`)

// Ignored reports whether commitlint's default ignores skip the message:
// merges, reverts, reapplies, fixup!/squash!/amend! and release versions.
func Ignored(msg string) bool {
	if mayBeIgnored(msg) {
		for _, re := range ignoreRes() {
			if re.MatchString(msg) {
				return true
			}
		}
	}
	first, _, _ := strings.Cut(msg, "\n")
	v := first
	if strings.HasPrefix(v, "chore") {
		v = releasePrefixRe().ReplaceAllString(v, "")
	}
	if strings.Contains(v, "[") {
		v = skipCI1().ReplaceAllString(v, "")
	}
	if strings.Contains(v, "(") {
		v = skipCI2().ReplaceAllString(v, "")
	}
	v = strings.TrimSpace(v)
	// A version starts with v, = or a digit; anything else cannot match.
	if v == "" || !(v[0] == 'v' || v[0] == '=' || (v[0] >= '0' && v[0] <= '9')) {
		return false
	}
	return semverRe().MatchString(v)
}

// Lint checks a cleaned message against cfg. Rules run in name order, as
// commitlint reports them.
func Lint(msg string, cfg Config) Result {
	r := Result{Input: msg, Errors: []Problem{}, Warnings: []Problem{}}
	if Ignored(msg) {
		r.Valid, r.Ignored = true, true
		return r
	}
	m := Parse(msg)
	names := make([]string, 0, len(cfg))
	for n := range cfg {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		rc := cfg[n]
		if rc.Level == Off {
			continue
		}
		fn, ok := rules[n]
		if !ok {
			continue
		}
		for _, text := range fn(m, rc) {
			p := Problem{Level: rc.Level, Rule: n, Message: text}
			if rc.Level == Error {
				r.Errors = append(r.Errors, p)
			} else {
				r.Warnings = append(r.Warnings, p)
			}
		}
	}
	r.Valid = len(r.Errors) == 0
	return r
}

// KnownRule reports whether a rule name is implemented.
func KnownRule(name string) bool { _, ok := rules[name]; return ok }

type ruleFunc func(m Message, rc RuleConfig) []string

func never(rc RuleConfig) bool { return rc.When == "never" }

// check turns a commitlint-style (ok, message) into a hit list, honouring
// "never" by negation.
func check(rc RuleConfig, ok bool, msg string) []string {
	if never(rc) {
		ok = !ok
	}
	if ok {
		return nil
	}
	return []string{msg}
}

func must(rc RuleConfig) string {
	if never(rc) {
		return "must not"
	}
	return "must"
}

func may(rc RuleConfig) string {
	if never(rc) {
		return "may not"
	}
	return "must"
}

func jsLen(s string) int { return len(utf16.Encode([]rune(s))) }

func intValue(v any, def int) int {
	switch x := v.(type) {
	case int:
		return x
	case float64:
		return int(x)
	case json.Number:
		n, err := x.Int64()
		if err == nil {
			return int(n)
		}
	}
	return def
}

func listValue(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func maxLineLength(s string, n int) bool {
	for _, l := range strings.Split(s, "\n") {
		if jsLen(l) > n && !urlRe().MatchString(l) {
			return false
		}
	}
	return true
}

// urlRe exempts lines with a URL from the line-length rules, as commitlint does.
var urlRe = lazyRe(`\bhttps?://\S+`)

var scopeSplitRe = lazyRe(`[/\\,]\s?`)

// startsWithLetter is /^[\p{Ll}\p{Lu}\p{Lt}]/ without compiling the
// Unicode classes.
func startsWithLetter(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n > 0 && r != utf8.RuneError && (unicode.Is(unicode.Ll, r) || unicode.Is(unicode.Lu, r) || unicode.Is(unicode.Lt, r))
}

var quotedRe = lazyRe("`.*?`|\".*?\"|'.*?'")

// ensureCase is @commitlint/ensure's case check: quoted parts are ignored,
// and an empty or digit-led transform always passes.
func ensureCase(raw, target string) bool {
	in := raw
	if strings.ContainsAny(raw, "`\"'") {
		in = quotedRe().ReplaceAllString(raw, "")
	}
	in = strings.TrimSpace(in)
	t := toCase(in, target)
	if t == "" || (t[0] >= '0' && t[0] <= '9') {
		return true
	}
	return t == in
}

func upperFirst(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}

// wordPattern is lodash's word split as commitlint's case rules use it;
// words is a hand-written matcher for it (FuzzWords checks them against
// each other), because compiling \p{L} costs a linting process more than
// the whole lint.
const wordPattern = `[A-Z]{2,}(?:[a-z]+)?|[A-Z]?[a-z]+|[A-Z]+|[0-9]+|[\p{L}]+`

func words(s string) []string {
	var out []string
	isUp := func(i int) bool { return i < len(s) && s[i] >= 'A' && s[i] <= 'Z' }
	isLow := func(i int) bool { return i < len(s) && s[i] >= 'a' && s[i] <= 'z' }
	isDigit := func(i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }
	letterAt := func(i int) int { // width of the letter at i, 0 when none
		if i >= len(s) {
			return 0
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || !unicode.IsLetter(r) {
			return 0
		}
		return n
	}
	for i := 0; i < len(s); {
		j := i
		switch {
		case isUp(i):
			for isUp(j) {
				j++
			}
			switch {
			case j-i >= 2: // [A-Z]{2,}(?:[a-z]+)?
				for isLow(j) {
					j++
				}
			case isLow(j): // [A-Z]?[a-z]+
				for isLow(j) {
					j++
				}
			} // else [A-Z]+: the one capital
		case isLow(i):
			for isLow(j) {
				j++
			}
		case isDigit(i):
			for isDigit(j) {
				j++
			}
		default:
			for n := letterAt(j); n > 0; n = letterAt(j) {
				j += n
			}
		}
		if j == i {
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
			continue
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func toCase(in, target string) string {
	switch target {
	case "lower-case", "lowercase", "lowerCase":
		return strings.ToLower(in)
	case "upper-case", "uppercase":
		return strings.ToUpper(in)
	case "sentence-case", "sentencecase":
		return upperFirst(in)
	case "start-case":
		ws := words(in)
		for i, w := range ws {
			ws[i] = upperFirst(w)
		}
		return strings.Join(ws, " ")
	case "pascal-case":
		return upperFirst(camel(in))
	case "camel-case":
		return camel(in)
	case "kebab-case", "snake-case":
		ws := words(in)
		for i, w := range ws {
			ws[i] = strings.ToLower(w)
		}
		sep := "-"
		if target == "snake-case" {
			sep = "_"
		}
		return strings.Join(ws, sep)
	}
	return in
}

func camel(in string) string {
	ws := words(in)
	for i, w := range ws {
		w = strings.ToLower(w)
		if i > 0 {
			w = upperFirst(w)
		}
		ws[i] = w
	}
	return strings.Join(ws, "")
}

func caseRule(field string) ruleFunc {
	return func(m Message, rc RuleConfig) []string {
		v := m.Subject
		if field == "type" {
			v = m.Type
		} else if field == "scope" {
			v = m.Scope
		}
		if v == "" {
			return nil
		}
		if field == "subject" && !startsWithLetter(v) {
			return nil
		}
		cases := listValue(rc.Value)
		vals := []string{v}
		if field == "scope" {
			vals = scopeSplitRe().Split(v, -1)
		}
		ok := true
		for _, x := range vals {
			any := false
			for _, c := range cases {
				if ensureCase(x, c) {
					any = true
				}
			}
			if never(rc) {
				any = !any
			}
			if !any {
				ok = false
			}
		}
		if ok {
			return nil
		}
		return []string{fmt.Sprintf("%s %s be %s", field, must(rc), strings.Join(cases, ", "))}
	}
}

func emptyRule(field string) ruleFunc {
	return func(m Message, rc RuleConfig) []string {
		v := map[string]string{"type": m.Type, "subject": m.Subject, "scope": m.Scope, "body": m.Body, "footer": m.Footer, "header": m.Header}[field]
		return check(rc, v == "", fmt.Sprintf("%s %s be empty", field, may(rc)))
	}
}

var rules = map[string]ruleFunc{
	"type-empty":    emptyRule("type"),
	"subject-empty": emptyRule("subject"),
	"scope-empty":   emptyRule("scope"),
	"body-empty":    emptyRule("body"),
	"footer-empty":  emptyRule("footer"),
	"type-case":     caseRule("type"),
	"subject-case":  caseRule("subject"),
	"scope-case":    caseRule("scope"),
	"type-enum": func(m Message, rc RuleConfig) []string {
		if m.Type == "" {
			return nil
		}
		vals := listValue(rc.Value)
		in := false
		for _, v := range vals {
			if v == m.Type {
				in = true
			}
		}
		return check(rc, in, fmt.Sprintf("type %s be one of [%s]", must(rc), strings.Join(vals, ", ")))
	},
	"scope-enum": func(m Message, rc RuleConfig) []string {
		vals := listValue(rc.Value)
		if m.Scope == "" || len(vals) == 0 {
			return nil
		}
		ok := true
		for _, s := range scopeSplitRe().Split(m.Scope, -1) {
			in := false
			for _, v := range vals {
				if v == s {
					in = true
				}
			}
			if never(rc) {
				in = !in
			}
			ok = ok && in
		}
		if ok {
			return nil
		}
		return []string{fmt.Sprintf("scope %s be one of [%s]", must(rc), strings.Join(vals, ", "))}
	},
	"subject-full-stop": func(m Message, rc RuleConfig) []string {
		// commitlint checks the end of the whole header, not the subject,
		// skips a header that ends in its first colon, and lets "..." pass.
		if c := strings.Index(m.Header, ":"); c > 0 && c == len(m.Header)-1 {
			return nil
		}
		stop := "."
		if s, ok := rc.Value.(string); ok {
			stop = s
		}
		u := utf16.Encode([]rune(m.Header))
		st := utf16.Encode([]rune(stop))
		has := len(u) > 0 && len(st) > 0 && u[len(u)-1] == st[0]
		if strings.HasSuffix(m.Header, "...") {
			has = false
		}
		return check(rc, has, fmt.Sprintf("subject %s end with full stop", may(rc)))
	},
	"header-max-length":  maxLen("header", func(m Message) string { return m.Header }),
	"subject-max-length": maxLen("subject", func(m Message) string { return m.Subject }),
	"header-min-length":  minLen("header", func(m Message) string { return m.Header }),
	"subject-min-length": minLen("subject", func(m Message) string { return m.Subject }),
	"header-trim": func(m Message, rc RuleConfig) []string {
		start := m.Header != strings.TrimLeftFunc(m.Header, unicode.IsSpace)
		end := m.Header != strings.TrimRightFunc(m.Header, unicode.IsSpace)
		switch {
		case start && end:
			return []string{"header must not be surrounded by whitespace"}
		case start:
			return []string{"header must not start with whitespace"}
		case end:
			return []string{"header must not end with whitespace"}
		}
		return nil
	},
	"body-max-line-length":   maxLineRule("body's", func(m Message) string { return m.Body }),
	"footer-max-line-length": maxLineRule("footer's", func(m Message) string { return m.Footer }),
	"body-leading-blank": func(m Message, rc RuleConfig) []string {
		if m.Body == "" {
			return nil
		}
		lead := ""
		if len(m.Lines) > 1 {
			lead = m.Lines[1]
		}
		return check(rc, lead == "", fmt.Sprintf("body %s have leading blank line", must(rc)))
	},
	"footer-leading-blank": func(m Message, rc RuleConfig) []string {
		if m.Footer == "" {
			return nil
		}
		first, _, _ := strings.Cut(m.Footer, "\n")
		off := -1
		for i, l := range m.Lines {
			if l == first {
				off = i
				break
			}
		}
		// As commitlint: the line before the footer's first line, counted
		// from the end when that line is not found (JS slice(-n)).
		lead := ""
		if i := off - 1; i >= 0 {
			lead = m.Lines[i]
		} else if j := len(m.Lines) + i; j >= 0 && j < len(m.Lines) {
			lead = m.Lines[j]
		}
		return check(rc, lead == "", fmt.Sprintf("footer %s have leading blank line", must(rc)))
	},
	"subject-tense":     subjectTense,
	"subject-filler":    wordList("Avoid filler word: ", fillerWords),
	"subject-meta":      wordList("Avoid meta phrase: ", metaPhrases),
	"scope-format":      scopeFormat,
	"detail-full-stop":  detailFullStop,
	"detail-max-length": detailMaxLength,
}

func maxLen(field string, get func(Message) string) ruleFunc {
	return func(m Message, rc RuleConfig) []string {
		v := get(m)
		n := intValue(rc.Value, 100)
		if v == "" || jsLen(v) <= n {
			return nil
		}
		return []string{fmt.Sprintf("%s must not be longer than %d characters, current length is %d", field, n, jsLen(v))}
	}
}

func minLen(field string, get func(Message) string) ruleFunc {
	return func(m Message, rc RuleConfig) []string {
		v := get(m)
		n := intValue(rc.Value, 0)
		if v == "" || jsLen(v) >= n {
			return nil
		}
		return []string{fmt.Sprintf("%s must not be shorter than %d characters, current length is %d", field, n, jsLen(v))}
	}
}

func maxLineRule(field string, get func(Message) string) ruleFunc {
	return func(m Message, rc RuleConfig) []string {
		v := get(m)
		n := intValue(rc.Value, 100)
		if v == "" || maxLineLength(v, n) {
			return nil
		}
		return []string{fmt.Sprintf("%s lines must not be longer than %d characters", field, n)}
	}
}
