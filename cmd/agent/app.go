package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/contextfiles"
	"github.com/agentutils/agentutils/internal/provider"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/exit"
)

func newApp(env *app.Env) *cli.App {
	return &cli.App{
		Name:                      "agent",
		DisableSliceFlagSeparator: true, // a --tools-cmd may hold commas
		Usage:                     "the interactive coding agent: an editor over the agentutils pipeline",
		ArgsUsage:                 "[PROMPT...]",
		Description: `agent owns the terminal and runs, for each prompt, the pipeline
   agent-session open S | agent-compact | agent-chat … | tee >(agent-session append S)
and shows the events as they stream: it reads agent-chat's events and passes every line on
to agent-session append, which persists them; a run ends once append has. Every stage is a process that a flag replaces
(--session-cmd, --compact-cmd, --chat-cmd, --tools-cmd). It continues this terminal's
session in this directory (agent-session continue) and shows its last exchanges.
The next run's pipeline starts while the prompt is typed, agent-chat waiting for it on
stdin (its "-" argument); it starts again when the session, model or thinking level changes,
and a prompt with @PATH or a session due for compaction gets its own at enter (--no-ahead: always).

Keys: enter sends, alt+enter (or shift+enter, ^J) starts a new line, a paste is one prompt,
tab completes /commands and @paths, up/down walk the history (kept across runs in
$XDG_DATA_HOME/agentutils/agent_history), ^C clears the line or aborts a run (its partial
answer is kept, marked aborted), esc aborts too, ^D on an empty line exits (during a run, once it ends).

Commands: /new, /resume (a picker), /fork, /tree (check out an entry, with a branch
summary), /model (a picker, then the thinking level), /compact [INSTRUCTIONS],
/export [FILE], /cost, /copy, /help, /exit; prompt templates (.agentutils/commands/*.md,
.claude/commands/*.md) run as /NAME. Any other /word is an error; a prompt is never a
command. Prompts and commands typed during a run are queued behind it.
@PATH attaches a file as agent-chat's @FILE does.

Before edits and bash commands agent asks (y once, a always for this command, n no with a
reason for the model): an agent-tool PreToolUse hook for the default tools. --yes asks nothing.

Examples:
   agent
   agent -n "add a --json flag to the list command"
   agent -p "why does make test fail?" > answer.txt
   agent --model anthropic/claude-sonnet-4-5 --thinking high
   agent --yes --tools-cmd "agent-tool serve --read-only"`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "new", Aliases: []string{"n"}, Usage: "start a new session instead of continuing"},
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "use the session `FILE`"},
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "the model `PATTERN` for agent-chat (provider/id, id or a fuzzy name)"},
			&cli.StringFlag{Name: "thinking", Usage: "thinking `LEVEL`: off, minimal, low, medium, high, xhigh"},
			&cli.BoolFlag{Name: "print", Aliases: []string{"p"}, Usage: "run the PROMPT, print the answer and exit with agent-chat's status"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "run edits and bash without asking (default: config.toml's approvalMode = \"yes\" or AGENT_APPROVAL_MODE=yes)"},
			&cli.StringFlag{Name: "session-cmd", Value: "agent-session", Usage: "the session `COMMAND` (open, append, continue, fork …)"},
			&cli.StringFlag{Name: "compact-cmd", Value: "agent-compact", Usage: "the compaction filter `COMMAND` (\"\" skips the stage)"},
			&cli.StringFlag{Name: "chat-cmd", Value: "agent-chat", Usage: "the model `COMMAND`"},
			&cli.StringSliceFlag{Name: "tools-cmd", Usage: "tool co-process `COMMAND` for agent-chat (repeatable; default agent-tool serve, with the approval hook)"},
			&cli.StringFlag{Name: "chat-args", Usage: "more agent-chat `FLAGS` for every run (split as the shell does)"},
			&cli.BoolFlag{Name: "no-ahead", Usage: "start each run's pipeline at enter, not while the prompt is typed"},
			&cli.StringFlag{Name: "approval-hook", Hidden: true, Usage: "run as the approval hook talking to `SOCKET`"},
		},
		Action: func(c *cli.Context) error { return action(c, env) },
	}
}

