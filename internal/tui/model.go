// Package tui is the interactive agent's terminal front-end: a bubbletea
// program whose Model holds the state explicitly (idle, running a
// prompt's pipeline, busy with a session command) and sub-models for the
// editor, the transcript of a run, the pickers, the approvals and the
// footer. Finished output goes into the terminal's scrollback
// (tea.Println, in order); the live part (the line streaming, the
// approval, the picker, the editor, the footer) is the View. The stages
// run through internal/pipeline.
package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentutils/agentutils/internal/approval"
	"github.com/agentutils/agentutils/internal/pipeline"
	"github.com/agentutils/agentutils/lib/event"
)

// phase is what the front-end is doing.
type phase int

const (
	idle    phase = iota // waiting for a prompt
	running              // a prompt's pipeline runs
	busy                 // a session command runs (compacting, a branch summary)
)

// Model is the bubbletea model of the front-end.
type Model struct {
	a     *agent
	phase phase
	// compacted: the run's agent-compact compacted the session
	// (SessionStart, source compact, fires when it ends).
	compacted bool
	idle      idleWait
	busyFor   string // what a busy phase does ("compacting" …)
	width     int
	height    int
	now       func() time.Time
	out       *reflowOut // the program's output (nil: a test's model)

	ed       *editor
	lastEdit time.Time // the editor's last change (the approvals' guard)
	comps    []string  // completions of the word before the cursor
	picker   *picker
	approve  approvals
	info     string // a one-line notice under the editor
	note     *note  // a "# text" line to remember, waiting for y or n

	run        *pipeline.Run
	runEnded   chan struct{} // closed once the run's stages are reaped
	runOpts    pipeline.Opts
	temps      temps      // the editor's temporary copies of images
	ahead      *ahead     // the next run, started while the prompt is typed
	aheadFails int        // runs started ahead that ended by themselves, in a row
	view       transcript // the run's
	live       string     // its line not yet final
	clock      *toolClock
	abortEnd   bool                   // ^C at an approval: abort once the call has ended
	runErrs    int                    // the run's stderr lines shown
	expanded   bool                   // ctrl+o: tools' output shown whole
	lastTool   []event.Event          // the last tool call's start and end, for ctrl+o
	started    map[string]event.Event // the calls of the run, by id
	tasks      taskCards              // its sub-agents running now
	following  bool                   // a followMsg is due

	queued  []string // prompts and commands typed during a run
	history []string // prompts not saved to the history file yet

	inbox    chan tea.Msg // from the run's reader, the approvals' socket
	outbox   []string     // finished text for the scrollback, in order
	outside  bool         // the terminal is the editor's (ctrl+g): nothing drawn
	status   statusLine   // the statusLine command's line and its runs
	tree     *treeView    // /tree's filters, while its picker is open
	treeLeaf string       // the leaf when /tree opened
	printing bool         // a print is on its way to the renderer
	quitting bool         // quit once the outbox is printed
	quitEnd  bool         // ^D came during a run: leave when it ends

	banner  string
	initial string // the command line's PROMPT, run first
}

// Messages from the model's goroutines, read from the inbox.
type (
	fromInbox struct{ msg tea.Msg }
	streamMsg struct {
		run *pipeline.Run
		evs []event.Event // read together
	}
	errLineMsg string
	runDoneMsg struct {
		run    *pipeline.Run
		status int
	}
	approvalMsg struct{ req *approval.Request }
	sessionDone struct {
		err        error
		done       string // what to say when it worked
		editorText string // a checked-out prompt, for the editor
	}
	printedMsg struct{}
	guardMsg   struct{}
	submitMsg  string
)

// New makes the model: banner is shown first, then prompt (if any) runs.
func New(cfg Config, width int) *Model {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	a := &agent{Config: cfg}
	m := &Model{a: a, width: width, now: cfg.Now, inbox: make(chan tea.Msg, 64), temps: temps{}}
	m.clock = &toolClock{now: cfg.Now}
	m.ed = newEditor(a.loadHistory())
	return m
}

