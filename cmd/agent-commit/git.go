package main

import (
	"bytes"
	"context"
	"os/exec"
	"strings"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/exit"
)

// git runs git in the command's directory and returns its stdout; a failure
// carries git's stderr.
func git(ctx context.Context, env *app.Env, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = env.Dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.String(), exit.Errorf(exit.Usage, "git %s: %s", args[0], msg)
	}
	return out.String(), nil
}
