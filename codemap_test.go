package agentutils_test

import (
	"os"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/scripts/codemap/codemap"
)

// TestCodeMap keeps the README's "Map of the code" equal to the imports.
func TestCodeMap(t *testing.T) {
	want, err := codemap.Build(".")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	const head = "## Map of the code\n\n"
	s := string(readme)
	i := strings.Index(s, head)
	if i < 0 {
		t.Fatalf("README.md has no %q section", strings.TrimSpace(head))
	}
	got := s[i+len(head):]
	if j := strings.Index(got, "\n## "); j >= 0 {
		got = got[:j+1]
	}
	if strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("README's map of the code differs from the imports; replace the section's text with the output of `go run ./scripts/codemap`:\n%s", want)
	}
}
