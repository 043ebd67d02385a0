package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentutils/agentutils/internal/app"
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
// mcptestserver (a small MCP server built with the Go SDK) on PATH; the
// fakellm command is the fake model provider for agent-chat (provider
// "fake", model "test-model"; see cmd/agent-chat's tests).
func TestScripts(t *testing.T) {
	srvDir := testServer(t)
	p := testbin.Params(t, "testdata/script", map[string]testbin.Cmd{
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
	})
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		env.Setenv("PATH", srvDir+string(os.PathListSeparator)+env.Getenv("PATH"))
		env.Setenv("XDG_CONFIG_HOME", "")
		return setup(env)
	}
	testscript.Run(t, p)
}

func TestCommandLine(t *testing.T) {
	for _, p := range app.CheckCLI(newApp, t.TempDir()) {
		t.Error(p)
	}
}
