package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/internal/pipeline"
	"github.com/agentutils/agentutils/lib/llm"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/google/go-cmp/cmp"
)

// TestSlashHelp: a mistyped command names the nearest ones; /hotkeys
// lists every key, ctrl+g among them.
func TestSlashHelp(t *testing.T) {
	for _, c := range []struct{ typed, want string }{
		{"/sesion", "unknown command /sesion (did you mean /session?) (/help lists them)"},
		{"/zzzzzz", "unknown command /zzzzzz (/help lists them)"},
		{"/hotkeys", "ctrl+g            edit the prompt in $VISUAL or $EDITOR"},
		{"/name", "this session has no name (/name NAME sets one)"},
	} {
		m, _ := testModel(t)
		m.Update(submitMsg(c.typed))
		if got := strings.Join(m.outbox, "\n"); !strings.Contains(got, c.want) {
			t.Errorf("%s: printed %q, want %q in it", c.typed, got, c.want)
		}
	}
}

// TestEditedOutside: what the editor leaves in the file becomes the
// prompt (without the editor's final newline) and the file is removed;
// when the editor fails the prompt stays as it was.
func TestEditedOutside(t *testing.T) {
	m, _ := testModel(t)
	m.ed.Set("draft")
	f := filepath.Join(t.TempDir(), "p.md")
	os.WriteFile(f, []byte("line one\n\tline two\n"), 0o644)
	m.Update(edited{file: f})
	if got := m.ed.String(); got != "line one\n\tline two" {
		t.Errorf("prompt %q", got)
	}
	if _, err := os.Stat(f); !os.IsNotExist(err) {
		t.Error("the file is left behind")
	}
	m.ed.Set("draft")
	os.WriteFile(f, []byte("half-written"), 0o644)
	m.Update(edited{file: f, err: os.ErrInvalid})
	if got := m.ed.String(); got != "draft" {
		t.Errorf("after a failed editor the prompt is %q", got)
	}
	if !strings.Contains(strings.Join(m.outbox, "\n"), "the prompt is as it was") {
		t.Errorf("no word of the failure: %q", m.outbox)
	}
}

// TestTreeFilters: tab cycles /tree's filters (all, no tools, user only,
// labelled), typing still searches within one, ctrl+l puts /label ID in
// the editor.
func TestTreeFilters(t *testing.T) {
	lines := []string{
		"  aa424f4d user: fix the test",
		"  449c4228 assistant: → read, edit",
		"  5d8d7e42 tool read: package main",
		"  32b32f18 $ go test ./...",
		"  77aa0011 assistant: Fixed it. [good one]",
		"* 9e022d14 user: thanks",
	}
	m, _ := testModel(t)
	var items []pickItem
	for _, l := range lines {
		items = append(items, pickItem{label: l, value: treeID.FindString(l)})
	}
	m.picker = &picker{pick: func(*Model, pickItem) tea.Cmd { return nil }}
	m.tree, m.treeLeaf = &treeView{p: m.picker, all: items}, "9e022d14"
	m.tree.apply(m.treeLeaf)
	shown := func() (ids []string) {
		for _, it := range m.picker.visible() {
			ids = append(ids, it.value)
		}
		return ids
	}
	tab := tea.KeyMsg{Type: tea.KeyTab}
	for _, want := range [][]string{
		{"aa424f4d", "77aa0011", "9e022d14"}, // no tools
		{"aa424f4d", "9e022d14"},             // user only
		{"77aa0011"},                         // labelled
		{"aa424f4d", "449c4228", "5d8d7e42", "32b32f18", "77aa0011", "9e022d14"}, // all
	} {
		m.Update(tab)
		if d := cmp.Diff(want, shown()); d != "" {
			t.Errorf("%s (-want +got)\n%s", m.picker.title, d)
		}
	}
	m.Update(tab)
	m.Update(runes("thanks"))
	if d := cmp.Diff([]string{"9e022d14"}, shown()); d != "" {
		t.Errorf("search within a filter (-want +got)\n%s", d)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlL})
	if m.picker != nil || m.ed.String() != "/label 9e022d14 " {
		t.Errorf("ctrl+l: picker %v, editor %q", m.picker != nil, m.ed.String())
	}
}

