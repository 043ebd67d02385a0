package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/llm"
)

// Messages from the pipeline's goroutines.
type (
	// streamMsg is what the run's reader read together: the events (for
	// the footer's numbers), their finished text and the unfinished line.
	streamMsg struct {
		evs     []event.Event
		print   string // finished text for the scrollback, when printed
		printed bool
		live    string // the renderer's unfinished line after the last event
	}
	errLineMsg  string
	runDoneMsg  struct{ status int }
	approvalMsg struct{ req *approvalReq }
	compactDone struct {
		err  error
		done string // what to say when it worked
	}
)

// slashCommands are the front-end's commands, with their one-line help.
var slashCommands = []struct{ name, args, help string }{
	{"/new", "", "start a new session"},
	{"/resume", "", "pick a session of this directory to continue"},
	{"/fork", "", "continue in a copy of this session"},
	{"/tree", "", "navigate the session tree and check out an entry"},
	{"/model", "[MODEL]", "pick the model and thinking level"},
	{"/compact", "[INSTRUCTIONS]", "summarize the session now"},
	{"/export", "[FILE]", "write the session as one HTML page"},
	{"/cost", "", "tokens and cost of this session"},
	{"/copy", "", "copy the last answer to the clipboard"},
	{"/help", "", "the commands and keys"},
	{"/exit", "", "leave (also ^D on an empty line)"},
}

const keysHelp = "keys: enter send · alt+enter or shift+enter newline · tab complete · ↑↓ history · ^C clear / abort · esc abort · ^D exit"

// ui is the bubbletea model: the editor, the streaming view, pickers, the
// approval prompt and the footer. Finished output goes to the terminal's
// scrollback (println); only the live part is redrawn (screen.go).
type ui struct {
	a      *agent
	p      *tea.Program
	show   func(streamMsg) // handles a stream's message in the caller's goroutine (screen.go)
	scr    *painter
	ed     *editor
	width  int
	live   string // the streaming line not yet final
	run    *run
	events *bufio.Reader // the runs' readEvents buffer, one run at a time
	ahead  *ahead        // the next run, started before its prompt (ahead.go)
	// enterPrompt is what enter would send to ahead, as of the last
	// message handled (fastPrompt), for the terminal's reader (enter.go).
	enterPrompt string
	runOpts     runOpts
	queued      []string
	busy        string // "compacting" …
	picker      *picker
	ask         *approvalReq
	denying     bool // typing the reason of a denial into the editor
	info        string
	comps       []string // completions of the word before the cursor
	quit        bool
	quitEnd     bool // ^D came during a run: leave when it ends
	banner      string
	initial     string // the command line's PROMPT, run first
	working     string // the line shown while a run goes on, styled once
	echoAhead   *echoAhead
	history     []string // prompts not saved to the history file yet
}

// picker is a filtered list to choose from.
type picker struct {
	title  string
	items  []pickItem
	filter string
	sel    int
	pick   func(u *ui, it pickItem) tea.Cmd
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

var (
	dim    = lipgloss.NewStyle().Faint(true)
	red    = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	yellow = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	accent = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	bold   = lipgloss.NewStyle().Bold(true)
)

func promptStyle(s string) string { return accent.Render(s) }

func (u *ui) Init() tea.Cmd {
	u.println(u.banner)
	if t := u.initial; t != "" {
		return func() tea.Msg { return submitMsg(t) }
	}
	return nil
}

// println prints finished text above the live area (queued in order, with
// the next paint); it returns no command.
func (u *ui) println(s string) tea.Cmd {
	if s = strings.TrimRight(s, "\n"); s != "" {
		u.scr.println(s)
	}
	return nil
}

func (u *ui) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		u.width = msg.Width
		return u, nil
	case streamMsg:
		if msg.printed {
			u.scr.println(msg.print) // as it is: blank lines are kept
		}
		for _, ev := range msg.evs {
			u.a.account(ev)
		}
		u.live = msg.live
		return u, nil
	case errLineMsg:
		return u, u.println(red.Render(string(msg)))
	case runDoneMsg:
		return u, u.runDone(msg.status)
	case approvalMsg:
		u.ask = msg.req
		return u, nil
	case submitMsg:
		u.ed.Set(string(msg))
		return u, u.submit()
	case compactDone:
		u.busy = ""
		if msg.err != nil {
			return u, u.println(red.Render("compact: " + msg.err.Error()))
		}
		recap := u.a.loadState(context.Background())
		if msg.done != "compacted" {
			msg.done += "\n" + recap
		}
		return u, tea.Batch(u.println(dim.Render(msg.done)), u.next())
	case tea.KeyMsg:
		return u, u.key(msg)
	default:
		// Shift+Enter as terminals send it with CSI u or modifyOtherKeys.
		if s := fmt.Sprint(msg); s == "?CSI[49 51 59 50 117]?" || s == "?CSI[50 55 59 50 59 49 51 126]?" {
			u.ed.Newline()
		}
	}
	return u, nil
}

