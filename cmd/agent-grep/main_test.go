package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

func TestScripts(t *testing.T) {
	testscript.Run(t, testbin.Params(t, "testdata/script", map[string]testbin.Cmd{
		// golden N FILE args...: agent-grep args with stdin at /dev/null (as
		// rg ran), exit status N, stdout equal to FILE but for elapsed times.
		"golden": func(ts *testscript.TestScript, neg bool, args []string) {
			if neg {
				ts.Fatalf("golden: no '!' (the status to expect is its first argument)")
			}
			if len(args) < 2 {
				ts.Fatalf("usage: golden N FILE [args...]")
			}
			want, err := strconv.Atoi(args[0])
			if err != nil {
				ts.Fatalf("golden: %v", err)
			}
			bin, err := testbin.Build()
			if err != nil {
				ts.Fatalf("%v", err)
			}
			cmd := exec.Command(filepath.Join(bin, "agent-grep"), args[2:]...)
			cmd.Dir = ts.MkAbs(".")
			cmd.Env = []string{"HOME=" + ts.Getenv("HOME"), "XDG_CONFIG_HOME=" + ts.Getenv("HOME") + "/.config", "NO_COLOR=1", "PATH=" + ts.Getenv("PATH")}
			var out bytes.Buffer
			cmd.Stdout = &out
			code := 0
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					ts.Fatalf("%v", err)
				}
				code = ee.ExitCode()
			}
			// (--json's elapsed records, --stats's "N seconds" lines)
			mask := regexp.MustCompile(`"elapsed(_total)?":\{[^}]*\}|(?m)^[0-9.]+ seconds`)
			got := mask.ReplaceAllString(out.String(), `"elapsed$1":{}`)
			exp := mask.ReplaceAllString(ts.ReadFile(args[1]), `"elapsed$1":{}`)
			if got != exp {
				ts.Fatalf("agent-grep %s: stdout differs from %s:\n--- want\n%s--- got\n%s", strings.Join(args[2:], " "), args[1], exp, got)
			}
			if code != want {
				ts.Fatalf("agent-grep %s: exit status %d, want %d", strings.Join(args[2:], " "), code, want)
			}
		},
	}))
}

func TestCommandLine(t *testing.T) {
	for _, p := range app.CheckCLI(newApp, t.TempDir()) {
		t.Error(p)
	}
}
