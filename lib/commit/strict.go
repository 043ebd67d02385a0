package commit

import (
	"strings"
)

// pastTense is the reference agent's 50-verb allow-list plus agentutils'
// irregular past forms (commit.md §2.10 and §6.9 item 13).
var pastTense = setOf(`added adjusted aligned bumped changed cleaned clarified consolidated converted corrected
created deployed deprecated disabled documented dropped enabled expanded extracted fixed hardened implemented
improved integrated introduced migrated moved optimized patched prevented reduced refactored removed renamed
reorganized replaced resolved restored restructured reworked secured simplified stabilized standardized
streamlined tightened tuned updated upgraded validated
began bound brought built caught chose cut drew fed found froze gave got hid held kept laid led left lent let
lost made met overrode paid put ran read rebuilt reran reset rewrote rode saw sent set shed shut sped spent
split stood stuck swept threw took tore undid unset upheld withdrew won wound wrote`)

var notPast = setOf("hundred red bed")

var fillerWords = []string{"comprehensive", "various", "several", "improved", "enhanced", "better"}
var metaPhrases = []string{"this commit", "this change", "updated code", "modified files"}

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var nonAZ = lazyRe(`[^a-z]`)

// PastTense reports whether the first word of a summary reads as a past-tense verb.
func PastTense(summary string) bool {
	f := strings.Fields(summary)
	if len(f) == 0 {
		return false
	}
	w := nonAZ().ReplaceAllString(strings.ToLower(f[0]), "")
	return pastTense[w] || (strings.HasSuffix(w, "ed") && !notPast[w])
}

func subjectTense(m Message, rc RuleConfig) []string {
	if m.Subject == "" || PastTense(m.Subject) {
		return nil
	}
	return []string{"Summary must start with a past-tense verb"}
}

func wordList(prefix string, list []string) ruleFunc {
	return func(m Message, rc RuleConfig) []string {
		low := strings.ToLower(m.Subject)
		var out []string
		for _, w := range list {
			if strings.Contains(low, w) {
				out = append(out, prefix+w)
			}
		}
		return out
	}
}

var scopeSegRe = lazyRe(`^[a-z0-9][a-z0-9-_]*$`)

// ValidScope is the reference's validateScope: at most two lowercase
// segments separated by "/".
func ValidScope(scope string) bool {
	if scope == "" {
		return true
	}
	segs := strings.Split(scope, "/")
	if len(segs) > 2 {
		return false
	}
	for _, s := range segs {
		if !scopeSegRe().MatchString(s) {
			return false
		}
	}
	return true
}

func scopeFormat(m Message, rc RuleConfig) []string {
	if ValidScope(m.Scope) {
		return nil
	}
	return []string{"scope must be one or two lowercase segments (a-z, 0-9, -, _) separated by /"}
}

func details(m Message) []string {
	var out []string
	for _, l := range strings.Split(m.Body, "\n") {
		if strings.HasPrefix(l, "- ") {
			out = append(out, strings.TrimSpace(l[2:]))
		}
	}
	return out
}

func detailFullStop(m Message, rc RuleConfig) []string {
	var out []string
	for _, d := range details(m) {
		if !strings.HasSuffix(d, ".") {
			out = append(out, "Detail must end with a period: "+d)
		}
	}
	return out
}

func detailMaxLength(m Message, rc RuleConfig) []string {
	n := intValue(rc.Value, 120)
	var out []string
	for _, d := range details(m) {
		if len([]rune(d)) > n {
			out = append(out, "Detail exceeds 120 characters: "+d)
		}
	}
	return out
}
