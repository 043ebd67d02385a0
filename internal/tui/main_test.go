package tui

import (
	"os"
	"testing"

	"github.com/agentutils/agentutils/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }
