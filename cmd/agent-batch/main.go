// Command agent-batch runs every task of a tasks file (formats/task) with
// agent-session run-task, under GNU parallel (on this machine and others
// over ssh) or its own workers, and gathers the results. The engine is
// internal/batchrun; the pure parts are lib/batch.
package main

import (
	"os"

	"github.com/agentutils/agentutils/internal/app"
)

func main() { os.Exit(app.Main(newApp)) }
