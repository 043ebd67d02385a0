package tui

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// edited is the prompt's file back from the person's editor (ctrl+g).
type edited struct {
	file string
	err  error
}

// externalEditor (ctrl+g) hands the prompt to $VISUAL or $EDITOR (vi
// when neither is set) with the terminal, as git commit does; what the
// file holds when the editor exits becomes the prompt.
func (m *Model) externalEditor() tea.Cmd {
	f, err := os.CreateTemp("", "agent-prompt-*.md")
	if err == nil {
		_, err = f.WriteString(m.ed.String())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		m.fail("ctrl+g", err)
		return nil
	}
	return m.runEditor(f.Name(), func(err error) tea.Msg { return edited{file: f.Name(), err: err} })
}

// runEditor hands the terminal to $VISUAL or $EDITOR (vi when neither is
// set) editing file; back is the message once it exits.
func (m *Model) runEditor(file string, back func(error) tea.Msg) tea.Cmd {
	editor := "vi"
	if m.a.Getenv != nil {
		for _, k := range []string{"VISUAL", "EDITOR"} {
			if v := strings.TrimSpace(m.a.Getenv(k)); v != "" {
				editor = v
				break
			}
		}
	}
	// Through the shell: an editor setting may carry flags ("code --wait").
	cmd := exec.Command("sh", "-c", editor+` "$1"`, "sh", file)
	cmd.Dir = m.a.Dir
	if m.out != nil && m.out.File != nil {
		// The terminal itself: bubbletea would give the editor its output
		// writer, which is not a file, and the editor a pipe.
		cmd.Stdout = m.out.File
	}
	// An empty view first, so the frame is erased before the terminal
	// changes hands, and not left above the one drawn after.
	m.outside = true
	return tea.ExecProcess(cmd, back)
}

// editedOutside puts the edited file back into the editor; when the
// editor failed the prompt stays as it was.
func (m *Model) editedOutside(e edited) tea.Cmd {
	m.outside = false
	defer os.Remove(e.file)
	if e.err != nil {
		m.fail("ctrl+g", fmt.Errorf("the editor failed (%v): the prompt is as it was", e.err))
		return nil
	}
	b, err := os.ReadFile(e.file)
	if err != nil {
		m.fail("ctrl+g", err)
		return nil
	}
	// Editors end the file with a newline the person did not mean to send.
	m.ed.Set(strings.TrimRight(string(b), "\n"))
	m.edited()
	return nil
}
