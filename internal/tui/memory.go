package tui

import (
	"fmt"
	"os"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentutils/agentutils/internal/contextfiles"
)

// memoryFile is the project's context file (AGENTS.md or CLAUDE.md,
// whichever is in use), or the user's.
func (a *agent) memoryFile(user bool) string {
	return contextfiles.MemoryFile(contextfiles.DefaultOptions(a.Dir, a.Getenv), user)
}

// memory is /memory [user]: the context file opened in the person's
// editor; the next run reads it.
func (m *Model) memory(arg string) tea.Cmd {
	if arg != "" && arg != "user" && arg != "project" {
		m.fail("/memory", fmt.Errorf("%q: say user or project (the default)", arg))
		return nil
	}
	file := m.a.memoryFile(arg == "user")
	if file == "" {
		m.fail("/memory", fmt.Errorf("no user directory to keep it in (HOME is not set)"))
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		m.fail("/memory", err)
		return nil
	}
	return m.runEditor(file, func(err error) tea.Msg { return memoryEdited{file: file, err: err} })
}

// memoryEdited is /memory's editor ended.
type memoryEdited struct {
	file string
	err  error
}

func (m *Model) memoryEdited(e memoryEdited) {
	m.outside = false
	if e.err != nil {
		m.fail("/memory", fmt.Errorf("the editor failed: %v", e.err))
		return
	}
	m.dropAhead() // a run started ahead read the file before
	m.print(dim.Render("memory: " + e.file + " (read from the next prompt on)"))
}

// note is a "# text" line waiting for the person's y or n.
type note struct{ text, file string }

// noteKey answers the note shown: y appends it, n or esc drops it; any
// other key is swallowed.
func (m *Model) noteKey(k tea.KeyMsg) {
	n := m.note
	switch {
	case k.Type == tea.KeyRunes && string(k.Runes) == "y":
		m.note = nil
		if err := contextfiles.Remember(n.file, n.text); err != nil {
			m.fail("memory", err)
			return
		}
		m.dropAhead()
		m.print(dim.Render("remembered in " + n.file))
	case k.Type == tea.KeyRunes && string(k.Runes) == "n", k.Type == tea.KeyEsc, k.Type == tea.KeyCtrlC:
		m.note = nil
		m.info = "not remembered"
	}
}

// noteView asks about the note shown.
func (n *note) view(width int) string {
	return yellow.Render(clip("Remember in "+n.file+"?", width)) + "\n  - " + clip(n.text, width-4) + "\n" +
		bold.Render("[y]") + " yes  " + bold.Render("[n]") + " no\n"
}
