package hooks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// NewEnvFile makes the empty file a SessionStart hook writes its export
// lines to (CLAUDE_ENV_FILE, Input.EnvFile), and what removes it.
func NewEnvFile() (string, func(), error) {
	f, err := os.CreateTemp("", "agent-env-*.sh")
	if err != nil {
		return "", func() {}, err
	}
	f.Close()
	return f.Name(), func() { os.Remove(f.Name()) }, nil
}

// unset are the variables a shell sets itself: never the file's.
var unset = map[string]bool{"PWD": true, "OLDPWD": true, "SHLVL": true, "_": true}

// ReadEnvFile is what the SessionStart hooks wrote to path ("export
// NAME=VALUE" lines, or any shell): the file is sourced by sh in environ
// and the variables it set or changed are returned as NAME=VALUE, so
// export PATH="$PATH:./bin" works as in Claude Code. An empty file is
// none; a file sh cannot source is an error.
func ReadEnvFile(ctx context.Context, path string, environ []string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", `set -a; . "$1" >/dev/null </dev/null || exit 1; env -0`, "sh", path)
	cmd.Env = environ
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("CLAUDE_ENV_FILE: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	return EnvChanges(environ, strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")), nil
}

// EnvChanges are the entries of after (NAME=VALUE) that before does not
// have with the same value, but for the shell's own (PWD, SHLVL, _).
func EnvChanges(before, after []string) []string {
	was := map[string]string{}
	for _, kv := range before {
		if n, v, ok := strings.Cut(kv, "="); ok {
			was[n] = v
		}
	}
	var out []string
	for _, kv := range after {
		n, v, ok := strings.Cut(kv, "=")
		if !ok || n == "" || unset[n] {
			continue
		}
		if old, had := was[n]; !had || old != v {
			out = append(out, kv)
		}
	}
	return out
}
