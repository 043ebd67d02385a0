package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/internal/configfile"
	"github.com/agentutils/agentutils/lib/config"
)

// settingsPicker is /settings: config.toml's keys with their values and
// where each comes from; one chosen is set through a picker of its
// choices, or typed after /settings KEY in the editor.
func (m *Model) settingsPicker() {
	cfg, err := configfile.Load(m.a.Dir, m.a.Getenv, nil)
	if err != nil {
		m.fail("/settings", err)
		return
	}
	var items []pickItem
	for _, s := range config.Settings {
		v := cfg.Get(s.Key)
		items = append(items, pickItem{label: fmt.Sprintf("%-24s %-28s %s", s.Key, clip(strings.Join(v.Value, ", "), 28), dim.Render(v.Source+" · "+s.Doc)), value: s.Key})
	}
	m.picker = &picker{title: "Settings (the user's config.toml): pick one to change", items: items, pick: func(m *Model, it pickItem) tea.Cmd {
		s, _ := config.SettingOf(it.value)
		if len(s.Choices) == 0 {
			m.ed.Set("/settings " + s.Key + " ")
			m.edited()
			m.info = "type the value and enter" + map[bool]string{true: " (a list: comma-separated)"}[s.List]
			return nil
		}
		var choices []pickItem
		for _, c := range s.Choices {
			choices = append(choices, pickItem{label: c, value: c})
		}
		m.picker = &picker{title: s.Key + ": " + s.Doc, items: choices, pick: func(m *Model, c pickItem) tea.Cmd {
			m.setSetting(s.Key + " " + c.value)
			return nil
		}}
		return nil
	}}
}

// setSetting is /settings KEY VALUE: written into the user's config.toml
// (the rest of it kept), and used at once where agent holds it.
func (m *Model) setSetting(arg string) {
	key, raw, _ := strings.Cut(strings.TrimSpace(arg), " ")
	s, ok := config.SettingOf(key)
	if !ok {
		m.fail("/settings", fmt.Errorf("unknown setting %q (/settings lists them)", key))
		return
	}
	vals := []string{strings.TrimSpace(raw)}
	if s.List {
		vals = nil
		for _, v := range strings.Split(raw, ",") {
			if v = strings.TrimSpace(v); v != "" {
				vals = append(vals, v)
			}
		}
	}
	file, _ := configfile.Paths(m.a.Dir, m.a.Getenv)
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		m.fail("/settings", err)
		return
	}
	out, err := config.Set(data, key, vals)
	if err == nil {
		if err = os.MkdirAll(filepath.Dir(file), 0o700); err == nil {
			err = atomicfile.Write(file, out, 0o600)
		}
	}
	if err != nil {
		m.fail("/settings", err)
		return
	}
	m.dropAhead() // a run started ahead read config.toml before
	a, when := m.a, "from the next prompt"
	switch key {
	case "modelRoles.default":
		a.ConfigModel = vals[0]
	case "defaultThinkingLevel":
		a.ConfigThinking = vals[0]
	case "statusLine":
		a.StatusLine = vals[0]
	case "enabledModels":
		a.Models = vals
	case "approvalMode":
		when = "from the next start of agent"
	}
	m.print(fmt.Sprintf("%s = %s in %s (%s)", key, strings.Join(vals, ", "), file, when))
}
