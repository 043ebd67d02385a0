// Command agent-grep is a ripgrep-compatible search: rg's flags, output and
// exit codes, rg's JSON Lines, and budgets for agents.
package main

import (
	"os"

	"github.com/agentutils/agentutils/internal/app"
)

func main() {
	// -n --line-number is one flag twice, as in rg (urfave/cli would
	// refuse two forms of one flag)
	os.Args = canonicalArgs(flags(), os.Args)
	os.Exit(app.Main(newApp))
}