// TestCycleModelAndThinking: ctrl+p walks the scope --models names (and
// shift+ctrl+p back), ctrl+t the thinking levels; a model that does not
// think keeps off.
func TestCycleModelAndThinking(t *testing.T) {
	m, _ := testModel(t)
	cat, err := llm.LoadCatalog([]byte(`[providers.fake]
baseUrl = "http://127.0.0.1:1"
api = "anthropic-messages"
apiKey = "none"
[[providers.fake.models]]
id = "a-model"
reasoning = true
[[providers.fake.models]]
id = "b-model"
[[providers.fake.models]]
id = "c-model"
reasoning = true
`), "models.toml", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	m.a.Catalog, m.a.Models = cat, []string{"fake/a-model", "b-model", "fake/c-model", "nosuch"}
	m.a.state.modelRef = "fake/a-model"
	var got []string
	for _, k := range []tea.Msg{tea.KeyMsg{Type: tea.KeyCtrlP}, tea.KeyMsg{Type: tea.KeyCtrlP}, tea.KeyMsg{Type: tea.KeyCtrlP}} {
		m.Update(k)
		got = append(got, m.a.Model)
	}
	if d := cmp.Diff([]string{"fake/b-model", "fake/c-model", "fake/a-model"}, got); d != "" {
		t.Errorf("ctrl+p (-want +got)\n%s", d)
	}
	m.cycleModel(-1)
	if m.a.Model != "fake/c-model" {
		t.Errorf("back from a-model: %s", m.a.Model)
	}
	got = nil
	for range 3 {
		m.Update(tea.KeyMsg{Type: tea.KeyCtrlT})
		got = append(got, m.a.Thinking)
	}
	if d := cmp.Diff([]string{"minimal", "low", "medium"}, got); d != "" {
		t.Errorf("ctrl+t (-want +got)\n%s", d)
	}
	m.cycleModel(-1) // b-model does not think
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlT})
	if m.a.Thinking != "medium" || !strings.Contains(m.info, "does not think") {
		t.Errorf("b-model: thinking %s, info %q", m.a.Thinking, m.info)
	}
}

// TestDroppedImage: a paste that is one image file's path (quoted, with
// escaped spaces, file://) becomes an @path; a path with spaces is copied
// to a temporary file; other pastes stay text.
func TestDroppedImage(t *testing.T) {
	dir := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\nrest")
	os.WriteFile(filepath.Join(dir, "shot.png"), png, 0o644)
	os.WriteFile(filepath.Join(dir, "my shot.PNG"), png, 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	for _, c := range []struct {
		paste string
		want  string // "" text, "copy" a temporary copy
	}{
		{filepath.Join(dir, "shot.png"), filepath.Join(dir, "shot.png")},
		{"'" + filepath.Join(dir, "shot.png") + "'\n", filepath.Join(dir, "shot.png")},
		{"file://" + filepath.Join(dir, "shot.png"), filepath.Join(dir, "shot.png")},
		{"shot.png", filepath.Join(dir, "shot.png")},
		{strings.ReplaceAll(filepath.Join(dir, "my shot.PNG"), " ", `\ `), "copy"},
		{filepath.Join(dir, "notes.txt"), ""},
		{filepath.Join(dir, "gone.png"), ""},
		{"look at shot.png please", ""},
	} {
		got, temp, ok := droppedImage(c.paste, dir)
		if temp != (c.want == "copy") {
			t.Errorf("%q: temp %v", c.paste, temp)
		}
		switch {
		case c.want == "" && ok, c.want != "" && !ok:
			t.Errorf("%q: %q %v", c.paste, got, ok)
		case c.want == "copy":
			b, _ := os.ReadFile(got)
			if strings.ContainsAny(got, " ") || !bytes.Equal(b, png) {
				t.Errorf("%q: copy %q holds %q", c.paste, got, b)
			}
			os.Remove(got)
		case ok && got != c.want:
			t.Errorf("%q: %q, want %q", c.paste, got, c.want)
		}
	}
	m, _ := testModel(t)
	m.a.Dir = dir
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(filepath.Join(dir, "shot.png")), Paste: true})
	if got := m.ed.String(); got != "@"+filepath.Join(dir, "shot.png")+" " {
		t.Errorf("editor after the drop: %q", got)
	}
}

