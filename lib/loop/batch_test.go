package loop

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/event"
)

func TestPlan(t *testing.T) {
	const s, x = event.Shared, event.Exclusive
	tests := []struct {
		in   []string
		want [][]int
	}{
		{nil, nil},
		{[]string{s}, [][]int{{0}}},
		{[]string{s, s, s}, [][]int{{0, 1, 2}}},
		{[]string{x}, [][]int{{0}}},
		{[]string{x, x}, [][]int{{0}, {1}}},
		{[]string{s, s, x, s}, [][]int{{0, 1}, {2}, {3}}},
		{[]string{x, s, "", x, s, s}, [][]int{{0}, {1, 2}, {3}, {4, 5}}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, Plan(tt.in)); d != "" {
			t.Errorf("Plan(%v) (-want +got):\n%s", tt.in, d)
		}
	}
}