func (u *ui) key(k tea.KeyMsg) tea.Cmd {
	if u.ask != nil && !u.denying {
		return u.approvalKey(k)
	}
	if u.picker != nil {
		return u.pickerKey(k)
	}
	u.info = ""
	switch k.Type {
	case tea.KeyCtrlC:
		u.quitEnd = false
		cleared := !u.ed.Empty()
		if u.interrupt() {
			return nil
		}
		u.info = "^D on an empty line exits"
		if cleared {
			u.info = "cleared · " + u.info
		}
		u.ed.Reset()
		u.comps = nil
		return nil
	case tea.KeyEsc:
		u.interrupt()
		u.comps = nil
		return nil
	case tea.KeyCtrlD:
		if u.ed.Empty() && u.run == nil && u.busy == "" {
			u.quit = true
			return tea.Quit
		}
		if u.ed.Empty() {
			// As a shell does with a job running: leave once it is done.
			u.quitEnd = true
			u.info = "exits when this run ends"
			return nil
		}
		u.ed.Delete()
	case tea.KeyEnter:
		if k.Alt {
			u.ed.Newline()
			break
		}
		return u.submit()
	case tea.KeyCtrlJ:
		u.ed.Newline()
	case tea.KeyTab:
		u.complete()
		return nil
	case tea.KeyBackspace, tea.KeyCtrlH:
		u.ed.Backspace()
	case tea.KeyDelete:
		u.ed.Delete()
	case tea.KeyLeft, tea.KeyCtrlB:
		u.ed.Left()
	case tea.KeyRight, tea.KeyCtrlF:
		u.ed.Right()
	case tea.KeyUp, tea.KeyCtrlP:
		u.ed.Up()
	case tea.KeyDown, tea.KeyCtrlN:
		u.ed.Down()
	case tea.KeyHome, tea.KeyCtrlA:
		u.ed.Home()
	case tea.KeyEnd, tea.KeyCtrlE:
		u.ed.End()
	case tea.KeyCtrlK:
		u.ed.KillLine()
	case tea.KeyCtrlU:
		u.ed.KillStart()
	case tea.KeyCtrlW:
		u.ed.DeleteWord()
	case tea.KeySpace:
		u.ed.Insert(" ")
	case tea.KeyRunes:
		u.ed.Insert(string(k.Runes)) // a bracketed paste arrives whole: one prompt, tabs kept
	}
	u.updateComps()
	return nil
}

// interrupt (^C, esc) aborts the run, or denies the call whose reason is
// being typed; true when a run was aborted.
func (u *ui) interrupt() bool {
	if u.run != nil {
		u.run.Abort()
		u.info = "aborting…"
		return true
	}
	if u.denying {
		u.denying = false
		u.ed.Reset()
		u.answer(approvalAnswer{})
	}
	return false
}

