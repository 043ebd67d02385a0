package main

import (
	"testing"

	"github.com/agentutils/agentutils/internal/app/apptest"
)

func TestCommandLine(t *testing.T) { apptest.Check(t, newApp) }