func action(c *cli.Context, env *app.Env) error {
	if sock := c.String("approval-hook"); sock != "" {
		if code := approvalHook(sock, env.Stdin, env.Stderr); code != 0 {
			return exit.Silent(code)
		}
		return nil
	}
	o, err := parseOptions(c, c.Args().Slice(), env.StdinTTY)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	st, err := o.lookStages(env.Dir, env.Environment())
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	if env.StdinTTY {
		st.tty = os.Stdin // agent-session names this terminal by it (continue, fork, resume)
	}
	a := &agent{st: st, dir: env.Dir, getenv: env.Getenv, modelFlag: o.model, thinkingFlag: o.thinking, noAhead: o.noAhead}
	a.color = env.Color("auto", env.StdoutTTY)
	// config.toml's approvalMode, unless --yes is given
	if o.yes, err = configure(c, env, a, st); err != nil {
		return err
	}
	a.histFile = filepath.Join(dirs.Resolve(env.Getenv).Data, "agent_history")
	if err := a.openSession(context.Background(), o, env.Abs); err != nil {
		return err
	}
	if a.cat, err = provider.LoadCatalog("", env.Getenv); err != nil {
		fmt.Fprintf(env.Stderr, "agent: %v\n", err)
	}
	if found, err := contextfiles.Discover(contextfiles.DefaultOptions(env.Dir, env.Getenv)); err == nil {
		for _, t := range found.Templates {
			a.templates = append(a.templates, t.Name)
		}
	}
	recapText := a.loadState(context.Background())
	modelErr := a.checkModel()
	if o.print {
		if modelErr != nil {
			return exit.Wrap(exit.Usage, modelErr)
		}
		return printRun(a, env, o.prompt)
	}
	return interactive(a, o, env, recapText, modelErr)
}

// flagValues is what parseOptions reads of the command line (a
// *cli.Context; a table in the tests).
type flagValues interface {
	String(name string) string
	Bool(name string) bool
	IsSet(name string) bool
	StringSlice(name string) []string
}

// options are agent's command line, checked.
type options struct {
	session, compact, chat, chatArgs []string // the stages' commands (compact nil: none)
	tools                            []string // --tools-cmd values
	compactSet                       bool     // --compact-cmd given: a missing command is an error
	print, yes, new, noAhead         bool
	prompt, sessionFile              string
	model, thinking                  string
}

// parseOptions checks the flags and arguments (pure: nothing is looked up
// or run).
func parseOptions(c flagValues, args []string, stdinTTY bool) (options, error) {
	o := options{tools: c.StringSlice("tools-cmd"), compactSet: c.IsSet("compact-cmd"),
		print: c.Bool("print"), yes: c.Bool("yes"), new: c.Bool("new"), noAhead: c.Bool("no-ahead"),
		prompt: strings.Join(args, " "), sessionFile: c.String("session"), model: c.String("model"), thinking: c.String("thinking")}
	var err error
	for _, s := range []struct {
		flag string
		to   *[]string
	}{{"session-cmd", &o.session}, {"chat-cmd", &o.chat}, {"compact-cmd", &o.compact}, {"chat-args", &o.chatArgs}} {
		v := c.String(s.flag)
		if (s.flag == "compact-cmd" || s.flag == "chat-args") && strings.TrimSpace(v) == "" {
			continue
		}
		if *s.to, err = words(v); err != nil {
			return o, fmt.Errorf("--%s: %v", s.flag, err)
		}
	}
	switch {
	case o.print && o.prompt == "":
		return o, fmt.Errorf("--print needs a PROMPT")
	case !o.print && !stdinTTY:
		return o, fmt.Errorf("the interactive agent needs a terminal; use --print PROMPT in scripts")
	case o.sessionFile != "" && o.new:
		return o, fmt.Errorf("--new and --session exclude each other")
	}
	return o, nil
}