func (m *Model) listen() tea.Msg { return fromInbox{<-m.inbox} }

func (m *Model) Init() tea.Cmd {
	m.print(m.banner)
	cmds := []tea.Cmd{m.listen, m.flush()}
	if t := m.initial; t != "" {
		cmds = append(cmds, func() tea.Msg { return submitMsg(t) })
	}
	return tea.Batch(cmds...)
}

// print queues finished text for the scrollback.
func (m *Model) print(s string) {
	if s = strings.TrimRight(s, "\n"); s != "" {
		m.outbox = append(m.outbox, s)
	}
}

// flush prints the outbox: one print at a time, each followed by
// printedMsg, so that what is printed keeps its order (bubbletea runs
// commands concurrently).
func (m *Model) flush() tea.Cmd {
	if m.printing {
		return nil
	}
	if len(m.outbox) == 0 {
		if m.quitting {
			return tea.Quit
		}
		return nil
	}
	text := strings.Join(m.outbox, "\n")
	if m.width > 0 {
		// each line one row: a line the terminal wraps itself leaves the
		// rows below it to the renderer's count, which sees one
		text = ansi.Wrap(text, m.width, "")
	}
	m.outbox, m.printing = nil, true
	return tea.Sequence(tea.Println(text), func() tea.Msg { return printedMsg{} })
}

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	if f, ok := msg.(fromInbox); ok {
		msg = f.msg
		cmds = append(cmds, m.listen)
	}
	cmds = append(cmds, m.update(msg), m.flush(), m.statusLine(), m.idleCheck(msg), m.followTasks())
	m.keepAhead()
	if _, key := msg.(tea.KeyMsg); key && m.approve.active() != nil && !m.approve.armed(m.ed.Empty(), m.lastEdit, m.now()) {
		cmds = append(cmds, guardTick()) // drawn again once the keys answer
	}
	return m, tea.Batch(cmds...)
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case printedMsg:
		m.printing = false
	case streamMsg:
		if msg.run == m.run {
			m.stream(msg.evs)
		}
	case errLineMsg:
		if strings.HasPrefix(string(msg), "agent-compact: nothing to compact") {
			// The compaction stage's note for pipes, at every prompt while
			// the context is over the threshold with nothing older than
			// the recent turns: nothing failed, and its flag is no
			// business of the person's (the run's "compaction suggested"
			// said it).
			break
		}
		m.runErrs++
		m.print(red.Render(string(msg)))
	case runDoneMsg:
		if msg.run == m.run {
			m.temps.drop(m.runOpts.Files) // read: the session has them now
			return m.runDone(msg.status)
		}
		m.aheadEnded(msg.run)
	case approvalMsg:
		return m.ask(msg.req)
	case followMsg:
		m.following = false
		if s := m.followedTasks(); s != "" {
			m.print(strings.TrimSuffix(s, "\n"))
			m.view.r.Aside()
		}
	case guardMsg: // the view changes: the approval's keys are live
	case submitMsg:
		m.ed.Set(string(msg))
		return m.submit()
	case sessionDone:
		return m.sessionDone(msg)
	case shellDone:
		return m.shellDone(msg)
	case edited:
		return m.editedOutside(msg)
	case statusMsg:
		return m.statusDone(msg)
	case jobEndedMsg:
		m.jobEnded(msg.id)
	case jobsDone:
		m.print(dim.Render(string(msg)))
	case planEdited:
		return m.planEdited(msg)
	case memoryEdited:
		m.memoryEdited(msg)
	case tea.KeyMsg:
		return m.key(msg)
	default:
		// Shift+Enter as terminals send it with CSI u or modifyOtherKeys.
		switch fmt.Sprint(msg) {
		case "?CSI[49 51 59 50 117]?", "?CSI[50 55 59 50 59 49 51 126]?":
			m.ed.Newline()
			m.edited()
		case "?CSI[49 49 50 59 54 117]?": // shift+ctrl+p (CSI u): the model before
			m.cycleModel(-1)
		}
	}
	return nil
}

