package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

// TestBanner: the start-up screen names agentutils' version and the
// session, and wraps its key hints at a separator, never past the width.
func TestBanner(t *testing.T) {
	for _, tc := range []struct {
		version string
		width   int
		want    string
	}{
		{"v1.2.3", 200, "agentutils v1.2.3\nsession s.jsonl\n/help for commands · ! shell · @ file · shift+tab mode · ^O expand · esc stop · ^D exit"},
		{"", 40, "agentutils\nsession s.jsonl\n/help for commands · ! shell · @ file\nshift+tab mode · ^O expand · esc stop\n^D exit"},
	} {
		got := ansi.Strip(banner(tc.version, "s.jsonl", tc.width))
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("width %d (-want +got):\n%s", tc.width, d)
		}
		for _, l := range strings.Split(got, "\n") {
			if len([]rune(l)) > tc.width {
				t.Errorf("line wider than %d: %q", tc.width, l)
			}
		}
	}
}
