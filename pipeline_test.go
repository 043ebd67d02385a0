package agentutils_test

import (
	"os"
	"testing"

	"github.com/agentutils/agentutils/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

// TestPipelines runs the cross-command scripts in testdata/script against
// every binary built once.
func TestPipelines(t *testing.T) { testbin.Run(t, "testdata/script") }