// TestClipboardImage: ctrl+v takes the clipboard's PNG through xclip
// (here a script standing in for it on PATH); none there, it says how
// else to attach one.
func TestClipboardImage(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	m, _ := testModel(t)
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlV})
	if !strings.Contains(m.info, "no clipboard tool (wl-paste or xclip)") {
		t.Errorf("info %q", m.info)
	}
	os.WriteFile(filepath.Join(bin, "xclip"), []byte("#!/bin/sh\nprintf '\\211PNG\\r\\n\\032\\nimg'\n"), 0o755)
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlV})
	p := strings.TrimSuffix(strings.TrimPrefix(m.ed.String(), "@"), " ")
	b, err := os.ReadFile(p)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("editor %q: %v %q", m.ed.String(), err, b)
	}
	os.Remove(p)
}

// TestSettings: /settings KEY VALUE writes the user's config.toml (the
// rest kept) and uses it at once; the picker sets a choice.
func TestSettings(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "config.toml")
	os.WriteFile(file, []byte("# mine\n[hooks]\nx = 1\n"), 0o600)
	m, _ := testModel(t)
	m.a.Getenv = func(k string) string { return map[string]string{"AGENTUTILS_HOME": home}[k] }
	m.Update(submitMsg("/settings modelRoles.default fake/b-model"))
	m.Update(submitMsg("/settings enabledModels a, b"))
	m.Update(submitMsg("/settings"))
	m.Update(runes("approvalmode"))
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	m.Update(runes("yes"))
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	b, _ := os.ReadFile(file)
	want := "# mine\nenabledModels = [\"a\", \"b\"]\napprovalMode = \"yes\"\n[hooks]\nx = 1\n\n[modelRoles]\ndefault = \"fake/b-model\"\n"
	if d := cmp.Diff(want, string(b)); d != "" {
		t.Errorf("config.toml (-want +got)\n%s", d)
	}
	if m.a.ConfigModel != "fake/b-model" || !slices.Equal(m.a.Models, []string{"a", "b"}) {
		t.Errorf("not used at once: %q %q", m.a.ConfigModel, m.a.Models)
	}
	m.Update(submitMsg("/settings approvalMode maybe"))
	if out := strings.Join(m.outbox, "\n"); !strings.Contains(out, "/settings: approvalMode") {
		t.Errorf("a bad value: %s", out)
	}
}

// TestDroppedImageCopyRemoved: the temporary copy of a dropped image whose
// path has a space is removed once the run that attached it ended (the
// session has the image); one never sent goes when agent ends.
func TestDroppedImageCopyRemoved(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "my shot.png"), []byte("\x89PNG\r\n\x1a\nrest"), 0o644)
	m, _ := testModel(t)
	m.a.Dir = dir
	drop := func() string {
		m.ed.Reset()
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(strings.ReplaceAll(filepath.Join(dir, "my shot.png"), " ", `\ `)), Paste: true})
		tmp := strings.TrimSpace(strings.TrimPrefix(m.ed.String(), "@"))
		if _, err := os.Stat(tmp); err != nil || strings.HasPrefix(tmp, dir) {
			t.Fatalf("no temporary copy: %q %v", tmp, err)
		}
		return tmp
	}
	sent := drop()
	m.runOpts = pipeline.Opts{Files: []string{sent}} // as startPrompt attaches it
	m.view = newTranscript(m.width, m.a.Color, m.clock.Now)
	m.Update(runDoneMsg{status: 0})
	if _, err := os.Stat(sent); err == nil {
		t.Fatalf("%s kept after the run that attached it ended", sent)
	}
	unsent := drop()
	m.temps.drop(nil) // as Interactive does when agent ends
	if _, err := os.Stat(unsent); err == nil {
		t.Fatalf("%s kept after agent ended", unsent)
	}
}
