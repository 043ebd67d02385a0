package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/approval"
	"github.com/agentutils/agentutils/internal/contextfiles"
	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/internal/pipeline"
	"github.com/agentutils/agentutils/internal/provider"
	"github.com/agentutils/agentutils/internal/tui"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/mcpconfig"
	"github.com/agentutils/agentutils/lib/permission"
)

// description is agent's --help text below the usage.
const description = `agent owns the terminal and runs, for each prompt, the pipeline
   agent-session open S | agent-compact | agent-chat … | tee >(agent-session append S)
and shows the events as they stream: it reads agent-chat's events and passes every line on
to agent-session append, which persists them; a run ends once append has. Every stage is a process that a flag replaces
(--session-cmd, --compact-cmd, --chat-cmd, --tools-cmd). It continues this terminal's
session in this directory (agent-session continue) and shows its last exchanges.
The next run's pipeline starts while the prompt is typed, agent-chat waiting for it on
stdin (its "-" argument) with the model's server dialed; it starts again when the session,
model, thinking level, sandbox mode or flags change, and a prompt with @PATH or a session
due for compaction gets its own at enter (--no-ahead: always).

Keys: enter sends, alt+enter (or shift+enter, ^J) starts a new line, a paste is one prompt,
tab completes /commands and @paths, up/down walk the history (kept across runs in
$XDG_DATA_HOME/agentutils/agent_history), ^C clears the line or aborts a run (its partial
answer is kept, marked aborted), esc aborts too, ^O expands or folds tools' output, ^G edits
the prompt in $VISUAL or $EDITOR, ^P and ^T take the next model (of --models) and
thinking level, ^D on an empty line exits (during a run, once it ends);
/hotkeys lists them all. !CMD runs a shell command (in the sandbox) whose
output the model gets with the next prompt (!!CMD: not).

Commands: /new, /resume (a picker), /fork (from a prompt: a picker), /tree (check out an
entry, with a branch summary or with its files brought back; a prompt checked out goes
back into the editor; tab filters, ctrl+l labels), /rewind (a picker over the prompts,
each with the files its turn changed: the files and the session go back to before it, the
prompt into the editor), /model (a picker, then the thinking level), /sandbox [MODE],
/session, /jobs [ID|kill ID|all|keep ID] (the session's background jobs, which die when
agent exits), /compact [INSTRUCTIONS], /export [FILE], /cost, /copy, /name [NAME],
/label ENTRY [TEXT], /settings [KEY VALUE], /plan, /memory [user], /hotkeys, /help,
/exit; prompt templates (.agentutils/commands/*.md, .claude/commands/*.md) run as
/TEMPLATE. Any other /word is an error naming the nearest commands; a prompt is never a
command. Prompts and commands typed during a run are queued behind it.
@PATH attaches a file as agent-chat's @FILE does.

Before edits and bash commands agent asks, showing the diff, the new file or the command
with its directory and sandbox mode: y once, a always for this command, n no with a reason
for the model, esc no, ^C no and abort the run. Only a deliberate key answers: enter never
does, and while the editor holds a prompt (or was typed in a moment ago) keys go to the
editor, so type-ahead cannot approve anything. An agent-tool PreToolUse hook for the default
tools; --yes asks nothing.

shift+tab cycles the permission mode (default, accept edits: edits run unasked, plan: only
tools that read run); /plan toggles plan mode, --plan starts in it. In plan mode the model's
plan (exit_plan_mode) is shown: y approves, a approves into accept edits, e edits it in
$EDITOR, n refuses with a reason. The ask tool's questions are a picker. /memory opens the
project's AGENTS.md (or CLAUDE.md) in $EDITOR; "# TEXT" appends a line to it after y/n.

With -p, stdout gets only the answer when it is not a terminal (the run is drawn on stderr
when that is one); agent-chat's errors go to stderr.

The tools run in the sandbox of --sandbox (agent-chat's flag, passed on; the footer shows it,
/sandbox changes it for the next prompts).

Without a provider key: make try, in agentutils' source, runs agent in a scratch repository
with a local fake model (scripts/try); or point agent at a local ollama or llama.cpp server
through models.toml (the README's quick start).

Examples:
   agent
   agent -n "add a --json flag to the list command"
   agent --plan "add a --json flag to the list command"
   agent -p "why does make test fail?" > answer.txt
   agent --model anthropic/claude-sonnet-4-5 --thinking high
   agent --yes --tools-cmd "agent-tool serve --read-only"`

