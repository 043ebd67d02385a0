// Package sandbox confines the processes the bash tool starts, with the
// kernel's mechanisms: user, mount, PID and network namespaces, Landlock
// and seccomp (Linux only). The bash tool starts its own binary under a
// hidden name (Command); this package's init sees that name, sets the
// sandbox up in the new namespaces and execs bash (helper_linux.go).
// The modes, hidden paths and caches are lib/sandbox's.
package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentutils/agentutils/internal/proctree"
	"github.com/agentutils/agentutils/lib/sandbox"
)

// helperName is argv[0] of the re-executed binary that sets a sandbox up.
const helperName = "agentutils-sandbox"

// Spec is one sandboxed command's boundary, passed to the helper.
type Spec struct {
	Mode     string   `json:"mode"`     // lib/sandbox's WorkspaceWrite or ReadOnly
	Root     string   `json:"root"`     // writable in WorkspaceWrite
	Tmp      string   `json:"tmp"`      // the private temp dir, seen at /tmp
	Writable []string `json:"writable"` // more writable dirs (caches, --sandbox-writable), when they exist
	Net      bool     `json:"net"`      // keep the network (no network namespace)
	Hide     []string `json:"hide"`     // credential stores: hidden when they exist
	Bash     string   `json:"bash"`     // the shell to exec
	// Restore are the environment entries of helperEnv's names that bash
	// gets back (the helper itself runs with helperEnv's).
	Restore []string `json:"restore,omitempty"`
}

// helperEnv makes the helper's Go runtime cheap to start: one P, no GC,
// no cgroup scan for GOMAXPROCS (it lives a millisecond, then execs).
var helperEnv = []string{"GOMAXPROCS=1", "GOGC=off", "GODEBUG=containermaxprocs=0,updatemaxprocs=0"}

// splitEnv takes helperEnv's names out of env: the rest, and what was taken.
func splitEnv(env []string) (rest, taken []string) {
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if slices.ContainsFunc(helperEnv, func(h string) bool { return strings.HasPrefix(h, name+"=") }) {
			taken = append(taken, kv)
		} else {
			rest = append(rest, kv)
		}
	}
	return rest, taken
}

// Command is the command that runs bash -c script inside s: the caller
// sets its Dir, Env (TMPDIR is set to /tmp here), Stdout and Stderr.
// Bash becomes PID 1 of a new PID namespace, so that when it exits the
// kernel kills everything it left behind.
func Command(s Spec, script string, env []string) (*exec.Cmd, error) {
	if err := checkSpec(s); err != nil {
		return nil, err
	}
	env, s.Restore = splitEnv(append(env, "TMPDIR=/tmp"))
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{helperName, string(b), "-c", script}}
	cmd.Env = append(env, helperEnv...)
	cmd.SysProcAttr = procAttr(s)
	return cmd, nil
}

// checkSpec says why s is no sandbox, or nil.
func checkSpec(s Spec) error {
	if s.Mode != sandbox.WorkspaceWrite && s.Mode != sandbox.ReadOnly {
		return fmt.Errorf("sandbox: mode %q does not confine", s.Mode)
	}
	if !filepath.IsAbs(s.Root) || !filepath.IsAbs(s.Tmp) {
		return fmt.Errorf("sandbox: root and tmp must be absolute (%q, %q)", s.Root, s.Tmp)
	}
	return nil
}

// Shell is the command that runs bash -c script: inside s (Command), or,
// s nil, unconfined in a process group of its own that gets SIGKILL when
// its parent dies (the caller kills the descendants that leave it:
// proctree.Killer).
func Shell(s *Spec, script string, env []string) (*exec.Cmd, error) {
	if s != nil {
		return Command(*s, script, env)
	}
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = env
	cmd.SysProcAttr = proctree.Attr()
	return cmd, nil
}

// PrivateTmp makes (once) the private temp dir of a session kept in
// state: the bash tool's /tmp inside the sandbox ("" session: the calls
// made without one, from the shell).
func PrivateTmp(state, session string) (string, error) {
	if session == "" || strings.ContainsAny(session, "/\x00") || session == "." || session == ".." {
		session = "default"
	}
	d := filepath.Join(state, "sandbox-tmp", session)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", err
	}
	return d, nil
}
