package testbin

import (
	"errors"
	"os/exec"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// statusCmd is the testscript command "status" of every suite:
//
//	status N command [args...]
//
// runs the command, keeps its output for stdout/stderr checks, and requires
// exit status N (where `! exec` accepts any failure: a usage error's 2 is
// not a failure's 1).
func statusCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("status: no '!' (the status to expect is its first argument)")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: status N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: %v", err)
	}
	code := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%v", err)
		}
		code = ee.ExitCode()
	}
	if code != want {
		ts.Fatalf("exit status %d, want %d", code, want)
	}
}
