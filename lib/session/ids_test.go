package session

import (
	"fmt"
	"math/rand"
	"testing"
)

// IDTable answers as a map of first occurrences does, through growth.
func TestIDTableAsMap(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, hint := range []int{0, 5, 1000} {
		tab := NewIDTable(hint)
		if hint == 0 {
			tab = IDTable{}
		}
		want := map[string]int32{}
		for i := range int32(5000) {
			id := fmt.Sprintf("%x", rng.Intn(4000)) // repeats
			_, seen := want[id]
			if !seen {
				want[id] = i
			}
			if dup := tab.Add(id, i); dup != seen {
				t.Fatalf("hint %d: Add(%q) dup %v, want %v", hint, id, dup, seen)
			}
		}
		if tab.Len() != len(want) {
			t.Fatalf("Len %d, want %d", tab.Len(), len(want))
		}
		for id, i := range want {
			if j, ok := tab.Get(id); !ok || j != i {
				t.Fatalf("Get(%q) = %d %v, want %d", id, j, ok, i)
			}
		}
		for _, id := range []string{"", "zz", "not there"} {
			if _, ok := tab.Get(id); ok {
				t.Fatalf("Get(%q) found", id)
			}
		}
		n := 0
		tab.All(func(uint64) { n++ })
		if n != len(want) {
			t.Fatalf("All gave %d", n)
		}
	}
}
