package tui

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentutils/agentutils/internal/pipeline"
	"github.com/agentutils/agentutils/lib/editdist"
	"github.com/agentutils/agentutils/lib/llm"
	"github.com/agentutils/agentutils/lib/render"
	"github.com/agentutils/agentutils/lib/render/show"
)

// slashCommands are the front-end's commands, with their one-line help.
var slashCommands = []struct{ name, args, help string }{
	{"/new", "", "start a new session"},
	{"/resume", "", "pick a session of this directory to continue"},
	{"/fork", "", "continue in a copy of this session, from a prompt of it (a picker)"},
	{"/tree", "", "navigate the session tree and check out an entry"},
	{"/rewind", "", "bring the files and the session back to before a prompt"},
	{"/model", "[MODEL]", "pick the model and thinking level"},
	{"/sandbox", "[MODE]", "show or set the tools' sandbox: workspace-write, read-only, off"},
	{"/plan", "", "plan mode on or off (shift+tab cycles default, accept edits, plan)"},
	{"/memory", "[user]", "edit the project's AGENTS.md (or CLAUDE.md), or the user's, in $EDITOR; # TEXT at the prompt adds a line"},
	{"/compact", "[INSTRUCTIONS]", "summarize the session now"},
	{"/export", "[FILE]", "write the session as one HTML page"},
	{"/jobs", "[ID|kill ID|keep ID]", "background jobs: list, show output, kill (all), keep past exit"},
	{"/cost", "", "tokens and cost of this session"},
	{"/session", "", "the session's file, id, counts, tokens and cost"},
	{"/copy", "", "copy the last answer to the clipboard"},
	{"/name", "[NAME]", "show or set the session's name (shown by /resume and agent-session list)"},
	{"/label", "ENTRY [TEXT]", "set (or clear) the label of an entry of /tree"},
	{"/settings", "[KEY VALUE]", "show and change config.toml's settings (a picker)"},
	{"/hotkeys", "", "the keys"},
	{"/help", "", "the commands and keys"},
	{"/exit", "", "leave (also ^D on an empty line)"},
}

// hotkeys is /hotkeys: every key of the editor, the pickers and the
// approvals.
const hotkeys = `editor
  enter             send the prompt (queued during a run)
  alt+enter ctrl+j  new line (shift+enter too where the terminal tells it apart)
  tab               complete a /command or an @path
  shift+tab         cycle the permission mode: default → accept edits → plan (the footer shows it)
  ↑ ↓               move between lines; on the first or last line, the prompt history
  ← → ctrl+b ctrl+f move by a character · home end ctrl+a ctrl+e the line's start and end
  ctrl+w            delete the word before the cursor
  ctrl+u ctrl+k     delete to the start and to the end of the line
  ctrl+g            edit the prompt in $VISUAL or $EDITOR (vi when neither is set)
  ctrl+p            the next model of --models or enabledModels (shift+ctrl+p: the one before)
  ctrl+t            the next thinking level
  ctrl+v            attach the clipboard's image (wl-paste or xclip); a dropped image file attaches too
  ctrl+o            expand or fold the tools' output
  ctrl+c            clear the editor; during a run, abort it
  esc               abort the run
  ctrl+d            leave (on an empty editor; during a run, when it ends)
pickers (/resume /tree /model)
  ↑ ↓ ctrl+p ctrl+n move · pgup pgdn a page · type to filter · enter pick · esc close
  /tree: tab cycles all, no tools, user only, labelled · ctrl+l labels the entry
approvals (they answer only while the editor is empty; enter never answers)
  y yes · a always for this command · n no, then say why · esc no
a plan to approve (plan mode's exit_plan_mode)
  y yes, ask before edits · a yes, accept edits · e edit it in $EDITOR · n no, then say why · esc no
questions (the ask tool)
  ↑ ↓ move · space tick (several may be picked) · enter pick · the last line: type your own · esc none`

const keysHelp = "keys: enter send · alt+enter or shift+enter newline · tab complete · ↑↓ history · ^C clear / abort · esc abort · ^O expand/fold tool output · ^G $EDITOR · ^P model · ^T thinking · ^D exit (/hotkeys: all)\n" +
	"approvals: y yes · a always · n no, say why · esc no; they answer only while the editor is empty (enter never answers)"

