// Command agent-commit lints commit messages offline with commitlint's
// conventional rules, edits Keep a Changelog files and manages git hooks.
package main

import (
	"os"

	"github.com/agentutils/agentutils/internal/app"
)

func main() { os.Exit(app.Main(newApp)) }
