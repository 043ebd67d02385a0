package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentutils/agentutils/internal/app/apptest"
	"github.com/agentutils/agentutils/internal/fakellm"
	"github.com/agentutils/agentutils/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

func TestScripts(t *testing.T) {
	testbin.RunWith(t, "testdata/script", map[string]func(*testscript.TestScript, bool, []string){"fakellm": fakellm.ScriptCmd})
}

func TestCommandLine(t *testing.T) { apptest.Check(t, newApp) }
