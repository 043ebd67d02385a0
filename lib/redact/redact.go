// Package redact says what the tools must not see and what no one may
// read back: variable names that look secret, an environment without them,
// and keys masked in text (with the parts of a key that error messages
// quote). It is pure: environments and keys are passed in.
package redact

import (
	"fmt"
	"slices"
	"strings"
)

// SecretWords are the parts of a variable name that make it look secret
// (matched case-insensitively anywhere in the name).
var SecretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL"}

// MinLen is the shortest value treated as a secret (shorter ones would
// hide ordinary words); llm.MinSecretLen is the same rule.
const MinLen = 8

// SecretName says whether a variable's name looks secret.
func SecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range SecretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// Environ is environ (NAME=VALUE entries, in order) without the variables
// whose names look secret or whose value is one of values (a key read
// from a variable of any name), but for the names in keep, which the user
// chose to hand on.
func Environ(environ, keep, values []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, val, _ := strings.Cut(kv, "=")
		if !slices.Contains(keep, name) && (SecretName(name) || isValue(val, values)) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func isValue(v string, values []string) bool {
	return len(v) >= MinLen && slices.Contains(values, v)
}

// CheckNames reports the first of names that is not a variable name
// (letters, digits and _, not starting with a digit).
func CheckNames(names []string) error {
	for _, n := range names {
		ok := n != ""
		for i, r := range n {
			if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
				ok = false
			}
		}
		if !ok {
			return fmt.Errorf("%q is not a variable name", n)
		}
	}
	return nil
}

// Masked stands where Mask took a secret out.
const Masked = "[REDACTED]"

// PartLen is the shortest part of a secret that Mask hides on its own:
// error messages quote a key's first characters ("Incorrect API key
// provided: sk-proj-abc…").
const PartLen = 8

// Mask replaces in text every secret (values of MinLen characters or
// more), every part of one at least PartLen long, and a run of three or
// more '*', '.' or '…' followed by a secret's last four characters
// (OpenAI's "sk-proj-****…abcd"), with Masked. It is for what a provider
// sends back (error bodies, headers, streams) before it becomes text
// anyone reads or stores.
func Mask(text string, secrets []string) string {
	var keys []string
	for _, s := range secrets {
		if len(s) >= MinLen {
			keys = append(keys, s)
		}
	}
	if len(keys) == 0 || len(text) < 4 {
		return text
	}
	grams := map[string]bool{}
	for _, k := range keys {
		for i := 0; i+PartLen <= len(k); i++ {
			grams[k[i:i+PartLen]] = true
		}
	}
	var b strings.Builder
	last := 0
	for i := 0; i+PartLen <= len(text); {
		if !grams[text[i:i+PartLen]] {
			i++
			continue
		}
		j := i + PartLen
		for j < len(text) && partOf(text[i:j+1], keys) {
			j++
		}
		b.WriteString(text[last:i])
		b.WriteString(Masked)
		i, last = j, j
	}
	b.WriteString(text[last:])
	out := b.String()
	for _, k := range keys {
		out = maskTail(out, k[len(k)-4:])
	}
	for strings.Contains(out, Masked+Masked) {
		out = strings.ReplaceAll(out, Masked+Masked, Masked)
	}
	return out
}

func partOf(s string, keys []string) bool {
	for _, k := range keys {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// maskTail masks tail where a run of three or more of '*', '.', '…'
// comes before it, with the run.
func maskTail(text, tail string) string {
	var b strings.Builder
	last := 0
	for i := 0; ; {
		j := strings.Index(text[i:], tail)
		if j < 0 {
			break
		}
		at := i + j
		start, n := at, 0
		for start > last {
			if strings.HasSuffix(text[:start], "…") {
				start -= len("…")
			} else if c := text[start-1]; c == '*' || c == '.' {
				start--
			} else {
				break
			}
			n++
		}
		if n >= 3 {
			b.WriteString(text[last:start])
			b.WriteString(Masked)
			last = at + len(tail)
		}
		i = at + len(tail)
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}