// submit runs the editor's text: a slash command, or a prompt (queued
// while a run goes on).
func (u *ui) submit() tea.Cmd {
	text := u.ed.String()
	if u.denying {
		u.denying = false
		u.ed.Reset()
		u.answer(approvalAnswer{Reason: strings.TrimSpace(text)})
		return nil
	}
	if strings.TrimSpace(text) == "" {
		return nil
	}
	u.ed.Remember(text)
	u.history = append(u.history, text) // saved once the run shows its first output (afterMessage)
	u.ed.Reset()
	u.comps = nil
	if strings.HasPrefix(text, "/") {
		return u.slash(text)
	}
	if u.run != nil || u.busy != "" {
		u.queued = append(u.queued, text)
		u.info = fmt.Sprintf("queued (%d): it runs when this one ends", len(u.queued))
		return nil
	}
	return u.startPrompt(text)
}

var atWord = regexp.MustCompile(`(?:^|\s)@(\S+)`)

// startPrompt starts a run; @path words that name files are attached as
// agent-chat attaches @FILE arguments.
func (u *ui) startPrompt(text string) tea.Cmd {
	o := runOpts{prompt: text}
	if !strings.Contains(text, "@") {
		return u.start(o)
	}
	for _, m := range atWord.FindAllStringSubmatch(text, -1) {
		p := strings.TrimRight(m[1], ".,;:!?)")
		if fi, err := os.Stat(u.a.abs(p)); err == nil && fi.Mode().IsRegular() {
			o.files = append(o.files, p)
		}
	}
	return u.start(o)
}

func (u *ui) start(o runOpts) tea.Cmd {
	o.model, o.thinking = u.a.modelFlag, u.a.thinkingFlag
	o.extra = u.a.chatExtra()
	u.runOpts = o
	// The run started ahead gets its prompt first: what else enter does
	// (the renderer, the echo) is done while agent-chat sends it.
	r := u.takeAhead(o)
	e := u.echoAhead
	u.echoAhead = nil
	rend := newRenderer(u.width, u.a.color)
	errLine := func(s string) { u.p.Send(errLineMsg(s)) }
	echoed := false
	if r != nil {
		// (errLine sends to this loop: the kept lines are printed here)
		for _, l := range r.stderr.to(errLine) {
			u.println(red.Render(l))
		}
		if e != nil && e.prompt == strings.TrimSpace(o.prompt) && e.width == u.width {
			rend, echoed = e.rend, true // drawn ahead
			u.scr.println(strings.TrimSuffix(e.out, "\n"))
		} else {
			echoed = u.echo(rend, o.prompt)
		}
	} else {
		var err error
		if r, err = u.a.st.start(u.a.file, o, errLine); err != nil {
			return u.println(red.Render(err.Error()))
		}
	}
	u.run = r
	p, show := u.p, u.show
	// The renderer runs here, in the reader; its output reaches the
	// painter in the stream's order, one message (one paint) for the
	// events that were read together, handled here (show) as the loop
	// would: no hand-over to the loop's goroutine on the way to the
	// screen.
	go func() {
		var batch streamMsg
		var text strings.Builder
		live := ""
		readEvents(u.events, r.events, func(ev event.Event, more bool) {
			if echoed && ev.Type == event.MessageStart {
				echoed = false // the prompt, drawn at enter
			} else {
				// Each piece ends with its last line's newline: the lines before
				// it are kept, blank ones too (a heading's blank line may end one).
				text.WriteString(rend.Event(ev))
			}
			batch.evs = append(batch.evs, ev)
			if more {
				return
			}
			batch.print, batch.printed = strings.TrimSuffix(text.String(), "\n"), text.Len() > 0
			batch.live = rend.Live()
			if !batch.printed && batch.live == live && !ends(batch.evs) {
				return // nothing to show: the events go with the next batch
			}
			live = batch.live
			show(batch)
			batch = streamMsg{}
			text.Reset()
		})
		if len(batch.evs) > 0 {
			show(batch)
		}
		status := r.wait()
		if out := rend.Finish(); out != "" {
			p.Send(printMsg(strings.TrimSuffix(out, "\n")))
		}
		p.Send(runDoneMsg{status})
	}()
	return nil
}