// edited notes a change of the editor's text.
func (m *Model) edited() {
	m.lastEdit = m.now()
	m.updateComps()
}

func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	if p := m.approve.active(); p != nil {
		armed := m.approve.armed(m.ed.Empty(), m.lastEdit, m.now())
		if p.plan != nil && armed && !m.approve.denying && k.Type == tea.KeyRunes && string(k.Runes) == "e" {
			return m.editPlan(p)
		}
		if r := m.approve.key(k, armed); r.handled {
			if r.answer != nil {
				m.answer(*r.answer, r.always)
			}
			return nil
		}
	} else if m.note != nil {
		m.noteKey(k)
		return nil
	} else if m.picker != nil {
		if m.tree != nil && m.tree.p == m.picker {
			if cmd, ok := m.treeKey(k, m.treeLeaf); ok {
				return cmd
			}
		}
		done, it := m.picker.key(k)
		if !done {
			return nil
		}
		p := m.picker
		m.picker = nil
		if it == nil {
			return nil
		}
		return p.pick(m, *it)
	}
	m.info = ""
	switch k.Type {
	case tea.KeyCtrlC:
		m.quitEnd = false
		if m.interrupt() {
			return nil
		}
		m.info = "^D on an empty line exits"
		if !m.ed.Empty() {
			m.info = "cleared · " + m.info
		}
		m.ed.Reset()
		m.edited()
		return nil
	case tea.KeyEsc:
		m.interrupt()
		m.comps = nil
		return nil
	case tea.KeyCtrlD:
		if !m.ed.Empty() {
			m.ed.Delete()
			break
		}
		if m.phase == idle {
			return m.quit()
		}
		// As a shell does with a job running: leave once it is done.
		m.quitEnd = true
		m.info = "exits when this run ends"
		return nil
	case tea.KeyEnter:
		if k.Alt {
			m.ed.Newline()
			break
		}
		return m.submit()
	case tea.KeyTab:
		m.complete()
		return nil
	case tea.KeyShiftTab:
		m.cycleMode()
		return nil
	case tea.KeyCtrlO:
		m.toggleExpanded()
		return nil
	case tea.KeyCtrlG:
		return m.externalEditor()
	case tea.KeyCtrlV:
		return m.pasteImage()
	case tea.KeyCtrlP:
		m.cycleModel(1)
		return nil
	case tea.KeyCtrlT:
		m.cycleThinking()
		return nil
	default:
		if k.Paste {
			if p, temp, ok := droppedImage(string(k.Runes), m.a.Dir); ok {
				if temp {
					m.temps[p] = true
				}
				m.ed.Insert("@" + p + " ") // a dropped image file: attached
				break
			}
		}
		editKey(m.ed, k)
	}
	m.edited()
	return nil
}

// editKey applies an editing key to e.
func editKey(e *editor, k tea.KeyMsg) {
	switch k.Type {
	case tea.KeyCtrlJ:
		e.Newline()
	case tea.KeyBackspace, tea.KeyCtrlH:
		e.Backspace()
	case tea.KeyDelete:
		e.Delete()
	case tea.KeyLeft, tea.KeyCtrlB:
		e.Left()
	case tea.KeyRight, tea.KeyCtrlF:
		e.Right()
	case tea.KeyUp:
		e.Up()
	case tea.KeyDown, tea.KeyCtrlN:
		e.Down()
	case tea.KeyHome, tea.KeyCtrlA:
		e.Home()
	case tea.KeyEnd, tea.KeyCtrlE:
		e.End()
	case tea.KeyCtrlK:
		e.KillLine()
	case tea.KeyCtrlU:
		e.KillStart()
	case tea.KeyCtrlW:
		e.DeleteWord()
	case tea.KeySpace:
		e.Insert(" ")
	case tea.KeyRunes:
		e.Insert(string(k.Runes)) // a bracketed paste arrives whole: one prompt, tabs kept
	}
}

