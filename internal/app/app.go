// Package app is the shared shell around every agent-* command: it builds the
// urfave/cli/v2 application against injected streams, environment and clock,
// never lets the library call os.Exit, maps errors to the one exit-code table
// of lib/exit, and adds the --version, --man and --generate-completion flags.
//
//	main() ──Main(spec)──▶ Run(ctx, spec, env, args) ──▶ spec(env).RunContext
//	                                   │
//	                      error ──▶ exit.Code ──▶ stderr "agent-x: msg"
//	                                   └─▶ {"type":"error"} on stdout (JSONL stages)
package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/agentutils/agentutils/lib/editdist"
	"github.com/agentutils/agentutils/lib/exit"
)

// Version is stamped by the Makefile with -ldflags "-X ...internal/app.Version=…".
var Version = ""

// Env is everything a command may take from the outside world. Tests build one
// with buffers; Main builds it from the process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Environ is the whole environment ("K=V" strings), for the
	// processes a command starts; nil is an empty one.
	Environ func() []string
	Now     func() time.Time
	Dir     string // working directory

	StdinTTY, StdoutTTY, StderrTTY bool
	// Cols is the width of the terminal on stdout (0: not a terminal).
	Cols int

	// ErrorRecord makes a fatal error also end stdout with a
	// {"type":"error","code":N,"message":…} record, so the next stage of a
	// JSONL pipeline sees it. JSONL-stage actions set it.
	ErrorRecord bool

	// Args are the command line as given (Run sets them), for commands
	// where the order of flags matters (agent-grep: the last of -i/-s/-S
	// wins, as in rg).
	Args []string
}

// Environment is Environ's list (nil when the Env has none), for a
// process's Cmd.Env.
func (e *Env) Environment() []string {
	if e.Environ == nil {
		return nil
	}
	return e.Environ()
}

// Spec builds a command's application for an environment.
type Spec func(env *Env) *cli.App

// OSEnv is the Env of this process.
func OSEnv() *Env {
	dir, _ := os.Getwd()
	cols, _, _ := term.GetSize(int(os.Stdout.Fd()))
	return &Env{Cols: cols,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, Environ: os.Environ, Now: time.Now, Dir: dir,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// signalGrace is how long a command has to wind down after the first
// SIGINT or SIGTERM before the process ends anyway: a command blocked
// where the context does not reach (opening or reading a FIFO) must
// still end on one signal.
const signalGrace = 10 * time.Second

// Main runs spec as this process and returns its exit status. The first
// SIGINT or SIGTERM cancels the context given to the command (which then
// winds down and reports); a second one, or signalGrace later, ends the
// process at once with 130.
func Main(spec Spec) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		<-sigs
		cancel()
		select {
		case <-sigs:
		case <-time.After(signalGrace):
			fmt.Fprintf(os.Stderr, "%s: interrupted; did not wind down in %v\n", filepath.Base(os.Args[0]), signalGrace)
		}
		os.Exit(exit.Interrupted)
	}()
	return Run(ctx, spec, OSEnv(), os.Args)
}

// Run runs the application with args (args[0] is the program name) and
// returns the exit status. Nothing below it calls os.Exit.
func Run(ctx context.Context, spec Spec, env *Env, args []string) int {
	if len(args) == 2 && args[1] == checkCLIFlag {
		return checkCLIMain(spec, env)
	}
	env.Args = args
	a := spec(env)
	ownAction := a.Action != nil
	prepare(a, env)
	if ownAction && dashDashFirst(a, args) {
		// "--" ends the options: what follows is data (a prompt "help"),
		// never the name of a subcommand.
		a.Commands, a.HideHelpCommand = nil, true
	}
	err := a.RunContext(ctx, interspersed(a, args))
	if isUrfaveExit(err) {
		// urfave/cli's own exits (cli.Exit: "No help topic for 'x'", code 3)
		// are usage errors: 3 means context overflow and nothing else.
		err = exit.Wrap(exit.Usage, err)
	}
	if err != nil && ctx.Err() != nil && exit.Code(err) == exit.Failure {
		// Interrupted: the code says so. A silent error stays silent (the
		// command has reported it), rather than printing "exit status 1".
		if exit.IsSilent(err) {
			err = exit.Silent(exit.Interrupted)
		} else {
			err = &exit.Error{Code: exit.Interrupted, Err: err}
		}
	}
	return report(a.Name, env, err)
}

// urfaveExit is the type of urfave/cli's own exits (cli.Exit), compared
// as a type, not by its name.
var urfaveExit = reflect.TypeOf(cli.Exit("", 0))

func isUrfaveExit(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if reflect.TypeOf(err) == urfaveExit {
			return true
		}
	}
	return false
}

func report(name string, env *Env, err error) int {
	code := exit.Code(err)
	if err == nil || code == exit.OK {
		return code
	}
	if !exit.IsSilent(err) {
		fmt.Fprintf(env.Stderr, "%s: %s\n", name, err)
		if env.ErrorRecord {
			rec, _ := json.Marshal(struct {
				Type    string `json:"type"`
				Code    int    `json:"code"`
				Message string `json:"message"`
			}{"error", code, err.Error()})
			fmt.Fprintf(env.Stdout, "%s\n", rec)
		}
	}
	return code
}