// duringRun are the commands that run at once during a run; the others
// are queued behind it.
var duringRun = map[string]bool{"/help": true, "/hotkeys": true, "/jobs": true, "/cost": true, "/session": true, "/copy": true, "/exit": true, "/quit": true, "/plan": true}

// slash runs a front-end command; an unknown one is an error (a prompt
// template of that name is sent as a prompt, agent-chat expands it).
func (m *Model) slash(text string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimSpace(text), " ")
	arg = strings.TrimSpace(arg)
	if m.phase != idle && !duringRun[name] && !(name == "/sandbox" && arg == "") {
		// As a prompt typed during a run: it runs when the run ends.
		m.queued = append(m.queued, text)
		m.info = fmt.Sprintf("queued (%d): %s runs when this one ends", len(m.queued), name)
		return nil
	}
	m.print(dim.Render(text))
	switch name {
	case "/exit", "/quit":
		return m.quit()
	case "/help":
		m.print(m.help())
	case "/new":
		m.newSession()
	case "/fork":
		m.forkPicker()
	case "/resume":
		m.resumePicker()
	case "/tree":
		m.treePicker()
	case "/rewind":
		m.rewindPicker()
	case "/model":
		if arg != "" {
			m.setModel(arg)
		} else {
			m.modelPicker()
		}
	case "/sandbox":
		m.setSandbox(arg)
	case "/compact":
		return m.compact(arg)
	case "/export":
		m.export(arg)
	case "/jobs":
		return m.jobsCommand(arg)
	case "/cost":
		m.cost()
	case "/session":
		m.session()
	case "/copy":
		m.copyAnswer()
	case "/name":
		m.name(arg)
	case "/label":
		m.label(arg)
	case "/hotkeys":
		m.print(hotkeys)
	case "/settings":
		if arg == "" {
			m.settingsPicker()
		} else {
			m.setSetting(arg)
		}
	case "/plan":
		m.planCommand()
	case "/memory":
		return m.memory(arg)
	default:
		known := []string{"/quit"}
		for _, c := range slashCommands {
			known = append(known, c.name)
		}
		for _, t := range m.a.Templates {
			if name == "/"+t {
				return m.startPrompt(text)
			}
			known = append(known, "/"+t)
		}
		msg := "unknown command " + name
		if s := editdist.Suggest(name, known); len(s) > 0 {
			msg += " (did you mean " + strings.Join(s, ", ") + "?)"
		}
		m.print(red.Render(msg + " (/help lists them)"))
	}
	return nil
}

// name shows the session's name, or sets it (agent-session name).
func (m *Model) name(title string) {
	a := m.a
	if title == "" {
		if a.state.title == "" {
			m.print("this session has no name (/name NAME sets one)")
		} else {
			m.print("name " + a.state.title)
		}
		return
	}
	if _, err := a.Stages.SessionOut(context.Background(), "name", a.File, title); err != nil {
		m.fail("/name", err)
		return
	}
	a.state.title = title
	m.print("named " + title)
}

func (m *Model) help() string {
	var b strings.Builder
	for _, c := range slashCommands {
		fmt.Fprintf(&b, "%-10s %-20s %s\n", c.name, c.args, c.help)
	}
	for _, t := range m.a.Templates {
		fmt.Fprintf(&b, "/%-9s %-20s %s\n", t, "[ARGS]", "prompt template")
	}
	b.WriteString("@PATH      attach a file to the prompt (tab completes)\n")
	b.WriteString("!CMD       run a shell command (sandboxed); its output goes to the model with the next prompt (!!CMD: not)\n")
	b.WriteString(keysHelp)
	return b.String()
}

func (m *Model) fail(cmd string, err error) { m.print(red.Render(cmd + ": " + err.Error())) }

func (m *Model) newSession() {
	a := m.a
	out, err := a.Stages.SessionOut(context.Background(), "continue", "--new")
	if err != nil {
		m.fail("/new", err)
		return
	}
	a.sessionEnd("clear", nil)
	a.File = strings.TrimSpace(string(out))
	a.loadState(context.Background(), m.width)
	a.sessionStart("clear", nil)
	m.print("new session " + a.File)
}

