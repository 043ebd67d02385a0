package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentutils/agentutils/internal/app/apptest"
	"github.com/agentutils/agentutils/internal/fakellm"
	"github.com/agentutils/agentutils/internal/testbin"
)

func TestMain(m *testing.M) {
	code := testbin.Main(m)
	if srvDir != "" {
		os.RemoveAll(srvDir)
	}
	os.Exit(code)
}

var (
	srvOnce sync.Once
	srvDir  string
	srvErr  error
)

// testServer builds mcptestserver and faketools once and returns their directory.
func testServer(t *testing.T) string {
	srvOnce.Do(func() {
		if srvDir, srvErr = os.MkdirTemp("", "mcptestserver-"); srvErr != nil {
			return
		}
		root, _ := testbin.Root()
		cmd := exec.Command("go", "build", "-o", srvDir+string(os.PathSeparator), "./cmd/agent-mcp/testdata/mcptestserver", "./cmd/agent-mcp/testdata/faketools")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			srvErr = fmt.Errorf("building mcptestserver: %v\n%s", err, out)
		}
	})
	if srvErr != nil {
		t.Fatal(srvErr)
	}
	return srvDir
}

// TestScripts runs the CLI scripts with the agentutils binaries and
// mcptestserver (a small MCP server built with the Go SDK) on PATH.
func TestScripts(t *testing.T) {
	bin, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	srvDir := testServer(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+srvDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("AGENTUTILS_HOME", filepath.Join(env.WorkDir, ".agentutils"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("XDG_CONFIG_HOME", "")
			env.Setenv("NO_COLOR", "1")
			return os.MkdirAll(filepath.Join(env.WorkDir, "home"), 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// waitaddr FILE VAR: wait for a server to write its URL, put it in $VAR.
			"waitaddr": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: waitaddr FILE VAR")
				}
				for i := 0; i < 200; i++ {
					if b, err := os.ReadFile(ts.MkAbs(args[0])); err == nil && len(b) > 0 {
						ts.Setenv(args[1], strings.TrimSpace(string(b)))
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
				ts.Fatalf("%s: no address after 10s", args[0])
			},
			// fakellm API sse:FILE...: the fake model provider for agent-chat
			// (provider "fake", model "test-model"; see cmd/agent-chat's tests).
			"fakellm": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: fakellm API sse:FILE...")
				}
				var steps []fakellm.Step
				for _, a := range args[1:] {
					file, ok := strings.CutPrefix(a, "sse:")
					if !ok {
						ts.Fatalf("fakellm: unknown step %q", a)
					}
					steps = append(steps, fakellm.Step{SSE: ts.MkAbs(file)})
				}
				srv := fakellm.New(steps...)
				home := ts.Getenv("AGENTUTILS_HOME")
				ts.Check(os.MkdirAll(home, 0o755))
				ts.Check(os.WriteFile(filepath.Join(home, "models.toml"), []byte(srv.ModelsTOML("fake", args[0], "test-model")), 0o644))
				ts.Setenv("FAKE_KEY", "sk-fake-secret-123456")
				ts.Defer(srv.Close)
			},
			// waitfile FILE: wait until FILE exists (a server's side effect).
			"waitfile": func(ts *testscript.TestScript, neg bool, args []string) {
				for i := 0; i < 200; i++ {
					if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
				ts.Fatalf("%s: not created after 10s", args[0])
			},
		},
	})
}

func TestCommandLine(t *testing.T) { apptest.Check(t, newApp) }
