// Command agent is the interactive front-end: it owns the terminal (editor,
// slash commands, pickers, approvals, footer) and runs the agentutils
// pipeline for each prompt, every stage a process of its own.
package main

import (
	"os"

	"github.com/agentutils/agentutils/internal/app"
)

func main() { os.Exit(app.Main(newApp)) }
