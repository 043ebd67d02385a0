package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
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
   agent-session open S | agent-compact | agent-chat … | agent-session append S --tee
and shows the events as they stream. Every stage is a process that a flag replaces
(--session-cmd, --compact-cmd, --chat-cmd, --tools-cmd). It continues this terminal's
session in this directory (agent-session continue) and shows its last exchanges.

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
	st := &stages{dir: env.Dir, env: os.Environ(), tools: c.StringSlice("tools-cmd")}
	var err error
	for _, s := range []struct {
		flag string
		to   *[]string
	}{{"session-cmd", &st.session}, {"chat-cmd", &st.chat}, {"compact-cmd", &st.compact}} {
		v := c.String(s.flag)
		if s.flag == "compact-cmd" && strings.TrimSpace(v) == "" {
			continue
		}
		if *s.to, err = words(v); err != nil {
			return exit.Errorf(exit.Usage, "--%s: %v", s.flag, err)
		}
		if _, err := exec.LookPath((*s.to)[0]); err != nil {
			if s.flag == "compact-cmd" && !c.IsSet(s.flag) {
				st.compact = nil // as scripts/agent: no agent-compact, no stage
				continue
			}
			return exit.Errorf(exit.Usage, "%s not found on PATH (make build; export PATH=$PWD/bin:$PATH)", (*s.to)[0])
		}
	}
	if v := c.String("chat-args"); v != "" {
		if st.chatArgs, err = words(v); err != nil {
			return exit.Errorf(exit.Usage, "--chat-args: %v", err)
		}
	}
	interactive := !c.Bool("print")
	prompt := strings.Join(c.Args().Slice(), " ")
	if !interactive && prompt == "" {
		return exit.Errorf(exit.Usage, "--print needs a PROMPT")
	}
	if interactive && !env.StdinTTY {
		return exit.Errorf(exit.Usage, "the interactive agent needs a terminal; use --print PROMPT in scripts")
	}
	if env.StdinTTY {
		st.tty = os.Stdin // agent-session names this terminal by it (continue, fork, resume)
	}
	a := &agent{st: st, dir: env.Dir, getenv: env.Getenv, modelFlag: c.String("model"), thinkingFlag: c.String("thinking")}
	a.color = env.Color("auto", env.StdoutTTY)
	yes, err := configure(c, env, a, st)
	if err != nil {
		return err
	}
	a.histFile = filepath.Join(dirs.Resolve(env.Getenv).Data, "agent_history")
	ctx := context.Background()

	// The session: --session, --new, or this terminal's in this directory.
	switch f := c.String("session"); {
	case f != "" && c.Bool("new"):
		return exit.Errorf(exit.Usage, "--new and --session exclude each other")
	case f != "":
		if _, err := os.Stat(env.Abs(f)); err != nil {
			return exit.Errorf(exit.Usage, "%s: no such session file", f)
		}
		a.file = env.Abs(f)
		st.sessionOut(ctx, "resume", a.file) // this terminal's session from now on
	default:
		args := []string{"continue"}
		if c.Bool("new") {
			args = append(args, "--new")
		}
		out, err := st.sessionOut(ctx, args...)
		if err != nil {
			return exit.Errorf(exit.Failure, "could not find or create a session: %v", err)
		}
		a.file = strings.TrimSpace(string(out))
	}
	if a.cat, err = provider.LoadCatalog("", env.Getenv); err != nil {
		fmt.Fprintf(env.Stderr, "agent: %v\n", err)
	}
	if found, err := contextfiles.Discover(contextfiles.DefaultOptions(env.Dir, env.Getenv)); err == nil {
		for _, t := range found.Templates {
			a.templates = append(a.templates, t.Name)
		}
	}
	recapText := a.loadState(ctx)
	modelErr := a.checkModel()

	if !interactive {
		if modelErr != nil {
			return exit.Wrap(exit.Usage, modelErr)
		}
		return printRun(a, env, prompt)
	}

	u := &ui{a: a, ed: newEditor(a.loadHistory()), width: 80}
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
		u.width = w
	}
	if !yes {
		exe, err := os.Executable()
		if err == nil {
			a.approver, err = newApprover(exe, func(r *approvalReq) { u.p.Send(approvalMsg{r}) })
		}
		if err != nil {
			return exit.Errorf(exit.Failure, "approvals: %v", err)
		}
		defer a.approver.Close()
		if len(st.tools) > 0 {
			fmt.Fprintln(env.Stderr, "agent: approvals apply to the default tools only; your --tools-cmd runs without them")
		}
	}
	if recapText != "" {
		fmt.Fprint(env.Stdout, dim.Render("── "+a.file+" ──")+"\n"+recapText)
	}
	// The banner is printed by the program, so a test (or a person) that
	// sees it knows the keys go to the editor.
	u.banner = dim.Render("session " + a.file + " · /help for commands")
	if modelErr != nil {
		u.banner += "\n" + red.Render("agent: "+modelErr.Error()+" (/model picks another)")
	}
	u.p = tea.NewProgram(u, tea.WithInput(os.Stdin), tea.WithOutput(os.Stdout), tea.WithFPS(120))
	if prompt != "" {
		go u.p.Send(submitMsg(prompt))
	}
	if _, err := u.p.Run(); err != nil {
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
	readEvents(r.events, func(ev event.Event) { fmt.Fprint(env.Stdout, rend.Event(ev)) })
	fmt.Fprint(env.Stdout, rend.Finish())
	if status := r.wait(); status != 0 {
		return exit.Silent(status)
	}
	return nil
}
