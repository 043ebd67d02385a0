// Package proctree finds and kills the processes a command started,
// wherever they went: below it in the parent tree, or (once their parent
// has gone) by a marker in their environment; and it holds the kernel
// mechanisms that keep them below it (a child subreaper) and kill them
// with it (the parent-death signal), and the guard that cleans up after a
// runner killed by SIGKILL. agent-tool's bash tool and agent-session
// run-task use it; agent-batch starts run-task.
package proctree
