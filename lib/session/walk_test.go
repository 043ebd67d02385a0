package session

import (
	"fmt"
	"testing"
)

// On JSON that Members accepts, WalkMembers and WalkElements find the same
// members and elements.
func FuzzWalkAgreesWithMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, ` { "a" : [1, {"b":"c\"}"}] , "d":"\\"} `, `[]`, `[1,"x",{"y":[null]}, true]`,
		`{"role":"user","content":[{"type":"text","text":"hi \u00e9"}],"timestamp":1}`, `{"a":{}`, `nope`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		var want, got []string
		if Members(b, func(k, v []byte) bool { want = append(want, fmt.Sprintf("%s=%s", k, v)); return true }) {
			WalkMembers(b, func(k, v []byte) { got = append(got, fmt.Sprintf("%s=%s", k, v)) })
			if fmt.Sprint(want) != fmt.Sprint(got) {
				t.Fatalf("%q: Members %q, WalkMembers %q", s, want, got)
			}
		} else {
			WalkMembers(b, func(k, v []byte) {}) // must not panic
		}
		want, got = nil, nil
		if Elements(b, func(v []byte) bool { want = append(want, string(v)); return true }) {
			WalkElements(b, func(v []byte) { got = append(got, string(v)) })
			if fmt.Sprint(want) != fmt.Sprint(got) {
				t.Fatalf("%q: Elements %q, WalkElements %q", s, want, got)
			}
		} else {
			WalkElements(b, func(v []byte) {})
		}
	})
}
