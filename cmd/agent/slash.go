package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentutils/agentutils/lib/llm"
)

// slash runs a front-end command; an unknown one is an error (a prompt
// template of that name is sent as a prompt, agent-chat expands it).
func (u *ui) slash(text string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimSpace(text), " ")
	arg = strings.TrimSpace(arg)
	ctx := context.Background()
	a := u.a
	if (u.run != nil || u.busy != "") && name != "/help" && name != "/cost" && name != "/copy" && name != "/exit" && name != "/quit" {
		// As a prompt typed during a run: it runs when the run ends.
		u.queued = append(u.queued, text)
		u.info = fmt.Sprintf("queued (%d): %s runs when this one ends", len(u.queued), name)
		return nil
	}
	echo := u.println(dim.Render(text))
	switch name {
	case "/exit", "/quit":
		u.quit = true
		return tea.Sequence(echo, tea.Quit)
	case "/help":
		var b strings.Builder
		for _, c := range slashCommands {
			fmt.Fprintf(&b, "%-10s %-16s %s\n", c.name, c.args, c.help)
		}
		for _, t := range a.templates {
			fmt.Fprintf(&b, "/%-9s %-16s %s\n", t, "[ARGS]", "prompt template")
		}
		b.WriteString("@PATH      attach a file to the prompt (tab completes)\n")
		b.WriteString(keysHelp)
		return tea.Sequence(echo, u.println(b.String()))
	case "/new":
		out, err := a.st.sessionOut(ctx, "continue", "--new")
		if err != nil {
			return u.println(red.Render("/new: " + err.Error()))
		}
		a.file = strings.TrimSpace(string(out))
		a.loadState(ctx)
		return tea.Sequence(echo, u.println("new session "+a.file))
	case "/fork":
		out, err := a.st.sessionOut(ctx, "fork", a.file)
		if err != nil {
			return u.println(red.Render("/fork: " + err.Error()))
		}
		var f struct{ File string }
		json.Unmarshal(out, &f)
		if f.File == "" {
			return u.println(red.Render("/fork: no file in " + string(out)))
		}
		a.file = f.File
		return tea.Sequence(echo, u.println("forked into "+a.file))
	case "/resume":
		return tea.Sequence(echo, u.resumePicker())
	case "/tree":
		return tea.Sequence(echo, u.treePicker())
	case "/model":
		if arg != "" {
			return tea.Sequence(echo, u.setModel(arg))
		}
		return tea.Sequence(echo, u.modelPicker())
	case "/compact":
		if a.st.compact == nil {
			return u.println(red.Render("/compact: no compaction stage (--compact-cmd is empty)"))
		}
		u.busy = "compacting"
		file := a.file
		return tea.Sequence(echo, func() tea.Msg { return compactDone{err: a.st.compactNow(ctx, file, arg), done: "compacted"} })
	case "/export":
		return tea.Sequence(echo, u.export(arg))
	case "/cost":
		return tea.Sequence(echo, u.cost())
	case "/copy":
		return tea.Sequence(echo, u.copyAnswer())
	}
	for _, t := range a.templates {
		if name == "/"+t {
			return u.startPrompt(text)
		}
	}
	return u.println(red.Render(fmt.Sprintf("unknown command %s (/help lists them)", name)))
}

// export writes the session as one HTML page (to FILE, or a name made
// from the session's).
func (u *ui) export(out string) tea.Cmd {
	a := u.a
	if out == "" {
		out = "session-" + strings.TrimSuffix(strings.TrimSuffix(filepath.Base(a.file), ".zst"), ".jsonl") + ".html"
	}
	if _, err := a.st.sessionOut(context.Background(), "export", "--html", "-o", a.abs(out), a.file); err != nil {
		return u.println(red.Render("/export: " + err.Error()))
	}
	return u.println("wrote " + out)
}

// cost prints the session's tokens and cost (agent-session stats).
func (u *ui) cost() tea.Cmd {
	out, err := u.a.st.sessionOut(context.Background(), "stats", u.a.file)
	if err != nil {
		return u.println(red.Render("/cost: " + err.Error()))
	}
	var s struct {
		Messages int
		Usage    struct {
			Input, Output, CacheRead, CacheWrite int
			Cost                                 float64
		}
	}
	json.Unmarshal(out, &s)
	return u.println(fmt.Sprintf("%d messages · input %d · output %d · cache read %d · cache write %d · $%.4f (every branch)",
		s.Messages, s.Usage.Input, s.Usage.Output, s.Usage.CacheRead, s.Usage.CacheWrite, s.Usage.Cost))
}

// copyAnswer puts the last answer on the clipboard.
func (u *ui) copyAnswer() tea.Cmd {
	t := u.a.lastAnswer()
	if t == "" {
		return u.println(red.Render("/copy: no answer yet"))
	}
	copyToClipboard(t)
	return u.println(fmt.Sprintf("copied the last answer (%d characters)", len([]rune(t))))
}

// copyToClipboard sets the terminal's clipboard with OSC 52 (tmux passes it
// on with set-clipboard on), written to the terminal directly.
func copyToClipboard(s string) {
	seq := "\x1b]52;c;" + base64Std(s) + "\a"
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		tty.WriteString(seq)
		tty.Close()
	}
}

