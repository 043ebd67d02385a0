package prompt

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewAgent(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      Agent
		err       string
	}{
		{"claude", "---\nname: explore\ndescription: Reads the code to answer a question\ntools: Read, Grep, Glob, mcp__gh__search\nmodel: haiku\n---\nYou explore.\n",
			Agent{Name: "explore", Description: "Reads the code to answer a question", Tools: []string{"read", "grep", "find", "mcp__gh__search"}, Model: "haiku", Prompt: "You explore."}, ""},
		{"list-inherit", "---\ndescription: d\ntools: [read, bash, read]\nmodel: inherit\n---\n\nBody\n",
			Agent{Name: "list-inherit", Description: "d", Tools: []string{"read", "bash"}, Prompt: "Body"}, ""},
		{"nodesc", "---\nname: x\n---\nbody", Agent{}, "no description in the frontmatter"},
		{"badtools", "---\ndescription: d\ntools: {a: b}\n---\n", Agent{}, "tools: want a list of tool names"},
	} {
		got, err := NewAgent(tc.name, "", tc.doc)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

// FuzzNewAgent: any file is a definition or an error, never a panic, and
// a definition has a name and a description.
func FuzzNewAgent(f *testing.F) {
	f.Add("---\nname: explore\ndescription: d\ntools: Read, Grep\nmodel: inherit\n---\nbody")
	f.Add("---\ndescription: d\ntools: [a, {b: c}]\n---\n")
	f.Add("---\ndescription: d\nmodel: [x]\n---\n")
	f.Fuzz(func(t *testing.T, doc string) {
		a, err := NewAgent("file", "", doc)
		if err == nil && (a.Name == "" || a.Description == "") {
			t.Errorf("%q: %+v without an error", doc, a)
		}
	})
}