// toggleExpanded (ctrl+o) shows tools' output whole from now on, the last
// call's again at once, or folds it to its last lines again.
func (m *Model) toggleExpanded() {
	m.expanded = !m.expanded
	if !m.expanded {
		m.info = "tool output folded to its last lines (ctrl+o expands)"
		return
	}
	m.info = "tool output expanded (ctrl+o folds)"
	v := newExpanded(m.width, m.a.Color, nil)
	var b strings.Builder
	for _, ev := range m.lastTool {
		b.WriteString(m.taskConversation(ev)) // a sub-agent's, before its answer
		b.WriteString(v.event(ev))
	}
	b.WriteString(m.expandTasks())
	m.print(b.String())
}

func (m *Model) quit() tea.Cmd {
	m.quitting = true
	return nil // flush quits once the outbox is printed
}

// interrupt (^C, esc) aborts the run; true when one was aborted.
func (m *Model) interrupt() bool {
	if m.run != nil {
		m.run.Abort()
		m.info = "aborting…"
		return true
	}
	return false
}

// submit runs the editor's text: a slash command, or a prompt (queued
// while a run goes on).
func (m *Model) submit() tea.Cmd {
	text := m.ed.String()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	m.ed.Remember(text)
	m.history = append(m.history, text)
	m.ed.Reset()
	m.edited()
	m.comps = nil
	if strings.HasPrefix(text, "/") {
		return m.slash(text)
	}
	if t, ok := strings.CutPrefix(text, "# "); ok && strings.TrimSpace(t) != "" && !strings.Contains(t, "\n") {
		m.note = &note{text: strings.TrimSpace(t), file: m.a.memoryFile(false)}
		return nil
	}
	if m.phase != idle {
		m.queued = append(m.queued, text)
		m.info = fmt.Sprintf("queued (%d): it runs when this one ends", len(m.queued))
		return nil
	}
	return m.dispatch(text)
}

// dispatch runs a prompt, a command or a shell command (!CMD).
func (m *Model) dispatch(text string) tea.Cmd {
	switch {
	case strings.HasPrefix(text, "/"):
		return m.slash(text)
	case strings.HasPrefix(text, "!"):
		return m.shell(text)
	}
	return m.startPrompt(text)
}

var atWord = regexp.MustCompile(`(?:^|\s)@(\S+)`)

// startPrompt starts a run; @path words that name files are attached as
// agent-chat attaches @FILE arguments.
func (m *Model) startPrompt(text string) tea.Cmd {
	o := m.a.runOpts(text)
	for _, w := range atWord.FindAllStringSubmatch(text, -1) {
		p := strings.TrimRight(w[1], ".,;:!?)")
		if fi, err := os.Stat(m.a.abs(p)); err == nil && fi.Mode().IsRegular() {
			o.Files = append(o.Files, p)
		}
	}
	m.saveHistory()
	return m.start(o)
}

// start starts a run: the one started ahead given its prompt, else a
// pipeline started now.
func (m *Model) start(o pipeline.Opts) tea.Cmd {
	m.runOpts = o
	inbox := m.inbox
	errLine := func(s string) { inbox <- errLineMsg(s) }
	var r *pipeline.Run
	var ended chan struct{}
	if w := m.takeAhead(o, errLine); w != nil {
		r, ended = w.r, w.ended
	} else {
		var err error
		if r, err = m.a.Stages.Start(m.a.File, o, errLine); err != nil {
			m.print(red.Render(err.Error()))
			return nil
		}
		ended = m.read(r)
	}
	m.aheadFails = 0
	m.run, m.runEnded, m.phase, m.abortEnd, m.runErrs = r, ended, running, false, 0
	m.started, m.tasks = map[string]event.Event{}, nil
	m.view = newTranscript(m.width, m.a.Color, m.clock.Now)
	if m.expanded {
		m.view = newExpanded(m.width, m.a.Color, m.clock.Now)
	}
	return nil
}