func newApp(env *app.Env) *cli.App {
	return &cli.App{
		Name:                      "agent",
		DisableSliceFlagSeparator: true, // a --tools-cmd may hold commas
		Usage:                     "the interactive coding agent: an editor over the agentutils pipeline",
		ArgsUsage:                 "[PROMPT...]",
		Description:               description,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "new", Aliases: []string{"n"}, Usage: "start a new session instead of continuing"},
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "use the session `FILE`"},
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "the model `PATTERN` for agent-chat (provider/id, id or a fuzzy name)"},
			&cli.StringFlag{Name: "thinking", Usage: "thinking `LEVEL`: off, minimal, low, medium, high, xhigh"},
			&cli.StringFlag{Name: "models", Usage: "the model `PATTERNS` (comma-separated) ctrl+p cycles through (default: config.toml's enabledModels, else every model with a key)"},
			&cli.BoolFlag{Name: "print", Aliases: []string{"p"}, Usage: "run the PROMPT, print the answer and exit with agent-chat's status"},
			&cli.StringFlag{Name: "permission-mode", Usage: "Claude Code's permission `MODE`: default, acceptEdits, plan, bypassPermissions; with --print agent-chat's flag, interactively the mode to start in"},
			&cli.StringFlag{Name: "json-schema", Usage: "with --print: the final answer must be a JSON document valid for the JSON Schema in `FILE` (agent-chat's --json-schema: asked again twice at most, then exit 1); stdout gets only that document"},
			&cli.StringSliceFlag{Name: "allowed-tools", Usage: "passed to agent-chat: tool `RULES` that run without approval (Bash(git diff:*), Edit, …); repeatable"},
			&cli.StringSliceFlag{Name: "disallowed-tools", Usage: "passed to agent-chat: tool `RULES` that never run; repeatable"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "run edits and bash without asking (default: config.toml's approvalMode = \"yes\" or AGENT_APPROVAL_MODE=yes)"},
			&cli.StringFlag{Name: "session-cmd", Value: "agent-session", Usage: "the session `COMMAND` (open, append, continue, fork …)"},
			&cli.StringFlag{Name: "compact-cmd", Value: "agent-compact", Usage: "the compaction filter `COMMAND` (\"\" skips the stage)"},
			&cli.StringFlag{Name: "chat-cmd", Value: "agent-chat", Usage: "the model `COMMAND`"},
			&cli.StringSliceFlag{Name: "tools-cmd", Usage: "tool co-process `COMMAND` for agent-chat (repeatable; default agent-tool serve, with the approval hook)"},
			&cli.StringFlag{Name: "chat-args", Usage: "more agent-chat `FLAGS` for every run (split as the shell does)"},
			&cli.BoolFlag{Name: "no-checkpoint", Usage: "take no checkpoint before each prompt (by default agent-chat --checkpoint records what changed in the directory since the last prompt, through any tool, bash too: what /rewind brings back)"},
			&cli.StringFlag{Name: "sandbox", Usage: "the tools' sandbox `MODE`: workspace-write, read-only or off (passed to agent-chat)"},
			&cli.BoolFlag{Name: "no-ahead", Usage: "start each run's pipeline at enter, not while the prompt is typed"},
			&cli.Float64Flag{Name: "idle-notify", Value: 60, Usage: "after `SECONDS` waiting for a prompt, fire the Notification hooks with notification_type idle_prompt, once a wait (0: never; Claude Code waits 60)"},
			&cli.StringFlag{Name: "approval-hook", Hidden: true, Usage: "run as the approval hook talking to `SOCKET`"},
			&cli.StringFlag{Name: "ask-hook", Hidden: true, Usage: "run as agent-chat's --ask-cmd talking to `SOCKET`"},
			&cli.BoolFlag{Name: "plan", Usage: "start in plan mode: only tools that read run until you approve the model's plan (shift+tab and /plan switch modes)"},
		},
		Action: func(c *cli.Context) error { return action(c, env) },
	}
}

