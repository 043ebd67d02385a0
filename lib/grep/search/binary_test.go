package search

import "testing"

// TestRolled: where rg's buffer begins after a roll: past the searched
// lines, or at the context it keeps.
func TestRolled(t *testing.T) {
	buf := []byte("aa\nbb\ncc\ndd\n")
	for ctx, want := range []int{12, 6, 3, 0, 0} {
		if got := rolled(buf, ctx); got != want {
			t.Errorf("rolled(ctx %d) = %d, want %d", ctx, got, want)
		}
	}
}