// forkPicker is /fork: a picker over the session's prompts, newest first,
// and "the whole session"; a prompt chosen is forked from (the fork's
// leaf is before it, the prompt back in the editor to change and send).
func (m *Model) forkPicker() {
	out, err := m.a.Stages.SessionOut(context.Background(), "tree", "--color", "never", m.a.File)
	if err != nil {
		m.fail("/fork", err)
		return
	}
	items := []pickItem{{label: "the whole session, as it is", value: ""}}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if id := treeID.FindString(lines[i]); id != "" && treeKind(lines[i]) == "user" {
			items = append(items, pickItem{label: strings.TrimLeft(lines[i], " *"), value: id})
		}
	}
	m.picker = &picker{title: "Fork from a prompt (it goes back into the editor) or the whole session", items: items,
		pick: func(m *Model, it pickItem) tea.Cmd { return m.fork(it.value) }}
}

// fork copies the session into a new file that becomes this terminal's;
// from a prompt's entry, its leaf moves before that prompt.
func (m *Model) fork(from string) tea.Cmd {
	a := m.a
	out, err := a.Stages.SessionOut(context.Background(), "fork", a.File)
	if err != nil {
		m.fail("/fork", err)
		return nil
	}
	var f struct{ File string }
	json.Unmarshal(out, &f)
	if f.File == "" {
		m.fail("/fork", fmt.Errorf("no file in %s", out))
		return nil
	}
	a.File = f.File
	m.print("forked into " + a.File)
	if from == "" {
		return nil
	}
	return m.checkout(from, "")
}

// setSandbox shows the tools' sandbox mode, or sets it for the next runs.
func (m *Model) setSandbox(mode string) {
	switch mode {
	case "":
		m.print(fmt.Sprintf("sandbox %s (/sandbox workspace-write|read-only|off changes it for the next prompts)", m.a.sandbox()))
	case "workspace-write", "read-only", "off":
		m.a.Sandbox = mode
		m.print("sandbox " + mode + " from the next prompt on")
	default:
		m.fail("/sandbox", fmt.Errorf("unknown mode %q: workspace-write, read-only or off", mode))
	}
}

func (m *Model) compact(instructions string) tea.Cmd {
	a := m.a
	if a.Stages.Compact == nil {
		m.fail("/compact", errors.New("no compaction stage (--compact-cmd is empty)"))
		return nil
	}
	m.phase, m.busyFor = busy, "compacting"
	file := a.File
	return func() tea.Msg {
		err := a.Stages.CompactNow(context.Background(), file, instructions)
		if errors.Is(err, pipeline.ErrNothingToCompact) {
			err = errors.New("/compact: nothing to compact yet: the session is still short enough to send whole")
		} else if err != nil {
			err = fmt.Errorf("/compact: %v", err)
		}
		return sessionDone{err: err, done: "compacted"}
	}
}

// export writes the session as one HTML page (to FILE, or a name made
// from the session's).
func (m *Model) export(out string) {
	a := m.a
	if out == "" {
		out = "session-" + strings.TrimSuffix(strings.TrimSuffix(filepath.Base(a.File), ".zst"), ".jsonl") + ".html"
	}
	if _, err := a.Stages.SessionOut(context.Background(), "export", "--html", "-o", a.abs(out), a.File); err != nil {
		m.fail("/export", err)
		return
	}
	m.print("wrote " + out)
}

// stats are agent-session stats' numbers of the session.
type stats struct {
	File     string
	ID       string
	Entries  int
	Messages int
	Usage    struct {
		Input, Output, CacheRead, CacheWrite, AssistantMessages int
		Cost                                                    float64
	}
}

func (m *Model) stats(cmd string) (stats, bool) {
	var s stats
	out, err := m.a.Stages.SessionOut(context.Background(), "stats", m.a.File)
	if err != nil {
		m.fail(cmd, err)
		return s, false
	}
	json.Unmarshal(out, &s)
	return s, true
}

