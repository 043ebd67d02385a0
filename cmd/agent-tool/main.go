// Command agent-tool runs the agent's built-in tools: as a co-process that
// speaks the tool protocol (serve), over the tool calls of assistant
// messages (run), one call from the shell (call), or their schemas (schema).
package main

import (
	"os"

	"github.com/agentutils/agentutils/internal/app"
)

func main() { os.Exit(app.Main(newApp)) }