// echo draws a run's prompt at enter, as the renderer draws it when
// agent-chat's stream brings it back (then it is not drawn again): the
// screen does not wait for the stream, and the front-end's work on it is
// done while agent-chat sends the request. A template's call (/name) is
// left to the stream, which brings it expanded.
func (u *ui) echo(rend renderer, prompt string) bool {
	prompt = strings.TrimSpace(prompt)
	if prompt == "" || strings.HasPrefix(prompt, "/") {
		return false
	}
	u.scr.println(strings.TrimSuffix(rend.Event(promptEvent(prompt)), "\n"))
	return true
}

// promptEvent is the user message of a prompt, as the stream brings it.
func promptEvent(prompt string) event.Event {
	return messageEvent(event.MessageStart, llm.Message{Role: "user", Content: []llm.Content{llm.TextBlock(prompt)}})
}

// echoAheadMax is the longest prompt whose echo is drawn ahead.
const echoAheadMax = 4 << 10

// echoAhead is the echo of the prompt enter would send, drawn before
// enter with the renderer the run is then given.
type echoAhead struct {
	prompt string
	width  int
	rend   renderer
	out    string
}

// afterMessage is what the loop does once a message is handled and
// painted: the run ahead kept up to date, what enter would send (for
// the terminal's reader) and its echo made ready, so that enter has
// neither to encode and render the prompt nor (with the history, saved
// once the run shows its first output) to write a file on the way from
// Enter to the first character.
func (u *ui) afterMessage(shown bool) {
	u.keepAhead()
	u.enterPrompt = u.fastPrompt()
	switch p := u.enterPrompt; {
	case p == "" || strings.HasPrefix(p, "/") || len(p) > echoAheadMax:
		u.echoAhead = nil // (a long prompt is echoed at enter: not rendered again at every key)
	case u.echoAhead == nil || u.echoAhead.prompt != p || u.echoAhead.width != u.width:
		rend := newRenderer(u.width, u.a.color)
		u.echoAhead = &echoAhead{prompt: p, width: u.width, rend: rend, out: rend.Event(promptEvent(p))}
	}
	if shown || u.run == nil {
		u.saveHistory()
	}
}

// saveHistory appends the prompts sent since the last save to the
// history file.
func (u *ui) saveHistory() {
	for _, t := range u.history {
		u.a.saveHistory(t)
	}
	u.history = nil
}

// ends: the events hold an answer's end (its numbers, for the footer).
func ends(evs []event.Event) bool {
	for _, ev := range evs {
		var m struct{ Role string }
		if ev.Type == event.MessageEnd && json.Unmarshal(ev.Message, &m) == nil && m.Role == "assistant" {
			return true
		}
	}
	return false
}

func (u *ui) runDone(status int) tea.Cmd {
	u.run = nil
	u.info = ""
	var cmds []tea.Cmd
	u.live = ""
	switch status {
	case 0:
	case 3:
		if !u.runOpts.cont && u.a.st.compact != nil {
			cmds = append(cmds, u.println(yellow.Render("the context is full: compacting, then continuing")))
			cmds = append(cmds, u.start(runOpts{cont: true, force: true}))
			return tea.Sequence(cmds...)
		}
		cmds = append(cmds, u.println(red.Render("the context is still too large: try /compact or /new")))
	case 130:
		cmds = append(cmds, u.println(yellow.Render("interrupted")))
	default:
		cmds = append(cmds, u.println(red.Render(fmt.Sprintf("the run failed (agent-chat exit %d)", status))))
	}
	cmds = append(cmds, u.next())
	return tea.Sequence(cmds...)
}

// next starts the next queued prompt.
func (u *ui) next() tea.Cmd {
	if u.quitEnd && len(u.queued) == 0 && u.run == nil && u.busy == "" {
		u.quit = true
		return tea.Quit
	}
	// A queued command may finish at once (/export, /cost): go on with the
	// next one until something runs.
	var cmds []tea.Cmd
	for len(u.queued) > 0 && u.run == nil && u.busy == "" && u.picker == nil {
		t := u.queued[0]
		u.queued = u.queued[1:]
		if strings.HasPrefix(t, "/") {
			cmds = append(cmds, u.slash(t))
			continue
		}
		cmds = append(cmds, u.startPrompt(t))
	}
	return tea.Sequence(cmds...)
}