// cost prints the session's tokens and cost (agent-session stats).
func (m *Model) cost() {
	if s, ok := m.stats("/cost"); ok {
		m.print(fmt.Sprintf("%d messages · input %d · output %d · cache read %d · cache write %d · $%.4f (every branch)",
			s.Messages, s.Usage.Input, s.Usage.Output, s.Usage.CacheRead, s.Usage.CacheWrite, s.Usage.Cost))
	}
}

// session prints what the session is: its file and id, its counts, its
// tokens and cost, the model and the sandbox of the next prompt.
func (m *Model) session() {
	s, ok := m.stats("/session")
	if !ok {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "file      %s\n", m.a.File)
	fmt.Fprintf(&b, "id        %s\n", s.ID)
	fmt.Fprintf(&b, "entries   %d · %d messages, %d of them answers (every branch)\n", s.Entries, s.Messages, s.Usage.AssistantMessages)
	fmt.Fprintf(&b, "tokens    input %s · output %s · cache read %s · cache write %s\n",
		show.Tokens(s.Usage.Input), show.Tokens(s.Usage.Output), show.Tokens(s.Usage.CacheRead), show.Tokens(s.Usage.CacheWrite))
	fmt.Fprintf(&b, "cost      $%.4f\n", s.Usage.Cost)
	fmt.Fprintf(&b, "model     %s · sandbox %s", m.a.state.modelRef, m.a.sandbox())
	m.print(b.String())
}

// copyAnswer puts the last answer on the clipboard.
func (m *Model) copyAnswer() {
	t := m.a.lastText
	if t == "" {
		m.print(red.Render("/copy: no answer yet"))
		return
	}
	copyToClipboard(t)
	m.print(fmt.Sprintf("copied the last answer (%d characters)", len([]rune(t))))
}

// copyToClipboard sets the terminal's clipboard with OSC 52 (tmux passes it
// on with set-clipboard on), written to the terminal directly.
func copyToClipboard(s string) {
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(s)) + "\a"
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		tty.WriteString(seq)
		tty.Close()
	}
}

func (m *Model) resumePicker() {
	out, err := m.a.Stages.SessionOut(context.Background(), "list", "--json")
	if err != nil {
		m.fail("/resume", err)
		return
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
		if s.Path == m.a.File {
			cur = " (current)"
		}
		items = append(items, pickItem{label: fmt.Sprintf("%s  %3d msgs  %s%s", mod, s.MessageCount, clip(t, 60), cur), value: s.Path})
	}
	if len(items) == 0 {
		m.print("/resume: no sessions with messages in this directory")
		return
	}
	m.picker = &picker{title: "Resume a session", items: items, pick: func(m *Model, it pickItem) tea.Cmd {
		ctx := context.Background()
		if _, err := m.a.Stages.SessionOut(ctx, "resume", it.value); err != nil {
			m.fail("/resume", err)
			return nil
		}
		m.a.File = it.value
		recap := m.a.loadState(ctx, m.width)
		m.print("resumed " + it.value + "\n" + recap)
		return nil
	}}
}

var treeID = regexp.MustCompile(`\b([0-9a-f]{8})\b`)

func (m *Model) treePicker() {
	out, err := m.a.Stages.SessionOut(context.Background(), "tree", "--color", "never", m.a.File)
	if err != nil {
		m.fail("/tree", err)
		return
	}
	var items []pickItem
	leaf := ""
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		id := treeID.FindStringSubmatch(line)
		if id == nil {
			continue
		}
		if strings.Contains(line, "* "+id[1]) {
			leaf = id[1]
		}
		items = append(items, pickItem{label: line, value: id[1]})
	}
	if len(items) == 0 {
		m.print("/tree: the session is empty")
		return
	}
	m.picker = &picker{pick: func(m *Model, it pickItem) tea.Cmd {
		target := it.value
		var choices []pickItem
		if m.a.Stages.Compact != nil && target != leaf {
			choices = append(choices, pickItem{label: "no summary", value: "no"}, pickItem{label: "summarize it (a branch_summary entry, one model call)", value: "yes"})
		}
		if r, ok := m.restoreItem(target); ok {
			if len(choices) == 0 {
				choices = append(choices, pickItem{label: "move the leaf only", value: "no"})
			}
			choices = append(choices, r)
		}
		if len(choices) == 0 {
			return m.checkout(target, "")
		}
		title := "Check out " + target + ": summarize the branch you leave?"
		if m.a.Stages.Compact == nil || target == leaf {
			title = "Check out " + target + ": bring the files back too?"
		}
		m.picker = &picker{title: title, items: choices, pick: func(m *Model, it pickItem) tea.Cmd {
			switch it.value {
			case "yes":
				return m.checkout(target, leaf)
			case "restore":
				return m.rewind(target, "/tree")
			}
			return m.checkout(target, "")
		}}
		return nil
	}}
	m.tree, m.treeLeaf = &treeView{p: m.picker, all: items}, leaf
	m.tree.apply(leaf)
}

