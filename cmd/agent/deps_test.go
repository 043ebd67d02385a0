package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPipelineLinksNoTUI: only agent links the terminal UI libraries; the
// pipeline's binaries stay small and quick to start.
func TestPipelineLinksNoTUI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmds := []string{"agent-chat", "agent-tool", "agent-compact", "agent-session", "agent-grep", "agent-commit", "agent-mcp"}
	args := []string{"list", "-deps"}
	for _, c := range cmds {
		args = append(args, "github.com/agentutils/agentutils/cmd/"+c)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		for _, tui := range []string{"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/muesli/termenv", "github.com/creack/pty"} {
			if strings.HasPrefix(p, tui) {
				t.Errorf("a pipeline binary links %s", p)
			}
		}
	}
}
