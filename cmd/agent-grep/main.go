// Command agent-grep is a ripgrep-compatible search: rg's flags, output and
// exit codes, rg's JSON Lines, and budgets for agents.
package main

import (
	"os"

	"github.com/agentutils/agentutils/internal/app"
)

func main() { os.Exit(app.Main(newApp)) }