// read starts the reader of a run, which sends what it reads to the
// inbox: the events read together as one message, then runDoneMsg. The
// returned channel is closed once the run's stages are reaped.
func (m *Model) read(r *pipeline.Run) chan struct{} {
	inbox := m.inbox
	ended := make(chan struct{})
	go func() {
		var batch []event.Event
		r.ReadEvents(func(ev event.Event, more bool) {
			batch = append(batch, ev)
			if !more {
				inbox <- streamMsg{r, batch}
				batch = nil
			}
		})
		if len(batch) > 0 {
			inbox <- streamMsg{r, batch}
		}
		status := r.Wait()
		close(ended)
		inbox <- runDoneMsg{r, status}
	}()
	return ended
}

// stream shows a run's events.
func (m *Model) stream(evs []event.Event) {
	var b strings.Builder
	for _, ev := range evs {
		m.a.account(ev)
		m.a.modeFrom(ev)
		end := ev.Type == event.ToolExecutionEnd // a sub-agent's last records go before its answer
		if !end {
			b.WriteString(m.view.event(ev))
		}
		if s := m.taskEvent(ev); s != "" {
			b.WriteString(s)
			m.view.r.Aside()
		}
		if end {
			b.WriteString(m.view.event(ev))
		}
		switch ev.Type {
		case event.ToolExecutionStart:
			m.started[ev.ToolCallID] = ev
		case event.Entry:
			var e struct{ Type string }
			if json.Unmarshal(ev.Entry, &e) == nil && e.Type == "compaction" {
				m.compacted = true // agent-compact compacted the session: SessionStart compact at the end
			}
		case event.ToolExecutionEnd:
			m.lastTool = []event.Event{ev}
			if st, ok := m.started[ev.ToolCallID]; ok {
				m.lastTool = []event.Event{st, ev}
				delete(m.started, ev.ToolCallID)
			}
		}
		if ev.Type == event.ToolExecutionEnd && m.abortEnd {
			m.abortEnd = false
			m.interrupt() // the call is recorded as aborted: now the run
		}
	}
	m.print(b.String())
	m.live = m.view.live()
}

func (m *Model) runDone(status int) tea.Cmd {
	m.print(m.view.finish())
	if m.compacted {
		m.compacted = false
		m.a.sessionStart("compact", m.hookWarn)
	}
	if sj := m.a.jobs; sj != nil {
		sj.watch(m.inbox) // the jobs the run started: their end is shown
	}
	m.run, m.phase, m.live, m.info, m.tasks = nil, idle, "", "", nil
	for m.approve.active() != nil { // the run is gone: nobody waits
		m.approve.active().req.Answer(approval.Answer{Abort: true})
		m.approve.done(m.now())
	}
	m.clock.resume()
	m.a.place = place(m.a.Dir, m.a.home()) // the run may have switched branches
	switch status {
	case 0:
	case 3:
		if !m.runOpts.Continue && m.a.Stages.Compact != nil {
			m.print(yellow.Render("the context is full: compacting, then continuing"))
			o := m.a.runOpts("")
			o.Continue, o.Force = true, true
			return m.start(o)
		}
		m.print(red.Render("the context is still too large: try /compact or /new"))
	case 130:
		m.print(yellow.Render("interrupted"))
	default:
		if m.runErrs == 0 && m.view.r.Failed == 0 { // else said already
			m.print(red.Render(fmt.Sprintf("the run failed (agent-chat exit %d)", status)))
		}
	}
	return m.next()
}

// next starts the next queued prompt.
func (m *Model) next() tea.Cmd {
	if m.quitEnd && len(m.queued) == 0 && m.phase == idle {
		return m.quit()
	}
	// A queued command may finish at once (/export, /cost): go on with the
	// next one until something runs.
	var cmds []tea.Cmd
	for len(m.queued) > 0 && m.phase == idle && m.picker == nil {
		t := m.queued[0]
		m.queued = m.queued[1:]
		cmds = append(cmds, m.dispatch(t))
	}
	return tea.Batch(cmds...)
}

