// An empty assembly file lets fork_linux.go declare the runtime's fork
// hooks without bodies (go:linkname).
