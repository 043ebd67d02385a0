// Command agent-compact is compaction as a filter: it passes a session
// stream through, pruning old tool output and appending a pending
// compaction record when the context is over the threshold, on overflow,
// or when forced.
package main

import (
	"os"

	"github.com/agentutils/agentutils/internal/app"
)

func main() { os.Exit(app.Main(newApp)) }
