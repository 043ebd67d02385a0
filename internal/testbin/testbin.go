// Package testbin builds every agent-* binary once per test process and sets
// up the testscript suites run against them (with the fake model provider as
// the command fakellm), so script tests exercise the real programs connected
// by real files (testscript has no pipes: chain with stdin/cp). The tests
// and scripts/runscript (one script outside go test) share it.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentutils/agentutils/lib/dirs"
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
	root, ok := dirs.Up(dir, func(d string) bool {
		_, err := os.Stat(filepath.Join(d, "go.mod"))
		return err == nil
	})
	if !ok {
		return "", fmt.Errorf("no go.mod above the working directory")
	}
	return root, nil
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

// GoplsDir is the directory `make gopls` installs gopls into
// (.tools/bin of the module), when gopls is there.
func GoplsDir() (string, bool) {
	root, err := Root()
	if err != nil {
		return "", false
	}
	dir := filepath.Join(root, ".tools", "bin")
	_, err = os.Stat(filepath.Join(dir, "gopls"))
	return dir, err == nil
}

// Main runs the tests (a test binary's *testing.M, or scripts/runscript's
// runner) and removes the built binaries.
func Main(m interface{ Run() int }) int {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	return code
}

// Cmd is a testscript command.
type Cmd = func(ts *testscript.TestScript, neg bool, args []string)

// Params are the testscript parameters of a script suite in dir: every
// binary on PATH, a private AGENTUTILS_HOME and HOME inside $WORK, the
// fakellm (fakellm.go), status (status.go) and httpd (httpd.go) commands and the extra cmds;
// the condition [gopls] says whether `make gopls` installed it (then $GOPLS_DIR is its directory). UPDATE_SCRIPTS=1
// rewrites the expected output sections in place. Run them with
// testscript.Run (tests) or testscript.RunT (scripts/runscript).
func Params(t interface{ Fatal(...any) }, dir string, cmds map[string]Cmd) testscript.Params {
	bin, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]Cmd{"fakellm": fakellmCmd, "status": statusCmd, "httpd": httpdCmd}
	for k, v := range cmds {
		all[k] = v
	}
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds:                all,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("AGENTUTILS_HOME", filepath.Join(env.WorkDir, ".agentutils"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("NO_COLOR", "1")
			if root, err := Root(); err == nil {
				env.Setenv("REPO", root) // shared fixtures: $REPO/testdata/…
			}
			// The language servers are off unless a script turns them on
			// (env AGENT_NO_LSP=), so that a server on the developer's
			// PATH does not change what the tools answer.
			env.Setenv("AGENT_NO_LSP", "1")
			if dir, ok := GoplsDir(); ok {
				env.Setenv("GOPLS_DIR", dir) // [gopls] scripts: env PATH=$GOPLS_DIR${:}$PATH
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
			if cond == "gopls" {
				_, ok := GoplsDir()
				return ok, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	}
}
