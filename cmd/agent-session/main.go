// Command agent-session stores, opens and appends pi-compatible session files
// (JSONL v3) and is the only writer of them in a pipeline.
package main

import (
	"os"

	"github.com/agentutils/agentutils/internal/app"
)

func main() { os.Exit(app.Main(newApp)) }