// ---- approvals

func (u *ui) approvalKey(k tea.KeyMsg) tea.Cmd {
	switch {
	case k.String() == "y" || k.Type == tea.KeyEnter:
		u.answer(approvalAnswer{Allow: true})
	case k.String() == "a":
		u.a.approver.Always(u.ask)
		u.answer(approvalAnswer{Allow: true})
	case k.String() == "n":
		u.denying = true
		u.ed.Reset()
		u.info = "why not? (enter sends the reason to the model, esc denies without one)"
	case k.Type == tea.KeyEsc:
		u.answer(approvalAnswer{})
	case k.Type == tea.KeyCtrlC:
		u.answer(approvalAnswer{})
		if u.run != nil {
			u.run.Abort()
		}
	}
	return nil
}

func (u *ui) answer(a approvalAnswer) {
	if u.ask == nil {
		return
	}
	u.ask.reply <- a
	u.ask = nil
	u.info = ""
}

// ---- pickers

func (u *ui) pickerKey(k tea.KeyMsg) tea.Cmd {
	p := u.picker
	vis := p.visible()
	switch k.Type {
	case tea.KeyEsc, tea.KeyCtrlC:
		u.picker = nil
	case tea.KeyUp, tea.KeyCtrlP:
		if p.sel > 0 {
			p.sel--
		}
	case tea.KeyDown, tea.KeyCtrlN:
		if p.sel < len(vis)-1 {
			p.sel++
		}
	case tea.KeyPgUp:
		p.sel = max(p.sel-10, 0)
	case tea.KeyPgDown:
		p.sel = max(min(p.sel+10, len(vis)-1), 0)
	case tea.KeyEnter:
		if p.sel < len(vis) {
			u.picker = nil
			return p.pick(u, vis[p.sel])
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
	return nil
}

// ---- completion

// updateComps lists the completions of the word before the cursor: slash
// commands at the start of the text, paths after @.
func (u *ui) updateComps() {
	u.comps = nil
	w := u.ed.WordBeforeCursor()
	text := u.ed.String()
	switch {
	case strings.HasPrefix(text, "/") && !strings.ContainsAny(text, " \n") && w == text:
		for _, c := range slashCommands {
			if strings.HasPrefix(c.name, w) {
				u.comps = append(u.comps, c.name)
			}
		}
		for _, t := range u.a.templates {
			if strings.HasPrefix("/"+t, w) {
				u.comps = append(u.comps, "/"+t)
			}
		}
	case strings.HasPrefix(w, "@"):
		u.comps = u.a.pathCompletions(w[1:])
		for i := range u.comps {
			u.comps[i] = "@" + u.comps[i]
		}
	}
}

// complete replaces the word with the only completion, or with the
// completions' common prefix.
func (u *ui) complete() {
	u.updateComps()
	if len(u.comps) == 0 {
		return
	}
	c := u.comps[0]
	for _, o := range u.comps[1:] {
		c = commonPrefix(c, o)
	}
	if len(u.comps) == 1 && !strings.HasSuffix(c, "/") {
		c += " "
	}
	u.ed.ReplaceWordBeforeCursor(c)
	u.updateComps()
}

func commonPrefix(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[:i]
}

// ---- view

func (u *ui) View() string {
	if u.quit {
		return ""
	}
	width := max(u.width, 20)
	var b strings.Builder
	if u.live != "" {
		b.WriteString(u.live)
		b.WriteString("\n")
	}
	if u.run != nil {
		if u.working == "" { // styled once: it is drawn at every paint of a stream
			u.working = dim.Render("⋯ working (esc to abort)") + "\n"
		}
		b.WriteString(u.working)
	}
	if u.busy != "" {
		b.WriteString(dim.Render("⋯ "+u.busy) + "\n")
	}
	if u.ask != nil {
		b.WriteString(yellow.Render("Allow "+u.ask.summary()+" ?") + "\n")
		if u.ask.in.ToolName == "edit" || u.ask.in.ToolName == "write" {
			b.WriteString(dim.Render(clip(string(u.ask.in.ToolInput), width*2)) + "\n")
		}
		if !u.denying {
			b.WriteString(bold.Render("[y]") + " yes  " + bold.Render("[a]") + " always for this command  " + bold.Render("[n]") + " no, say why  " + bold.Render("[esc]") + " no\n")
		}
	}
	if p := u.picker; p != nil {
		b.WriteString(bold.Render(p.title))
		if p.filter != "" {
			b.WriteString("  filter: " + p.filter)
		}
		b.WriteString("\n")
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
	}
	b.WriteString(u.ed.View(width, u.picker == nil && (u.ask == nil || u.denying)))
	b.WriteString("\n")
	if len(u.comps) > 0 {
		var parts []string
		for i, c := range u.comps {
			if i == 8 {
				parts = append(parts, fmt.Sprintf("… %d more", len(u.comps)-8))
				break
			}
			h := ""
			for _, sc := range slashCommands {
				if sc.name == c && len(u.comps) <= 3 {
					h = " " + dim.Render(sc.args+" "+sc.help)
				}
			}
			parts = append(parts, accent.Render(c)+h)
		}
		b.WriteString(strings.Join(parts, "  ") + "\n")
	}
	if u.info != "" {
		b.WriteString(yellow.Render(u.info) + "\n")
	}
	b.WriteString(u.a.footer(width))
	return b.String()
}

// ---- the session's numbers

// sessionState is what the footer shows, folded from the session and the
// events of runs.
type sessionState struct {
	in, out  int
	cost     float64
	ctx      int // the last answer's context tokens
	modelRef string
	thinking string
}

func (a *agent) account(ev event.Event) {
	switch ev.Type {
	case event.MessageEnd:
		var m llm.Message
		if json.Unmarshal(ev.Message, &m) == nil && m.Role == "assistant" && m.Text() != "" {
			a.lastText = m.Text()
		}
		if m.Role == "assistant" && m.Usage != nil {
			a.state.in += m.Usage.Input
			a.state.out += m.Usage.Output
			a.state.cost += m.Usage.Cost.Total
			a.state.ctx = m.Usage.ContextTokens()
			if m.Provider != "" && m.Model != "" {
				a.state.modelRef = m.Provider + "/" + m.Model
			}
		}
	}
}

func (a *agent) footer(width int) string {
	k := footerKey{width, a.state, a.thinkingFlag, a.cfgThinking, a.cat, true}
	if k != a.footerLast {
		a.footerLast, a.footerText = k, a.drawFooter(width)
	}
	return a.footerText
}

func (a *agent) drawFooter(width int) string {
	m := a.currentModel()
	name := a.state.modelRef
	if name == "" {
		name = "(no model)"
	}
	parts := []string{name}
	th := a.thinkingFlag
	if th == "" {
		th = a.state.thinking
	}
	if th == "" {
		th = a.cfgThinking // config.toml's, as agent-chat will use it
	}
	if th == "" {
		th = "off"
	}
	parts = append(parts, "thinking "+th)
	parts = append(parts, fmt.Sprintf("↑%s ↓%s", tokens(a.state.in), tokens(a.state.out)))
	parts = append(parts, fmt.Sprintf("$%.4f", a.state.cost))
	if m != nil && m.ContextWindow > 0 {
		pct := 100 * float64(a.state.ctx) / float64(m.ContextWindow)
		f := "%.0f%% of %s"
		if pct > 0 && pct < 10 {
			f = "%.1f%% of %s" // a long window fills slowly: 0.4%, not 0%
		}
		parts = append(parts, fmt.Sprintf(f, pct, tokens(m.ContextWindow)))
	}
	s := strings.Join(parts, " · ")
	return dim.Render(clip(s, width-1))
}

// pathCompletions lists files and directories under the working directory
// that start with prefix (hidden ones only when asked for).
func (a *agent) pathCompletions(prefix string) []string {
	dir, base := filepath.Split(prefix)
	ents, err := os.ReadDir(a.abs(dir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, base) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		if e.IsDir() {
			n += "/"
		}
		out = append(out, dir+n)
	}
	sort.Strings(out)
	return out
}