// lookStages finds the stages' commands on PATH; an agent-compact that is
// not there, unless named, means no compaction stage (as scripts/agent).
func (o options) lookStages(dir string, environ []string) (*stages, error) {
	st := &stages{dir: dir, env: environ, tools: o.tools, session: o.session, chat: o.chat, compact: o.compact, chatArgs: o.chatArgs}
	for i, argv := range [][]string{o.session, o.chat, o.compact} {
		if argv == nil {
			continue
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			if i == 2 && !o.compactSet {
				st.compact = nil
				continue
			}
			return nil, fmt.Errorf("%s not found on PATH (make build; export PATH=$PWD/bin:$PATH)", argv[0])
		}
	}
	return st, nil
}

// openSession finds the session: --session, --new, or this terminal's in
// this directory.
func (a *agent) openSession(ctx context.Context, o options, abs func(string) string) error {
	if f := o.sessionFile; f != "" {
		if _, err := os.Stat(abs(f)); err != nil {
			return exit.Errorf(exit.Usage, "%s: no such session file", f)
		}
		a.file = abs(f)
		a.st.sessionOut(ctx, "resume", a.file) // this terminal's session from now on
		return nil
	}
	args := []string{"continue"}
	if o.new {
		args = append(args, "--new")
	}
	out, err := a.st.sessionOut(ctx, args...)
	if err != nil {
		return exit.Errorf(exit.Failure, "could not find or create a session: %v", err)
	}
	a.file = strings.TrimSpace(string(out))
	return nil
}

// termWidth is the terminal's width, 80 when stdout is not one.
func termWidth() int {
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
		return w
	}
	return 80
}

// interactive runs the screen until /exit or ^D.
func interactive(a *agent, o options, env *app.Env, recapText string, modelErr error) error {
	u := &ui{a: a, ed: newEditor(a.loadHistory()), width: termWidth(), initial: o.prompt, events: bufio.NewReaderSize(nil, eventBuffer)}
	if !o.yes {
		exe, err := os.Executable()
		if err == nil {
			a.approver, err = newApprover(exe, func(r *approvalReq) { u.p.Send(approvalMsg{r}) })
		}
		if err != nil {
			return exit.Errorf(exit.Failure, "approvals: %v", err)
		}
		defer a.approver.Close()
		if len(a.st.tools) > 0 {
			fmt.Fprintln(env.Stderr, "agent: approvals apply to the default tools only; your --tools-cmd runs without them")
		}
	}
	if recapText != "" {
		fmt.Fprint(env.Stdout, dim.Render("── "+a.file+" ──")+"\n"+recapText)
	}
	// The banner is printed by the program, so a test (or a person) that
	// sees it knows the keys go to the editor.
	sep := " · " // (a line of its own where both do not fit: no word cut at the edge)
	if utf8.RuneCountInString("session "+a.file+sep+"/help for commands") > u.width {
		sep = "\n"
	}
	u.banner = dim.Render("session " + a.file + sep + "/help for commands")
	if modelErr != nil {
		u.banner += "\n" + red.Render("agent: "+modelErr.Error()+" (/model picks another)")
	}
	err := runScreen(u, os.Stdin, os.Stdout)
	u.saveHistory()
	if u.ahead != nil {
		u.ahead.drop()
	}
	if err != nil {
		return exit.Errorf(exit.Failure, "%v", err)
	}
	if u.run != nil {
		u.run.Abort()
		u.run.wait()
	}
	return nil
}

// submitMsg runs a prompt as if typed (the PROMPT of the command line).
type submitMsg string

// printRun runs one prompt without the screen: the events rendered on
// stdout, agent-chat's exit status returned.
func printRun(a *agent, env *app.Env, prompt string) error {
	rend := newRenderer(100, a.color)
	o := runOpts{prompt: prompt, model: a.modelFlag, thinking: a.thinkingFlag}
	r, err := a.st.start(a.file, o, func(s string) { fmt.Fprintln(env.Stderr, s) })
	if err != nil {
		return exit.Wrap(exit.Failure, err)
	}
	readEvents(nil, r.events, func(ev event.Event, _ bool) {
		fmt.Fprint(env.Stdout, rend.Event(ev))
		r.events.Release()
	})
	fmt.Fprint(env.Stdout, rend.Finish())
	if status := r.wait(); status != 0 {
		return exit.Silent(status)
	}
	return nil
}
