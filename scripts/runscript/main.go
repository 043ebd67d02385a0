// Command runscript runs testscript files (txtar: the format of every
// testdata/script suite) outside go test, with the tests' setup
// (internal/testbin): the agent-* binaries built once and on PATH, a private
// HOME and AGENTUTILS_HOME in $WORK, and the fakellm command, the fake model
// provider. For a reproduction kept anywhere (an issue's script), or one
// script while it is written: -v shows every command's output.
//
//	go run ./scripts/runscript -v /tmp/repro.txtar
//	go run ./scripts/runscript cmd/agent-chat/testdata/script
//
// It exits 0 when every script passes, 1 when one fails, 2 on usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentutils/agentutils/internal/testbin"
)

var errFailed, errSkipped = errors.New("failed"), errors.New("skipped")

// runner is a testscript.T that prints its log and stops a script at its
// first failure (by panicking, as testscript's own command does).
type runner struct {
	verbose bool
	failed  bool
	log     strings.Builder // a script's log, printed when it fails (or with -v)
}

func (r *runner) Skip(is ...any)  { r.Log(is...); panic(errSkipped) }
func (r *runner) Fatal(is ...any) { r.Log(is...); r.FailNow() }
func (r *runner) Parallel()       {}
func (r *runner) FailNow()        { panic(errFailed) }
func (r *runner) Verbose() bool   { return r.verbose }
func (r *runner) Log(is ...any) {
	msg := fmt.Sprint(is...)
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	r.log.WriteString(msg)
}

func (r *runner) Run(name string, f func(testscript.T)) {
	if r.try(name, func() { f(r) }) && r.verbose {
		fmt.Fprintf(os.Stderr, "ok   %s\n", name)
	}
}

// try runs f, which may stop by a failure or a skip; ok is false when it failed.
func (r *runner) try(name string, f func()) (ok bool) {
	defer func() {
		e := recover()
		if e != nil && e != errSkipped && e != errFailed {
			panic(e)
		}
		if ok = e != errFailed; !ok || r.verbose {
			fmt.Fprint(os.Stderr, r.log.String())
		}
		r.log.Reset()
		if !ok {
			r.failed = true
			fmt.Fprintf(os.Stderr, "FAIL %s\n", name)
		}
	}()
	f()
	return true
}

// suite is the scripts named on the command line.
type suite struct {
	t     *runner
	paths []string
}

// Run runs every path (a script file, or a directory of them) and is the
// exit code.
func (s suite) Run() int {
	for _, path := range s.paths {
		fi, err := os.Stat(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "runscript:", err)
			return 2
		}
		s.t.try(path, func() {
			p := testbin.Params(s.t, path, nil) // builds the binaries once
			if !fi.IsDir() {
				p.Dir, p.Files = "", []string{path}
			}
			testscript.RunT(s.t, p)
		})
	}
	if s.t.failed {
		return 1
	}
	return 0
}

func main() {
	r := &runner{}
	flag.BoolVar(&r.verbose, "v", false, "show every script's log, not only a failing one's")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: runscript [-v] FILE.txtar|DIR...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	os.Exit(testbin.Main(suite{r, flag.Args()}))
}