// saveHistory appends the prompts sent since the last save to the
// history file.
func (m *Model) saveHistory() {
	for _, t := range m.history {
		m.a.saveHistory(t)
	}
	m.history = nil
}

// hookWarn shows what a hook says for the person.
func (m *Model) hookWarn(s string) { m.print(yellow.Render(s)) }

// sessionDone ends a busy phase.
func (m *Model) sessionDone(msg sessionDone) tea.Cmd {
	m.phase, m.busyFor = idle, ""
	if msg.err != nil {
		m.print(red.Render(msg.err.Error()))
		return m.next()
	}
	recap := m.a.loadState(context.Background(), m.width)
	if msg.done == "compacted" {
		m.a.sessionStart("compact", m.hookWarn)
	}
	if msg.done != "compacted" {
		msg.done += "\n" + recap
	}
	m.print(dim.Render(msg.done))
	m.editAgain(msg.editorText)
	return m.next()
}

// ---- approvals

// ask shows an approval request or a tool's question; the tools' clock
// stops while it waits. In acceptEdits mode edits are approved unasked,
// and calls an allow rule covers in every mode.
func (m *Model) ask(req *approval.Request) tea.Cmd {
	lines := 20
	if m.height > 0 {
		lines = max(m.height-12, 5)
	}
	p := &pending{req: req}
	switch q := req.Question; {
	case q == nil && (m.a.approvedByMode(req.In.ToolName) || m.a.allowedByRule(req.In)):
		req.Answer(approval.Answer{Allow: true})
		return nil
	case q == nil:
		p.detail = approvalDetail(req.In, m.a.Dir, m.a.sandbox(), m.width, lines, m.a.Color)
		m.a.notify("permission_prompt", askedAbout(req))
	case q.Kind == event.PlanKind:
		var pl struct{ Plan string }
		json.Unmarshal(q.Payload, &pl)
		p.plan, p.detail = &pl.Plan, planDetail(pl.Plan, m.width, lines)
		m.a.notify("permission_prompt", "agent needs your approval of its plan")
	case q.Kind == event.AskKind:
		p.ask = newAsking(q.Payload)
		m.a.notify("elicitation_dialog", "agent has a question for you")
	case q.Kind == "elicit" && elicitURL(q.Payload) != "":
		// An MCP server's URL elicitation: the person opens the URL
		// (never opened for them); the server hears it was shown.
		m.print(elicitURL(q.Payload))
		req.Answer(approval.Answer{Allow: true, Value: json.RawMessage(`{"action":"accept"}`)})
		return nil
	default:
		req.Answer(approval.Answer{})
		return nil
	}
	m.approve.add(p, m.now())
	m.clock.pause()
	return guardTick()
}

// elicitURL is the line that shows an MCP URL elicitation (the bridge's
// "elicit" request of mode "url"), "" for any other.
func elicitURL(payload json.RawMessage) string {
	var p struct{ Server, Message, Mode, URL string }
	if json.Unmarshal(payload, &p) != nil || p.Mode != "url" || p.URL == "" {
		return ""
	}
	s := fmt.Sprintf("MCP server %q asks you to open %s", p.Server, p.URL)
	if m := strings.TrimSpace(p.Message); m != "" {
		s += ": " + m
	}
	return s
}

// guardTick draws the approval again once the guard is over.
func guardTick() tea.Cmd {
	return tea.Tick(approvalGuard, func(time.Time) tea.Msg { return guardMsg{} })
}

// answer answers the shown approval.
func (m *Model) answer(ans approval.Answer, always bool) {
	p := m.approve.active()
	if p.plan != nil {
		edited := ""
		if p.edited {
			edited = *p.plan
		}
		ans, always = planAnswer(ans, always, edited), false
		var pa event.PlanAnswer
		if json.Unmarshal(ans.Value, &pa) == nil && pa.Approved {
			m.setMode(pa.Mode) // agent-chat switches too, and records it
		}
	}
	if always && m.a.approver != nil {
		m.a.approver.Always(p.req)
	}
	p.req.Answer(ans)
	m.approve.done(m.now())
	if m.approve.active() == nil {
		m.clock.resume()
	}
	switch {
	case ans.Abort && m.tasks.bySession(p.req.In.SessionID) != nil:
		m.interrupt() // a sub-agent's call: its task call ends only with it
	case ans.Abort:
		m.abortEnd = true // the call ends denied, then the run is aborted
		m.info = "aborting…"
	}
}

