package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// rewindPicker: the prompts of the current path that have a checkpoint,
// newest first, each with the files its turn changed; the one picked has
// its files brought back and the leaf moved before it (agent-session
// rewind), its text back in the editor.
func (m *Model) rewindPicker() {
	turns, err := m.a.Stages.RewindList(context.Background(), m.a.File)
	if err != nil {
		m.fail("/rewind", err)
		return
	}
	if len(turns) == 0 {
		m.print("/rewind: no checkpoints in this session (they are taken before each prompt when a tool may change files)")
		return
	}
	var items []pickItem
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		items = append(items, pickItem{label: fmt.Sprintf("%-40s  %s", clip(t.Text, 40), changedLabel(t.Changed)), value: t.ID})
	}
	m.picker = &picker{title: "Rewind: the files and the session go back to before the prompt", items: items, pick: func(m *Model, it pickItem) tea.Cmd {
		return m.rewind(it.value, "/rewind")
	}}
}

// changedLabel names up to three files and counts the rest.
func changedLabel(files []string) string {
	switch {
	case len(files) == 0:
		return "(no files changed)"
	case len(files) <= 3:
		return "changed " + strings.Join(files, ", ")
	}
	return fmt.Sprintf("changed %s (+%d)", strings.Join(files[:3], ", "), len(files)-3)
}

// rewind runs agent-session rewind to id and says what it did; a file
// that could not be brought back is named.
func (m *Model) rewind(id, cmd string) tea.Cmd {
	a := m.a
	ctx := context.Background()
	r, err := a.Stages.Rewind(ctx, a.File, id, false)
	for _, f := range r.Failed {
		m.print(red.Render(fmt.Sprintf("%s: %s not restored: %s", cmd, f.Path, f.Reason)))
	}
	if err != nil && r.Checkpoint == "" {
		m.fail(cmd, err)
		return nil
	}
	recap := a.loadState(ctx, m.width)
	m.print(fmt.Sprintf("rewound to checkpoint %s: %d files restored, %d removed\n%s", r.Checkpoint, len(r.Restored), len(r.Removed), recap))
	m.editAgain(r.EditorText)
	return nil
}

// restoreItem is /tree's offer to bring the files back with the leaf,
// when the entry has a checkpoint and files differ from it.
func (m *Model) restoreItem(id string) (pickItem, bool) {
	r, err := m.a.Stages.Rewind(context.Background(), m.a.File, id, true)
	if (err != nil && r.Checkpoint == "") || r.Files() == 0 {
		return pickItem{}, false
	}
	files := append(append([]string{}, r.Restored...), r.Removed...)
	for _, f := range r.Failed {
		files = append(files, f.Path)
	}
	return pickItem{label: fmt.Sprintf("restore the files too (%d: %s), no summary", r.Files(), clip(strings.Join(files, ", "), 50)), value: "restore"}, true
}
