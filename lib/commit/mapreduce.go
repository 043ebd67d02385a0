package commit

import (
	"fmt"
	"strings"
)

// Map-reduce thresholds (the reference's commit.* settings defaults).
const (
	MapReduceMinFiles     = 4     // non-excluded files that trigger map-reduce
	MapReduceMaxFileToken = 50000 // one file above this many tokens (chars/4) triggers it; also the per-file cut
	MapReduceConcurrency  = 5     // parallel map calls
	MapAttempts           = 3     // tries per map call (linear backoff)
)

// fileText is a file's diff section as sent to the model; a file the parser
// did not keep whole ends with a marker.
func fileText(f FileDiff) string {
	var b strings.Builder
	b.WriteString(f.Header)
	if !f.Binary {
		for _, h := range f.Hunks {
			if h.Content != "" {
				b.WriteString(h.Content + "\n")
			}
		}
	}
	if f.Truncated {
		fmt.Fprintf(&b, "... (cut: this file's diff has %d bytes, +%d -%d lines) ...\n", f.Size, f.Additions, f.Deletions)
	}
	return b.String()
}

// diffSize is the size of a file's diff section.
func diffSize(f FileDiff) int {
	if f.Size > 0 {
		return int(f.Size)
	}
	return len(fileText(f))
}

// MapFiles returns the files a map phase looks at (lock files excluded) and
// whether the diff is big enough for map-reduce at all.
func MapFiles(files []FileDiff) ([]FileDiff, bool) {
	var out []FileDiff
	big := false
	for _, f := range files {
		if Excluded(f.Path) {
			continue
		}
		out = append(out, f)
		if diffSize(f)/4 > MapReduceMaxFileToken {
			big = true
		}
	}
	return out, big || len(out) >= MapReduceMinFiles
}

// MapSystemPrompt asks for short observations about one file.
const MapSystemPrompt = `You look at the diff of ONE file from a larger commit. In at most 5 short
lines, say what changed in this file and why it matters. Plain text, no preamble.`

// MapPrompt is the user prompt of one map call; the file's diff is cut at
// MapReduceMaxFileToken tokens.
func MapPrompt(f FileDiff) string {
	d := fileText(f)
	if max := MapReduceMaxFileToken * 4; len(d) > max {
		cut := strings.LastIndex(d[:max], "\n") + 1
		d = d[:cut] + fmt.Sprintf("... (truncated %d characters) ...\n", len(d)-cut)
	}
	return fmt.Sprintf("File: %s (%s, +%d -%d)\n\n%s", f.Path, f.Status, f.Additions, f.Deletions, d)
}

// ReducePrompt replaces the diff with the per-file observations for the
// analysis call of a big change.
func ReducePrompt(files []FileDiff, observations []string, scopes ScopeHint, userContext string) string {
	var b strings.Builder
	if userContext != "" {
		fmt.Fprintf(&b, "Context from the author:\n%s\n\n", userContext)
	}
	b.WriteString(scopes.prompt())
	b.WriteString("The change is large; here are observations per file instead of the diff.\n\n")
	for i, f := range files {
		fmt.Fprintf(&b, "## %s (%s, +%d -%d)\n%s\n\n", f.Path, f.Status, f.Additions, f.Deletions, strings.TrimSpace(observations[i]))
	}
	return b.String()
}
