// Package interop is what the scripts/interop-* programs share: a run in the
// repository's root with bin/ first on PATH and a scratch directory, named
// checks counted as they pass or fail, a skip with a notice when a peer is
// missing, finding and installing the peers (npm packages at pinned
// versions, Chromium, sshd, GNU parallel), the fake model provider
// in-process (internal/fakellm), headless Chromium, and ports on loopback.
//
//	func main() { os.Exit(interop.Main("interop-x", run)) }
//	func run(t *interop.T) error {
//		chrome, err := interop.Chromium()
//		if err != nil {
//			return err // "interop-x: skipped: chromium not installed (…)"
//		}
//		t.Check("the page loads", ok, detail)
//		return nil
//	}
//
// Main prints "interop-x: P/N checks passed" at the end and returns 1 when
// a check failed or run returned an error other than a skip.
package interop

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

// T is one run of an interop program.
type T struct {
	Name string // the program's name, prefixed to its notices
	Root string // the repository's root (the working directory)
	Dir  string // a scratch directory, removed at the end (kept with KEEP=1)
	out  io.Writer
	// Counts of the verdicts printed so far.
	passed, failed, skipped int
	cleanups                []func()
	delegated               *int // the exit status of the run Delegate made
}

// Skipped is the error of a run that could not be made here: a peer or the
// corpus is missing. Main prints it and exits 0.
type Skipped struct{ Reason string }

func (s *Skipped) Error() string { return "skipped: " + s.Reason }

// Skip returns a Skipped error with the formatted reason.
func Skip(format string, args ...any) error {
	return &Skipped{Reason: fmt.Sprintf(format, args...)}
}

// Main runs run in the repository's root, with root/bin first on PATH and
// a fresh scratch directory, then prints the tally and returns the exit
// status: 0 when every check passed (or the run was skipped), 1 otherwise.
// SIGINT and SIGTERM run the cleanups before exiting.
func Main(name string, run func(*T) error) int {
	t := &T{Name: name, out: os.Stdout}
	root, err := findRoot()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 2
	}
	t.Root = root
	if err := os.Chdir(root); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 2
	}
	os.Setenv("PATH", filepath.Join(root, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	if t.Dir, err = os.MkdirTemp("", name+".*"); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 2
	}
	if os.Getenv("KEEP") == "" {
		t.Cleanup(func() { os.RemoveAll(t.Dir) })
	} else {
		t.Cleanup(func() { fmt.Fprintf(t.out, "%s: kept %s\n", name, t.Dir) })
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		t.cleanup()
		os.Exit(130)
	}()
	err = run(t)
	t.cleanup()
	var skip *Skipped
	switch {
	case errors.As(err, &skip):
		fmt.Fprintf(t.out, "%s: skipped: %s\n", name, skip.Reason)
		return 0
	case err != nil:
		t.Fail(name, err.Error())
	case t.delegated != nil:
		return *t.delegated
	}
	fmt.Fprintln(t.out, t.Summary())
	if t.failed > 0 {
		return 1
	}
	return 0
}

// findRoot is the nearest directory at or above the working directory that
// holds scripts/interop: `go run ./scripts/interop-x` runs from the root,
// a built program from anywhere inside the tree.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "scripts", "interop")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("not inside the agentutils tree (no scripts/interop at or above %s)", dir)
		}
	}
}

// Cleanup registers f to run at the end (last registered, first run).
func (t *T) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }

func (t *T) cleanup() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	t.cleanups = nil
}

// Summary is the closing line: "NAME: P/N checks passed[, S skipped]".
func (t *T) Summary() string {
	s := fmt.Sprintf("%s: %d/%d checks passed", t.Name, t.passed, t.passed+t.failed)
	if t.skipped > 0 {
		s += fmt.Sprintf(", %d skipped", t.skipped)
	}
	return s
}

// Section prints a heading for the checks that follow.
func (t *T) Section(format string, args ...any) {
	fmt.Fprintf(t.out, "-- %s\n", fmt.Sprintf(format, args...))
}

// Note prints an indented line that is no verdict.
func (t *T) Note(format string, args ...any) {
	fmt.Fprintf(t.out, "        %s\n", fmt.Sprintf(format, args...))
}

