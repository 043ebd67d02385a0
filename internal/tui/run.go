package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentutils/agentutils/internal/approval"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
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
	sep := " · " // (a line of its own where both do not fit: no word cut at the edge)
	if utf8.RuneCountInString("session "+a.File+sep+"/help for commands") > o.Width {
		sep = "\n"
	}
	m.banner = dim.Render("session " + a.File + sep + "/help for commands")
	if modelErr != nil {
		m.banner += "\n" + red.Render("agent: "+modelErr.Error()+" (/model picks another)")
	}
	m.initial = o.Prompt
	_, err = tea.NewProgram(m, tea.WithInput(os.Stdin), tea.WithOutput(stdout)).Run()
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
	return err
}

// Print runs one prompt without the screen and returns agent-chat's exit
// status (an error: nothing ran). stdout gets the answer: the stream rendered when it is a
// terminal, else only the last answer's text; the rest (tool calls,
// retries, the numbers) goes to stderr when that is a terminal, and
// agent-chat's own errors to stderr always.
func Print(cfg Config, prompt string, stdout, stderr io.Writer, stdoutTTY, stderrTTY bool) (int, error) {
	a := &agent{Config: cfg}
	a.loadState(context.Background(), 100)
	if err := a.checkModel(); err != nil {
		return 0, exit.Wrap(exit.Usage, err)
	}
	a.lastText = ""
	view, shown := io.Discard, stdout
	switch {
	case stdoutTTY:
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
	if !stdoutTTY && a.lastText != "" {
		fmt.Fprintln(shown, a.lastText)
	}
	return status, nil
}
