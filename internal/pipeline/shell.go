package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Shell is a command the person ran (agent's !CMD): what it printed and
// its exit code.
type Shell struct {
	Command  string
	Output   string
	ExitCode int
}

// RunShell runs command through agent-tool's bash tool (confined to the
// working directory, in the sandbox mode given: "" is agent-tool's
// default), as the model's commands run.
func (s *Stages) RunShell(ctx context.Context, command, sandbox string) (Shell, error) {
	args := []string{"call", "--root", s.Dir}
	if sandbox != "" {
		args = append(args, "--sandbox", sandbox)
	}
	in, _ := json.Marshal(map[string]string{"command": command})
	c := s.cmd(ctx, []string{"agent-tool"}, append(args, "bash", string(in))...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	var res struct {
		Content []struct{ Type, Text string }
		Details struct {
			ExitCode *int `json:"exitCode"`
		}
		IsError bool
	}
	if json.Unmarshal(out.Bytes(), &res) != nil {
		var ee *exec.ExitError
		if err == nil || errors.As(err, &ee) {
			err = errors.New(strings.TrimSpace(errb.String()))
		}
		return Shell{}, err
	}
	sh := Shell{Command: command}
	for _, b := range res.Content {
		sh.Output += b.Text
	}
	switch {
	case res.Details.ExitCode != nil:
		sh.ExitCode = *res.Details.ExitCode
		// the tool's note; the session's reader writes its own
		sh.Output = strings.TrimSuffix(sh.Output, fmt.Sprintf("Command exited with code %d", sh.ExitCode))
	case res.IsError:
		sh.ExitCode = 1
	}
	sh.Output = strings.TrimRight(sh.Output, "\n")
	return sh, nil
}

// AppendShell records a command the person ran in the session, as pi
// records its !CMD (a bashExecution message); with exclude the model
// does not see it (!!CMD).
func (s *Stages) AppendShell(ctx context.Context, file string, sh Shell, exclude bool, now time.Time) error {
	msg := map[string]any{"role": "bashExecution", "command": sh.Command, "output": sh.Output,
		"exitCode": sh.ExitCode, "cancelled": false, "truncated": false, "timestamp": now.UnixMilli()}
	if exclude {
		msg["excludeFromContext"] = true
	}
	line, _ := json.Marshal(map[string]any{"type": "message_end", "message": msg})
	c := s.cmd(ctx, s.Session, "append", file)
	var errb bytes.Buffer
	c.Stdin, c.Stderr = bytes.NewReader(append(line, '\n')), &errb
	if err := c.Run(); err != nil {
		return errors.New(strings.TrimSpace(errb.String()))
	}
	return nil
}