// ---- completion

// updateComps lists the completions of the word before the cursor: slash
// commands at the start of the text, paths after @.
func (m *Model) updateComps() {
	m.comps = nil
	w := m.ed.WordBeforeCursor()
	text := m.ed.String()
	switch {
	case strings.HasPrefix(text, "/") && !strings.ContainsAny(text, " \n") && w == text:
		for _, c := range slashCommands {
			if strings.HasPrefix(c.name, w) {
				m.comps = append(m.comps, c.name)
			}
		}
		for _, t := range m.a.Templates {
			if strings.HasPrefix("/"+t, w) {
				m.comps = append(m.comps, "/"+t)
			}
		}
	case strings.HasPrefix(w, "@"):
		m.comps = m.a.pathCompletions(w[1:])
		for i := range m.comps {
			m.comps[i] = "@" + m.comps[i]
		}
	}
}

// complete replaces the word with the only completion, or with the
// completions' common prefix.
func (m *Model) complete() {
	m.updateComps()
	if len(m.comps) == 0 {
		return
	}
	c := m.comps[0]
	for _, o := range m.comps[1:] {
		c = commonPrefix(c, o)
	}
	if len(m.comps) == 1 && !strings.HasSuffix(c, "/") {
		c += " "
	}
	m.ed.ReplaceWordBeforeCursor(c)
	m.edited()
}

func commonPrefix(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[:i]
}

// ---- view

func (m *Model) View() string {
	v := m.frame()
	if m.out != nil {
		m.out.viewed(v, m.width, m.height)
	}
	return v
}

// frame is the view: what is drawn below the printed lines.
func (m *Model) frame() string {
	if m.quitting && len(m.outbox) == 0 && !m.printing || m.outside {
		return ""
	}
	width := max(m.width, 20)
	var b strings.Builder
	b.WriteString(m.tasks.view(width, m.expanded))
	if m.live != "" {
		// The paragraph still streaming, wrapped as it will be printed:
		// cut at the width, its later words would show only at its end.
		b.WriteString(ansi.Wrap(m.live, width, "") + "\n")
	}
	switch m.phase {
	case running:
		b.WriteString(dim.Render("⋯ working (esc to abort)") + "\n")
	case busy:
		b.WriteString(dim.Render("⋯ "+m.busyFor) + "\n")
	}
	asking := m.approve.active() != nil
	if asking {
		b.WriteString(m.approve.view(width, m.approve.armed(m.ed.Empty(), m.lastEdit, m.now()), m.ed.Empty(), m.asker()))
	}
	if m.picker != nil {
		b.WriteString(m.picker.view(width))
	}
	if m.note != nil {
		b.WriteString(m.note.view(width))
	}
	b.WriteString(m.ed.View(width, m.picker == nil && !m.approve.denying))
	b.WriteString("\n")
	if len(m.comps) > 0 {
		b.WriteString(m.compsView() + "\n")
	}
	if m.info != "" {
		b.WriteString(yellow.Render(m.info) + "\n")
	}
	if m.status.line != "" {
		b.WriteString(ansi.Truncate(m.status.line, width, "…") + "\n")
	}
	b.WriteString(m.a.footer(width))
	return b.String()
}

func (m *Model) compsView() string {
	var parts []string
	for i, c := range m.comps {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("… %d more", len(m.comps)-8))
			break
		}
		h := ""
		for _, sc := range slashCommands {
			if sc.name == c && len(m.comps) <= 3 {
				h = " " + dim.Render(sc.args+" "+sc.help)
			}
		}
		parts = append(parts, accent.Render(c)+h)
	}
	return strings.Join(parts, "  ")
}