// OK counts and prints a passed check.
func (t *T) OK(format string, args ...any) {
	t.passed++
	fmt.Fprintf(t.out, "  ok    %s\n", fmt.Sprintf(format, args...))
}

// Fail counts and prints a failed check, with what was seen instead.
func (t *T) Fail(what, detail string) {
	t.failed++
	if detail != "" {
		what += ": " + detail
	}
	fmt.Fprintf(t.out, "  FAIL  %s\n", what)
}

// SkipCheck counts and prints a check (or a group of them) not made here.
func (t *T) SkipCheck(what, why string) {
	t.skipped++
	fmt.Fprintf(t.out, "  skip  %s: %s\n", what, why)
}

// Check is OK(what) when cond holds, else Fail(what, detail); it returns cond.
func (t *T) Check(what string, cond bool, detail string) bool {
	if cond {
		t.OK("%s", what)
	} else {
		t.Fail(what, detail)
	}
	return cond
}

// Verdicts counts and prints lines of the form "ok   NAME" and
// "FAIL NAME: DETAIL" (what a check script running in a browser page
// returns); any other line is a failure. No line at all is a failure too.
func (t *T) Verdicts(what, lines string) {
	n := 0
	for _, l := range strings.Split(strings.TrimRight(lines, "\n"), "\n") {
		if l == "" {
			continue
		}
		n++
		switch {
		case strings.HasPrefix(l, "ok "):
			t.OK("%s", strings.TrimSpace(l[len("ok "):]))
		case strings.HasPrefix(l, "FAIL "):
			t.Fail(strings.TrimSpace(l[len("FAIL "):]), "")
		default:
			t.Fail(what, l)
		}
	}
	if n == 0 {
		t.Fail(what, "no verdicts")
	}
}

// Tail is the last n lines of s, joined by " " (an error's detail on one line).
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " ")
}

// Head is the first n lines of s, joined by " ".
func Head(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " ")
}

// Result is a finished command: its output and exit status (-1 when it
// could not start or was killed).
type Result struct {
	Stdout, Stderr string
	Code           int
	Err            error
}

// OK reports whether the command exited 0.
func (r Result) OK() bool { return r.Err == nil && r.Code == 0 }

// Why is the last line of the command's stderr, or how it failed to run.
func (r Result) Why() string {
	if s := Tail(r.Stderr, 1); s != "" {
		return s
	}
	if r.Err != nil {
		return r.Err.Error()
	}
	return fmt.Sprintf("exit %d", r.Code)
}

// Run runs cmd, collecting its output (cmd.Stdin and cmd.Dir as set).
func Run(cmd *exec.Cmd) Result {
	var out, errb bytes.Buffer
	if cmd.Stdout == nil {
		cmd.Stdout = &out
	}
	if cmd.Stderr == nil {
		cmd.Stderr = &errb
	}
	err := cmd.Run()
	r := Result{Stdout: out.String(), Stderr: errb.String(), Code: 0}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.Code = exit.ExitCode()
	case err != nil:
		r.Code, r.Err = -1, err
	}
	return r
}

// Cmd is exec.Command in dir ("" for the root) with extra environment
// variables ("K=V") over the program's own.
func Cmd(dir string, env []string, name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Dir = dir
	if len(env) > 0 {
		c.Env = append(os.Environ(), env...)
	}
	return c
}

// Sh runs a command line with bash -o pipefail -c (the shell of the
// README's and --help's examples).
func Sh(dir, line string) Result {
	return Run(Cmd(dir, nil, "bash", "-o", "pipefail", "-c", line))
}

// Delegate runs cmd (this program again, say in a namespace of its own)
// with this program's output, and makes its exit status the run's: Main
// prints no tally of its own, the other run prints it.
func (t *T) Delegate(cmd *exec.Cmd) error {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	r := Run(cmd)
	if r.Err != nil {
		return r.Err
	}
	t.delegated = &r.Code
	return nil
}

// Start starts cmd with its output in the file log and registers killing it.
func (t *T) Start(cmd *exec.Cmd, log string) error {
	f, err := os.Create(log)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return err
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		f.Close()
	})
	return nil
}
