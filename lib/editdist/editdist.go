// Package editdist is the Levenshtein edit distance, the one implementation
// behind fuzzy edits (lib/edit), model suggestions (lib/llm) and the "did
// you mean" of server names, tools, flags and subcommands (Suggest).
package editdist

import "strings"

// Suggest returns the known names closest to name, for "did you mean"
// messages: those at the least edit distance, case-insensitively, when it
// is at most 2 and less than name's length; one a prefix of the other
// (3 bytes or longer) counts as distance 1.
func Suggest(name string, known []string) []string {
	var out []string
	best := 3
	lname := strings.ToLower(name)
	for _, k := range known {
		lk := strings.ToLower(k)
		d := Strings(lname, lk)
		if d >= len([]rune(name)) {
			d = 3
		}
		if len(name) >= 3 && strings.HasPrefix(lk, lname) || len(k) >= 3 && strings.HasPrefix(lname, lk) {
			d = min(d, 1)
		}
		switch {
		case d > 2:
		case d < best:
			best, out = d, []string{k}
		case d == best:
			out = append(out, k)
		}
	}
	return out
}

// Distance is the number of single-rune insertions, deletions and
// substitutions that turn a into b.
func Distance(a, b []rune) int { return Row(a, b, false)[len(b)] }

// Strings is Distance over the runes of two strings.
func Strings(a, b string) int { return Distance([]rune(a), []rune(b)) }

// Row is the last row of the edit-distance table of a against b: its j-th
// value is the distance of a to b[:j]. With anywhere, a match may start at
// any position of b (the first row is all 0), so min(Row) is the distance
// of a to its nearest substring of b: approximate substring matching.
func Row(a, b []rune, anywhere bool) []int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	if !anywhere {
		for j := range prev {
			prev[j] = j
		}
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev
}