func action(c *cli.Context, env *app.Env) error {
	if sock := c.String("ask-hook"); sock != "" {
		if code := approval.AskHook(sock, env.Stdin, env.Stdout, env.Stderr); code != 0 {
			return exit.Silent(code)
		}
		return nil
	}
	if sock := c.String("approval-hook"); sock != "" {
		if code := approval.Hook(sock, env.Stdin, env.Stdout, env.Stderr); code != 0 {
			return exit.Silent(code)
		}
		return nil
	}
	o, err := parseOptions(c, c.Args().Slice(), env.StdinTTY, env.Getenv)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	st, err := o.lookStages(env.Dir, env.Environment())
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	if env.StdinTTY {
		st.TTY = os.Stdin // agent-session names this terminal by it (continue, fork, resume)
	}
	cfg := tui.Config{Stages: st, Dir: env.Dir, Getenv: env.Getenv, Model: o.model, Thinking: o.thinking, Sandbox: o.sandbox, NoAhead: o.noAhead, IdleNotify: time.Duration(c.Float64("idle-notify") * float64(time.Second)), Mode: o.mode, JSONAnswer: o.jsonAnswer, Version: c.App.Version}
	cfg.Color = env.Color("auto", env.StdoutTTY)
	// config.toml's approvalMode, unless --yes is given
	if o.yes, err = configure(c, env, &cfg); err != nil {
		return err
	}
	cfg.HistoryFile = filepath.Join(dirs.Resolve(env.Getenv).Data, "agent_history")
	if err := findHooks(env, &cfg); err != nil {
		return err
	}
	if cfg.File, err = openSession(context.Background(), st, o, env.Abs); err != nil {
		return err
	}
	if cfg.Catalog, err = provider.LoadCatalog("", env.Getenv); err != nil {
		fmt.Fprintf(env.Stderr, "agent: %v\n", err)
	}
	if found, err := contextfiles.Discover(contextfiles.DefaultOptions(env.Dir, env.Getenv)); err == nil {
		for _, t := range found.Templates {
			cfg.Templates = append(cfg.Templates, t.Name)
		}
	}
	if o.print {
		status, err := tui.Print(cfg, o.prompt, env.Stdout, env.Stderr, env.StdoutTTY, isTerminal(env.Stderr))
		if err != nil || status == 0 {
			return err
		}
		return exit.Silent(status)
	}
	exe, err := os.Executable()
	if err != nil {
		return exit.Errorf(exit.Failure, "approvals: %v", err)
	}
	if !c.Bool("no-checkpoint") {
		defer st.Watch()()
	}
	err = tui.Interactive(cfg, tui.Options{Prompt: o.prompt, Approvals: !o.yes, Exe: exe, Width: termWidth()}, os.Stdout, env.Stderr)
	if err != nil {
		return exit.Errorf(exit.Failure, "%v", err)
	}
	return nil
}

// isTerminal: w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
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
	jsonAnswer                       bool // --json-schema: only the answer's JSON on stdout
	prompt, sessionFile              string
	model, thinking, sandbox         string
	mode                             string // the permission mode to start in (interactive)
}

// sandboxModes are --sandbox's values.
var sandboxModes = []string{"workspace-write", "read-only", "off"}

// parseOptions checks the flags and arguments (pure: nothing is looked up
// or run).
func parseOptions(c flagValues, args []string, stdinTTY bool, getenv func(string) string) (options, error) {
	o := options{tools: c.StringSlice("tools-cmd"), compactSet: c.IsSet("compact-cmd"),
		print: c.Bool("print"), yes: c.Bool("yes"), new: c.Bool("new"), noAhead: c.Bool("no-ahead"), sandbox: c.String("sandbox"),
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
		if *s.to, err = pipeline.Words(v, getenv); err != nil {
			return o, fmt.Errorf("--%s: %v", s.flag, err)
		}
	}
	if !c.Bool("no-checkpoint") {
		o.chatArgs = append(o.chatArgs, "--checkpoint")
	}
	// The permission mode: agent-chat's flag with -p; interactively the
	// mode to start in, which shift+tab and /plan change.
	mode := c.String("permission-mode")
	if c.Bool("plan") {
		if mode != "" && mode != "plan" {
			return o, fmt.Errorf("--plan and --permission-mode %s exclude each other", mode)
		}
		mode = "plan"
	}
	switch {
	case mode == "":
	case o.print:
		o.chatArgs = append(o.chatArgs, "--permission-mode", mode)
	case !slices.Contains(permission.Modes, mode):
		return o, fmt.Errorf("--permission-mode %q: the modes are %s", mode, strings.Join(permission.Modes, ", "))
	default:
		o.mode = mode
	}
	if f := c.String("json-schema"); f != "" {
		if !o.print {
			return o, fmt.Errorf("--json-schema needs --print (the interactive agent shows its answers)")
		}
		o.chatArgs, o.jsonAnswer = append(o.chatArgs, "--json-schema", f), true
	}
	// Flags agent-chat takes as they are.
	for _, f := range []string{"allowed-tools", "disallowed-tools"} {
		for _, v := range c.StringSlice(f) {
			o.chatArgs = append(o.chatArgs, "--"+f, v)
		}
	}
	switch {
	case o.print && o.prompt == "":
		return o, fmt.Errorf("--print needs a PROMPT")
	case !o.print && !stdinTTY:
		return o, fmt.Errorf("the interactive agent needs a terminal; use --print PROMPT in scripts")
	case o.sessionFile != "" && o.new:
		return o, fmt.Errorf("--new and --session exclude each other")
	case o.sandbox != "" && !slices.Contains(sandboxModes, o.sandbox):
		return o, fmt.Errorf("--sandbox %q: the modes are %s", o.sandbox, strings.Join(sandboxModes, ", "))
	}
	return o, nil
}

