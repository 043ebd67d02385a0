package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

func TestScripts(t *testing.T) {
	testscript.Run(t, testbin.Params(t, "testdata/script", map[string]testbin.Cmd{"fakegithub": fakeGitHubCmd}))
}

func TestCommandLine(t *testing.T) {
	for _, p := range app.CheckCLI(newApp, t.TempDir()) {
		t.Error(p)
	}
}
