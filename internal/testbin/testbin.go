// Package testbin builds every agent-* binary once per test process and runs
// testscript suites against them, so script tests exercise the real programs
// connected by real files (testscript has no pipes: chain with stdin/cp).
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var (
	once     sync.Once
	binDir   string
	buildErr error
)

// Root is the module root (the directory holding go.mod) above the working directory.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = up
	}
}

// Build compiles ./cmd/... into a temporary directory, once per process.
func Build() (string, error) {
	once.Do(func() {
		root, err := Root()
		if err != nil {
			buildErr = err
			return
		}
		binDir, buildErr = os.MkdirTemp("", "agentutils-bin-")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", binDir+string(os.PathSeparator), "./cmd/...") // as make build
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/...: %v\n%s", err, out)
		}
	})
	return binDir, buildErr
}

var cacheOnce sync.Once
var cacheDir string

// goCache is the build cache of the go command running the tests.
func goCache() string {
	cacheOnce.Do(func() {
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
			cacheDir = strings.TrimSpace(string(out))
		}
	})
	return cacheDir
}

// Main wraps a test binary's TestMain: it runs the tests and removes the built binaries.
func Main(m *testing.M) int {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	return code
}

// Run runs the scripts in dir with every binary on PATH and a private
// AGENTUTILS_HOME and HOME inside $WORK. Set UPDATE_SCRIPTS=1 to rewrite
// the expected output sections in place.
func Run(t *testing.T, dir string) { RunWith(t, dir, nil) }

// RunWith is Run with extra script commands (such as a fake provider).
func RunWith(t *testing.T, dir string, cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)) {
	t.Helper()
	bin, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds:                cmds,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("AGENTUTILS_HOME", filepath.Join(env.WorkDir, ".agentutils"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("NO_COLOR", "1")
			if root, err := Root(); err == nil {
				env.Setenv("REPO", root) // shared fixtures: $REPO/testdata/…
			}
			if c := goCache(); c != "" {
				env.Setenv("GOCACHE", c) // scripts that run go share the warm build cache
			}
			for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"} {
				env.Setenv(k, "")
			}
			return os.MkdirAll(filepath.Join(env.WorkDir, "home"), 0o755)
		},
		Condition: func(cond string) (bool, error) {
			if name, ok := strings.CutPrefix(cond, "bin:"); ok {
				_, err := os.Stat(filepath.Join(bin, name))
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}
