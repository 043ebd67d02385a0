package ignore

import (
	"strings"
	"testing"
)

// Repeated "**/" made git's backtracking exponential: twelve of them
// against a path 24 directories deep took 27 s (found by
// FuzzIgnorePattern). Each (pattern, text) suffix pair is now worked out
// once, so the number of steps stays within pattern length x path length.
func TestWildmatchStarStarIsNotExponential(t *testing.T) {
	for _, n := range []int{12, 40} {
		pat := strings.Repeat("**/", n) + "x"
		for _, tt := range []struct {
			text string
			want int
		}{
			{strings.Repeat("a/", 2*n) + "y", wmNoMatch},
			{strings.Repeat("a/", 2*n) + "x", wmMatch},
			{"x", wmMatch},
		} {
			w := wild{pathname: true}
			got := w.match(pat, tt.text)
			if (got == wmMatch) != (tt.want == wmMatch) {
				t.Errorf("%q on %q = %d, want %d", pat, tt.text, got, tt.want)
			}
			if limit := 4 * (len(pat) + 1) * (len(tt.text) + 1); w.calls > limit {
				t.Errorf("%q on %q: %d steps, more than %d", pat, tt.text, w.calls, limit)
			}
		}
	}
}