// lookStages finds the stages' commands on PATH; an agent-compact that is
// not there, unless named, means no compaction stage (as scripts/agent).
func (o options) lookStages(dir string, environ []string) (*pipeline.Stages, error) {
	st := &pipeline.Stages{Dir: dir, Env: environ, Tools: o.tools, Session: o.session, Chat: o.chat, Compact: o.compact, ChatArgs: o.chatArgs}
	for i, argv := range [][]string{o.session, o.chat, o.compact} {
		if argv == nil {
			continue
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			if i == 2 && !o.compactSet {
				st.Compact = nil
				continue
			}
			return nil, fmt.Errorf("%s not found on PATH (make build; export PATH=$PWD/bin:$PATH)", argv[0])
		}
	}
	return st, nil
}

// openSession finds the session: --session, --new, or this terminal's in
// this directory.
func openSession(ctx context.Context, st *pipeline.Stages, o options, abs func(string) string) (string, error) {
	if f := o.sessionFile; f != "" {
		switch fi, err := os.Stat(abs(f)); {
		case err != nil:
			return "", exit.Errorf(exit.Usage, "%s: no such session file", f)
		case !fi.Mode().IsRegular():
			return "", exit.Errorf(exit.Usage, "%s: not a session file", f)
		}
		// this terminal's session from now on
		if _, err := st.SessionOut(ctx, "resume", abs(f)); err != nil {
			return "", exit.Errorf(exit.Usage, "%s: %v", f, err)
		}
		return abs(f), nil
	}
	args := []string{"continue"}
	if o.new {
		args = append(args, "--new")
	}
	out, err := st.SessionOut(ctx, args...)
	if err != nil {
		return "", exit.Errorf(exit.Failure, "could not find or create a session: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// termWidth is the terminal's width, 80 when stdout is not one.
func termWidth() int {
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
		return w
	}
	return 80
}

// findHooks finds the settings files whose hooks run (Claude Code's and
// ours; the project's only in a project trusted as for agent-mcp, its
// trust file) and reads them: agent fires the session's hooks, hands the
// files to agent-chat (and so to agent-tool) and to agent-compact.
func findHooks(env *app.Env, cfg *tui.Config) error {
	d := dirs.Resolve(env.Getenv)
	project := env.Dir
	if !trusted(filepath.Join(d.Data, "trust.json"), env.Dir) {
		if own := hooks.SettingsFiles("", "", env.Dir); len(own) > 0 {
			fmt.Fprintf(env.Stderr, "agent: %s: the project's hooks run only in a trusted project (agent-mcp list offers the trust)\n", strings.Join(own, ", "))
		}
		project = ""
	}
	cfg.SettingsFiles = hooks.SettingsFiles(env.Getenv("HOME"), d.Config, project)
	hs, _, err := hooks.Load(cfg.SettingsFiles, nil)
	if err != nil {
		return exit.Wrap(exit.Usage, err)
	}
	cfg.Hooks = hs
	if st := cfg.Stages; st.Compact != nil {
		for _, f := range cfg.SettingsFiles {
			st.Compact = append(st.Compact, "--settings", f)
		}
	}
	return nil
}

// trusted says whether dir is in (or under) a project of agent-mcp's trust
// file (a file that cannot be read trusts nothing).
func trusted(trustFile, dir string) bool {
	data, err := os.ReadFile(trustFile)
	if err != nil {
		return false
	}
	list, err := mcpconfig.ParseTrust(data)
	if err != nil {
		return false
	}
	for _, root := range mcpconfig.TrustRoots(list) {
		if root = filepath.Clean(root); dir == root || strings.HasPrefix(dir, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
