package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// picker is a filtered list to choose from.
type picker struct {
	title  string
	items  []pickItem
	filter string
	sel    int
	pick   func(m *Model, it pickItem) tea.Cmd
}

type pickItem struct{ label, value string }

func (p *picker) visible() []pickItem {
	if p.filter == "" {
		return p.items
	}
	var out []pickItem
	f := strings.ToLower(p.filter)
	for _, it := range p.items {
		if strings.Contains(strings.ToLower(it.label), f) {
			out = append(out, it)
		}
	}
	return out
}

// key handles a key: done when the picker closes, with the item chosen
// (nil: cancelled).
func (p *picker) key(k tea.KeyMsg) (done bool, chosen *pickItem) {
	vis := p.visible()
	switch k.Type {
	case tea.KeyEsc, tea.KeyCtrlC:
		return true, nil
	case tea.KeyUp, tea.KeyCtrlP:
		p.sel = max(p.sel-1, 0)
	case tea.KeyDown, tea.KeyCtrlN:
		p.sel = max(min(p.sel+1, len(vis)-1), 0)
	case tea.KeyPgUp:
		p.sel = max(p.sel-10, 0)
	case tea.KeyPgDown:
		p.sel = max(min(p.sel+10, len(vis)-1), 0)
	case tea.KeyEnter:
		if p.sel < len(vis) {
			return true, &vis[p.sel]
		}
	case tea.KeyBackspace:
		if r := []rune(p.filter); len(r) > 0 {
			p.filter = string(r[:len(r)-1])
			p.sel = 0
		}
	case tea.KeyRunes, tea.KeySpace:
		p.filter += string(k.Runes)
		if k.Type == tea.KeySpace {
			p.filter += " "
		}
		p.sel = 0
	}
	return false, nil
}

// view draws the title, ten items around the selection and the keys.
func (p *picker) view(width int) string {
	var b strings.Builder
	b.WriteString(bold.Render(clip(p.title, width)) + "\n")
	if p.filter != "" { // a line of its own: after a long title it was cut off
		b.WriteString(accent.Render("filter: "+clip(p.filter, width-8)) + "\n")
	}
	vis := p.visible()
	start := max(0, min(p.sel-5, len(vis)-10))
	for i := start; i < len(vis) && i < start+10; i++ {
		line := clip(vis[i].label, width-4)
		if i == p.sel {
			b.WriteString(accent.Render("› "+line) + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	if len(vis) == 0 {
		b.WriteString(dim.Render("  (nothing matches)") + "\n")
	}
	b.WriteString(dim.Render("↑↓ choose · enter select · type to filter · esc cancel") + "\n")
	return b.String()
}
