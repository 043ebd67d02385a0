package agentutils_test

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentutils/agentutils/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

// TestPipelines runs the cross-command scripts in testdata/script against
// every binary built once, with the fake provider as the only fake.
func TestPipelines(t *testing.T) {
	testscript.Run(t, testbin.Params(t, "testdata/script", nil))
}