// checkout moves the session's leaf to id; with the leaf it leaves (from)
// that branch is summarized first (agent-compact --branch-summary).
func (m *Model) checkout(id, from string) tea.Cmd {
	a := m.a
	ctx := context.Background()
	if from == "" {
		co, err := a.Stages.Checkout(ctx, a.File, id)
		if err != nil {
			m.fail("/tree", err)
			return nil
		}
		recap := a.loadState(ctx, m.width)
		m.print("checked out " + id + "\n" + recap)
		m.editAgain(co.EditorText)
		return nil
	}
	m.phase, m.busyFor = busy, "summarizing the branch"
	return func() tea.Msg {
		co, err := a.Stages.BranchSummary(ctx, a.File, from, id)
		if err != nil {
			return sessionDone{err: fmt.Errorf("/tree: branch summary: %v", err)}
		}
		return sessionDone{done: "checked out " + id + ", the branch left summarized", editorText: co.EditorText}
	}
}

// editAgain puts a checked-out prompt back in the editor (unless a
// prompt is being typed there).
func (m *Model) editAgain(text string) {
	text = render.WithoutFiles(text)
	if text != "" && m.ed.Empty() {
		m.ed.Set(text)
		m.edited()
		m.info = "the prompt is back in the editor: edit it and press enter"
	}
}

func (m *Model) modelPicker() {
	a := m.a
	if a.Catalog == nil {
		m.fail("/model", errors.New("no model catalog"))
		return
	}
	var items []pickItem
	sel := 0
	for _, mod := range a.Catalog.Models {
		key := ""
		if _, err := a.Catalog.ResolveKey(mod, "", a.Getenv); err != nil {
			key = "  (no key)"
		}
		if mod.Ref() == a.state.modelRef {
			sel = len(items)
		}
		items = append(items, pickItem{label: fmt.Sprintf("%-45s %s ctx%s", mod.Ref(), show.Tokens(mod.ContextWindow), key), value: mod.Ref()})
	}
	m.picker = &picker{title: "Model", items: items, sel: sel, pick: func(m *Model, it pickItem) tea.Cmd { m.setModel(it.value); return nil }}
}

// setModel takes a model pattern and asks for the thinking level of a
// reasoning model.
func (m *Model) setModel(pattern string) {
	a := m.a
	if a.Catalog == nil {
		a.Model = pattern
		m.print("model " + pattern)
		return
	}
	mod, level, err := a.Catalog.Resolve(pattern)
	if err != nil {
		m.fail("/model", err)
		return
	}
	if _, err := a.Catalog.ResolveKey(mod, "", a.Getenv); err != nil && !a.keyless() {
		m.info = err.Error()
	}
	a.Model, a.state.modelRef = mod.Ref(), mod.Ref()
	if level != "" {
		a.Thinking = level
	}
	if !mod.Reasoning || level != "" {
		m.print("model " + a.Model)
		return
	}
	var items []pickItem
	for _, l := range llm.ThinkingLevels {
		items = append(items, pickItem{label: l, value: l})
	}
	m.picker = &picker{title: "Thinking level for " + mod.Ref(), items: items, pick: func(m *Model, it pickItem) tea.Cmd {
		a.Thinking = it.value
		m.print("model " + a.Model + ", thinking " + it.value)
		return nil
	}}
}
