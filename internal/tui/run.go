package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentutils/agentutils/internal/approval"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/loop"
)

// Options are the interactive run's choices beyond Config.
type Options struct {
	Prompt    string // run first, as if typed
	Approvals bool   // ask before edits and bash (the default tools only)
	Exe       string // this binary, run as the approval hook
	Width     int    // the terminal's columns at start
}

// Interactive runs the screen on the terminal (stdin, stdout) until
// /exit or ^D. The session's last exchanges are printed first.
func Interactive(cfg Config, o Options, stdout, stderr io.Writer) error {
	m := New(cfg, o.Width)
	a := m.a
	sj, err := ownJobs()
	if err != nil {
		return fmt.Errorf("background jobs: %v", err)
	}
	defer sj.close() // after the last run: the session's jobs end with agent
	a.jobs = sj
	a.Stages.Env = append(a.Stages.Env, sj.env())
	recap := a.loadState(context.Background(), o.Width)
	if cfg.Mode != "" {
		a.mode = cfg.Mode // the command line's, over the session's
	}
	modelErr := a.checkModel()
	warn := func(s string) { fmt.Fprintf(stderr, "agent: %s\n", s) }
	a.sessionStart("startup", warn)
	// The socket serves the approvals and the tools' questions (ask,
	// exit_plan_mode), which are put to the person with --yes too.
	srv, err := approval.NewServer(o.Exe, func(r *approval.Request) { m.inbox <- approvalMsg{r} })
	if err != nil {
		return fmt.Errorf("approvals: %v", err)
	}
	defer srv.Close()
	a.approver, a.asks = srv, o.Approvals
	if o.Approvals {
		if len(a.Stages.Tools) > 0 {
			fmt.Fprintln(stderr, "agent: approvals apply to the default tools only; your --tools-cmd runs without them")
		}
	}
	if a.Sandbox == "off" {
		fmt.Fprintln(stderr, "agent: --sandbox off: the tools run unconfined")
	}
	if recap != "" {
		fmt.Fprint(stdout, dim.Render("── "+a.File+" ──")+"\n"+recap)
	}
	// The banner is printed by the program, so a test (or a person) that
	// sees it knows the keys go to the editor.
	m.banner = banner(a.Version, a.File, o.Width)
	if modelErr != nil {
		m.banner += "\n" + red.Render("agent: "+modelErr.Error()+" (/model picks another)")
	}
	m.initial = o.Prompt
	// xterm cuts lines at a narrowing, where others (and tmux, screen
	// within xterm) reflow them.
	m.out = newReflowOut(stdout, os.Getenv("XTERM_VERSION") != "" && os.Getenv("TMUX") == "" && os.Getenv("STY") == "")
	_, err = tea.NewProgram(m, tea.WithInput(os.Stdin), tea.WithOutput(m.out), tea.WithFilter(m.out.filter)).Run()
	m.saveHistory()
	go func() { // nobody reads the inbox now: the run's reader must not wait on it
		for range m.inbox {
		}
	}()
	if m.run != nil {
		m.run.Abort()
		<-m.runEnded
	}
	if w := m.ahead; w != nil {
		m.dropAhead()
		<-w.ended
	}
	a.sessionEnd("prompt_input_exit", warn)
	m.temps.drop(nil)
	return err
}

// Print runs one prompt without the screen and returns agent-chat's exit
// status (an error: nothing ran). stdout gets the answer: the stream rendered when it is a
// terminal, else only the last answer's text; the rest (tool calls,
// retries, the numbers) goes to stderr when that is a terminal, and
// agent-chat's own errors to stderr always. With cfg.JSONAnswer stdout gets
// only the final answer's JSON document, and only when the run succeeded.
func Print(cfg Config, prompt string, stdout, stderr io.Writer, stdoutTTY, stderrTTY bool) (int, error) {
	a := &agent{Config: cfg}
	a.loadState(context.Background(), 100)
	if err := a.checkModel(); err != nil {
		return 0, exit.Wrap(exit.Usage, err)
	}
	a.lastText = ""
	warn := func(s string) { fmt.Fprintf(stderr, "agent: %s\n", s) }
	a.sessionStart("startup", warn)
	defer a.sessionEnd("other", warn)
	view, shown := io.Discard, stdout
	switch {
	case stdoutTTY && !cfg.JSONAnswer:
		view = stdout
	case stderrTTY:
		view = stderr
	}
	rend := newTranscript(100, cfg.Color && (stdoutTTY || stderrTTY), cfg.Now)
	r, err := a.Stages.Start(a.File, a.runOpts(prompt), func(s string) { fmt.Fprintln(stderr, s) })
	if err != nil {
		return 0, exit.Wrap(exit.Failure, err)
	}
	r.ReadEvents(func(ev event.Event, _ bool) {
		fmt.Fprint(view, rend.event(ev))
		a.account(ev)
	})
	fmt.Fprint(view, rend.finish())
	status := r.Wait()
	if cfg.JSONAnswer {
		if status == 0 && a.lastText != "" {
			fmt.Fprintln(shown, loop.JSONText(a.lastText))
		}
		return status, nil
	}
	if !stdoutTTY && a.lastText != "" {
		fmt.Fprintln(shown, a.lastText)
	}
	return status, nil
}

// startKeys are the start-up screen's key hints, the ones a newcomer needs
// first; /hotkeys has them all.
var startKeys = []string{"/help for commands", "! shell", "@ file", "shift+tab mode", "^O expand", "esc stop", "^D exit"}

// banner is the start-up screen: agentutils and its version, the session
// file, the key hints; each on a line of its own, hints wrapped at a
// separator, never a word cut at the edge.
func banner(version, file string, width int) string {
	head := "agentutils"
	if version != "" {
		head += " " + version
	}
	lines := []string{bold.Render(head), dim.Render("session " + file)}
	line := ""
	for _, k := range startKeys {
		switch {
		case line == "":
			line = k
		case utf8.RuneCountInString(line+" · "+k) > width:
			lines, line = append(lines, dim.Render(line)), k
		default:
			line += " · " + k
		}
	}
	return strings.Join(append(lines, dim.Render(line)), "\n")
}
