// Command agent-chat turns a session stream into model calls and agent
// events: it reads session records on stdin, resolves them into the model's
// context, streams the model's answer as events on stdout, and exits.
package main

import (
	"os"

	"github.com/agentutils/agentutils/internal/app"
)

func main() { os.Exit(app.Main(newApp)) }
