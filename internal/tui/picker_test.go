package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// What is typed to filter a picker shows within the width, however long
// the title (/tree's is about 90 columns).
func TestPickerFilterShows(t *testing.T) {
	p := &picker{title: "Check out an entry (* the leaf) · all · tab: no tools, user only, labelled · ctrl+l: label",
		items: []pickItem{{"user: RUN `seq 1 40`", "a"}, {"assistant: All done.", "b"}}, filter: "seq"}
	shown := false
	for _, l := range strings.Split(p.view(60), "\n") {
		l = ansi.Strip(ansi.Truncate(l, 60, "")) // what the terminal shows
		shown = shown || strings.Contains(l, "filter: seq")
	}
	if !shown {
		t.Errorf("the filter is not within 60 columns:\n%s", p.view(60))
	}
}
