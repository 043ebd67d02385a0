package main

import (
	"os"
	"testing"

	"github.com/agentutils/agentutils/internal/app/apptest"
	"github.com/agentutils/agentutils/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

func TestScripts(t *testing.T) { testbin.Run(t, "testdata/script") }

func TestCommandLine(t *testing.T) { apptest.Check(t, newApp) }