func (u *ui) resumePicker() tea.Cmd {
	out, err := u.a.st.sessionOut(context.Background(), "list", "--json")
	if err != nil {
		return u.println(red.Render("/resume: " + err.Error()))
	}
	var items []pickItem
	for _, line := range bytes.Split(out, []byte("\n")) {
		var s struct {
			Path, Title, FirstMessage, Modified string
			MessageCount                        int
		}
		if json.Unmarshal(line, &s) != nil || s.Path == "" {
			continue
		}
		t := s.Title
		if t == "" {
			t = s.FirstMessage
		}
		mod := s.Modified
		if len(mod) > 16 {
			mod = strings.Replace(mod[:16], "T", " ", 1)
		}
		cur := ""
		if s.Path == u.a.file {
			cur = " (current)"
		}
		items = append(items, pickItem{label: fmt.Sprintf("%s  %3d msgs  %s%s", mod, s.MessageCount, clip(t, 60), cur), value: s.Path})
	}
	if len(items) == 0 {
		return u.println("/resume: no sessions with messages in this directory")
	}
	u.picker = &picker{title: "Resume a session", items: items, pick: func(u *ui, it pickItem) tea.Cmd {
		ctx := context.Background()
		if _, err := u.a.st.sessionOut(ctx, "resume", it.value); err != nil {
			return u.println(red.Render("/resume: " + err.Error()))
		}
		u.a.file = it.value
		recap := u.a.loadState(ctx)
		return u.println("resumed " + it.value + "\n" + recap)
	}}
	return nil
}

var treeID = regexp.MustCompile(`\b([0-9a-f]{8})\b`)

func (u *ui) treePicker() tea.Cmd {
	out, err := u.a.st.sessionOut(context.Background(), "tree", "--color", "never", u.a.file)
	if err != nil {
		return u.println(red.Render("/tree: " + err.Error()))
	}
	var items []pickItem
	sel, leaf := 0, ""
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		m := treeID.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if strings.Contains(line, "* "+m[1]) {
			sel, leaf = len(items), m[1]
		}
		items = append(items, pickItem{label: line, value: m[1]})
	}
	if len(items) == 0 {
		return u.println("/tree: the session is empty")
	}
	u.picker = &picker{title: "Session tree: check out an entry (* is the current leaf)", items: items, sel: sel, pick: func(u *ui, it pickItem) tea.Cmd {
		if u.a.st.compact == nil || it.value == leaf {
			return u.checkout(it.value, "")
		}
		target := it.value
		u.picker = &picker{title: "Check out " + target + ": summarize the branch you leave?", items: []pickItem{
			{label: "no summary", value: "no"}, {label: "summarize it (a branch_summary entry, one model call)", value: "yes"},
		}, pick: func(u *ui, it pickItem) tea.Cmd {
			if it.value == "yes" {
				return u.checkout(target, leaf)
			}
			return u.checkout(target, "")
		}}
		return nil
	}}
	return nil
}

// checkout moves the session's leaf to id; with the leaf it leaves (from)
// that branch is summarized first (agent-compact --branch-summary).
func (u *ui) checkout(id, from string) tea.Cmd {
	a := u.a
	ctx := context.Background()
	if from == "" {
		if _, err := a.st.sessionOut(ctx, "checkout", a.file, id); err != nil {
			return u.println(red.Render("/tree: " + err.Error()))
		}
		recap := a.loadState(ctx)
		return u.println("checked out " + id + "\n" + recap)
	}
	u.busy = "summarizing the branch"
	return func() tea.Msg {
		err := a.st.branchSummary(ctx, a.file, from, id)
		if err != nil {
			return compactDone{err: fmt.Errorf("branch summary: %v", err)}
		}
		return compactDone{done: "checked out " + id + ", the branch left summarized"}
	}
}

func (u *ui) modelPicker() tea.Cmd {
	a := u.a
	if a.cat == nil {
		return u.println(red.Render("/model: no model catalog"))
	}
	var items []pickItem
	sel := 0
	for _, m := range a.cat.Models {
		key := ""
		if _, err := a.cat.ResolveKey(m, "", a.getenv); err != nil {
			key = "  (no key)"
		}
		if m.Ref() == a.state.modelRef {
			sel = len(items)
		}
		items = append(items, pickItem{label: fmt.Sprintf("%-45s %s ctx%s", m.Ref(), tokens(m.ContextWindow), key), value: m.Ref()})
	}
	u.picker = &picker{title: "Model", items: items, sel: sel, pick: func(u *ui, it pickItem) tea.Cmd { return u.setModel(it.value) }}
	return nil
}

// setModel takes a model pattern and asks for the thinking level of a
// reasoning model.
func (u *ui) setModel(pattern string) tea.Cmd {
	a := u.a
	if a.cat != nil {
		m, level, err := a.cat.Resolve(pattern)
		if err != nil {
			return u.println(red.Render("/model: " + err.Error()))
		}
		if _, err := a.cat.ResolveKey(m, "", a.getenv); err != nil && !a.keyless() {
			u.info = err.Error()
		}
		a.modelFlag, a.state.modelRef = m.Ref(), m.Ref()
		if level != "" {
			a.thinkingFlag = level
		}
		if m.Reasoning && level == "" {
			var items []pickItem
			for _, l := range llm.ThinkingLevels {
				items = append(items, pickItem{label: l, value: l})
			}
			u.picker = &picker{title: "Thinking level for " + m.Ref(), items: items, pick: func(u *ui, it pickItem) tea.Cmd {
				a.thinkingFlag = it.value
				return u.println("model " + a.modelFlag + ", thinking " + it.value)
			}}
			return nil
		}
		return u.println("model " + a.modelFlag)
	}
	a.modelFlag = pattern
	return u.println("model " + pattern)
}
