package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// treeView is /tree's state beside its picker: every entry line and the
// filter shown (tab cycles: all, no tools, user only, labelled); typing
// still searches within it, ctrl+l labels the entry chosen.
type treeView struct {
	p      *picker
	all    []pickItem
	filter int
}

// treeFilters are /tree's filters over an entry line of agent-session
// tree ("ID user: …", "ID tool bash: …", "ID assistant: → edit", "… [label]").
var treeFilters = []struct {
	name string
	keep func(line string) bool
}{
	{"all", func(string) bool { return true }},
	{"no tools", func(l string) bool { k := treeKind(l); return k != "tool" }},
	{"user only", func(l string) bool { return treeKind(l) == "user" }},
	{"labelled", func(l string) bool { return strings.HasSuffix(l, "]") && strings.Contains(l, " [") }},
}

// treeKind is what an entry line shows: user, assistant, tool (a tool's
// result, a shell command, or an answer that is only tool calls) or other.
func treeKind(line string) string {
	id := treeID.FindStringIndex(line)
	if id == nil {
		return "other"
	}
	rest := strings.TrimSpace(line[id[1]:])
	switch {
	case strings.HasPrefix(rest, "user:"):
		return "user"
	case strings.HasPrefix(rest, "tool "), strings.HasPrefix(rest, "$ "), strings.HasPrefix(rest, "assistant: →"):
		return "tool"
	case strings.HasPrefix(rest, "assistant:"):
		return "assistant"
	}
	return "other"
}

// apply shows the items the filter keeps, the leaf selected when shown.
func (t *treeView) apply(leaf string) {
	f := treeFilters[t.filter]
	t.p.items, t.p.sel = nil, 0
	for _, it := range t.all {
		if f.keep(it.label) {
			if it.value == leaf {
				t.p.sel = len(t.p.items)
			}
			t.p.items = append(t.p.items, it)
		}
	}
	var next []string
	for i := 1; i < len(treeFilters); i++ {
		next = append(next, treeFilters[(t.filter+i)%len(treeFilters)].name)
	}
	t.p.title = fmt.Sprintf("Check out an entry (* the leaf) · %s · tab: %s · ctrl+l: label",
		f.name, strings.Join(next, ", "))
}

// treeKey handles /tree's own keys; ok is false for the picker's.
func (m *Model) treeKey(k tea.KeyMsg, leaf string) (cmd tea.Cmd, ok bool) {
	t := m.tree
	switch k.Type {
	case tea.KeyTab:
		t.filter = (t.filter + 1) % len(treeFilters)
		t.apply(leaf)
		return nil, true
	case tea.KeyCtrlL:
		vis := t.p.visible()
		if t.p.sel < len(vis) {
			m.picker, m.tree = nil, nil
			m.ed.Set("/label " + vis[t.p.sel].value + " ")
			m.edited()
			m.info = "type the label and enter (nothing: clears it)"
		}
		return nil, true
	}
	return nil, false
}

// label sets (or, without text, clears) an entry's label.
func (m *Model) label(arg string) {
	id, text, _ := strings.Cut(arg, " ")
	if !treeID.MatchString(id) {
		m.fail("/label", fmt.Errorf("want /label ENTRY [TEXT] (ENTRY: an id that /tree shows)"))
		return
	}
	args := []string{"label", m.a.File, id}
	if text = strings.TrimSpace(text); text != "" {
		args = append(args, text)
	}
	if _, err := m.a.Stages.SessionOut(context.Background(), args...); err != nil {
		m.fail("/label", err)
		return
	}
	if text == "" {
		m.print("label of " + id + " cleared")
		return
	}
	m.print("labelled " + id + " " + text)
}