func usageError(c *cli.Context, err error, _ bool) error {
	msg := err.Error()
	// Go's flag package names a flag with one dash whatever was typed;
	// say it as it is spelled in --help, with the nearest ones.
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		flags := c.Command.VisibleFlags()
		if len(flags) == 0 {
			flags = c.App.VisibleFlags()
		}
		var known []string
		for _, f := range flags {
			known = append(known, f.Names()...)
		}
		msg = "unknown flag " + dashed(name) + didYouMean(name, known, dashed)
	}
	return exit.Errorf(exit.Usage, "%s (see '%s --help')", msg, c.Command.HelpName)
}

// unknownCommand is the error for a subcommand name that is none of cs.
func unknownCommand(name, help string, cs []*cli.Command) error {
	var known []string
	for _, c := range cs {
		if !c.Hidden {
			known = append(known, c.Names()...)
		}
	}
	return exit.Errorf(exit.Usage, "unknown command %q%s (see '%s --help')", name,
		didYouMean(name, known, func(s string) string { return s }), help)
}

// didYouMean is " (did you mean a, b?)" for the known names close to
// name, each spelled by show, or "".
func didYouMean(name string, known []string, show func(string) string) string {
	s := editdist.Suggest(name, known)
	if len(s) == 0 {
		return ""
	}
	for i := range s {
		s[i] = show(s[i])
	}
	return " (did you mean " + strings.Join(s, ", ") + "?)"
}

// dashed is a flag name as typed: -x or --name.
func dashed(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}

func prepare(a *cli.App, env *Env) {
	a.Writer, a.ErrWriter, a.Reader = env.Stdout, env.Stderr, env.Stdin
	a.ExitErrHandler = func(*cli.Context, error) {} // errors are mapped by Run, not by the library
	a.Version = version()
	// The version flag is ours (extraFlags), not urfave's global
	// cli.VersionFlag, which a package may not change for everyone.
	a.HideVersion = true
	a.OnUsageError = usageError
	if a.Action == nil && len(a.Commands) > 0 {
		a.Action = func(c *cli.Context) error {
			if c.NArg() == 0 {
				_ = cli.ShowAppHelp(c)
				return exit.Errorf(exit.Usage, "a command is required")
			}
			return unknownCommand(c.Args().First(), a.Name, a.Commands)
		}
	} else if a.Action != nil {
		a.Action = checkArgs(a.Name, a.ArgsUsage, a.Action)
	}
	if len(a.Commands) == 0 {
		// no "help" command either: every argument is the command's own
		a.HideHelpCommand = true
	}
	a.Flags = append(a.Flags, extraFlags()...)
	a.Action = extraAction(a, a.Action)
	var walk func(path string, cs []*cli.Command)
	walk = func(path string, cs []*cli.Command) {
		for _, c := range cs {
			if c.OnUsageError == nil {
				c.OnUsageError = usageError
			}
			if c.Action != nil && len(c.Subcommands) == 0 {
				c.Action = checkArgs(path+" "+c.Name, c.ArgsUsage, c.Action)
			}
			cacheNames(c.Flags)
			walk(path+" "+c.Name, c.Subcommands)
		}
	}
	cacheNames(a.Flags)
	walk(a.Name, a.Commands)
}

// version is -X Version, else the module version or VCS revision, else a dev marker.
func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			if dirty {
				rev += "-dirty"
			}
			return rev
		}
	}
	return "(development build)"
}

// Color decides whether to colour output going to a stream: mode is the
// --color value (always, never, auto); auto honours NO_COLOR, TERM=dumb and
// CLICOLOR_FORCE and otherwise colours only a terminal.
func (e *Env) Color(mode string, tty bool) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if e.Getenv("NO_COLOR") != "" || e.Getenv("TERM") == "dumb" {
		return false
	}
	if v := e.Getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
		return true
	}
	return tty
}

// Width is the number of columns to lay text out in: the terminal's, else
// $COLUMNS, else 80.
func (e *Env) Width() int {
	if e.Cols > 0 {
		return e.Cols
	}
	var n int
	if _, err := fmt.Sscan(e.Getenv("COLUMNS"), &n); err == nil && n > 0 {
		return n
	}
	return 80
}

// Warnf prints a diagnostic on stderr, prefixed with the program name.
func Warnf(c *cli.Context, format string, args ...any) {
	fmt.Fprintf(c.App.ErrWriter, "%s: %s\n", c.App.Name, fmt.Sprintf(format, args...))
}

// Abs resolves a path argument against the command's working directory
// ("" and "-", stdin, stay as they are).
func (e *Env) Abs(p string) string {
	if p == "" || p == "-" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.Dir, p)
}

// Sibling finds the program name installed beside this executable, else on
// PATH ("" when neither has it): how a pipeline command hands work to a
// companion it does not link (agent-render).
func Sibling(name string) string {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	p, _ := exec.LookPath(name)
	return p
}

// PathFirst is environ with a PATH added last that puts dir before its
// own (os/exec keeps the last of a name), so that the commands a child
// starts by name are those of dir: the binaries' directory, for
// agent-batch's runners and hosts and for a remote sub-agent's agent-chat.
func PathFirst(environ []string, dir string) []string {
	path := dir
	for _, kv := range environ {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok && p != "" {
			path += string(os.PathListSeparator) + p
		}
	}
	return append(append([]string(nil), environ...), "PATH="+path)
}

// FailText is what a failed child process says: its stderr, trimmed, or
// the error itself when it wrote nothing there.
func FailText(err error, stderr []byte) string {
	if msg := strings.TrimSpace(string(stderr)); msg != "" {
		return msg
	}
	return err.Error()
}
