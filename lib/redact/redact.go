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
