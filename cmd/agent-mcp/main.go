// Command agent-mcp is an MCP client for the shell: it finds the MCP servers
// configured for every common client, lists and calls their tools, reads
// resources and prompts, bridges MCP tools into agent-chat's tool
// co-process protocol, and serves agent-tool's tools over MCP.
package main

import (
	"os"

	"github.com/agentutils/agentutils/internal/app"
)

func main() { os.Exit(app.Main(newApp)) }
