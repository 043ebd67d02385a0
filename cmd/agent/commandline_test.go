package main

import (
	"testing"

	"github.com/agentutils/agentutils/internal/app"
)

func TestCommandLine(t *testing.T) {
	for _, p := range app.CheckCLI(newApp, t.TempDir()) {
		t.Error(p)
	}
}
