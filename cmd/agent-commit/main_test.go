package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentutils/agentutils/internal/fakellm"
	"github.com/agentutils/agentutils/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

func TestScripts(t *testing.T) {
	testbin.RunWith(t, "testdata/script", map[string]func(*testscript.TestScript, bool, []string){"fakellm": fakellm.ScriptCmd})
}
