package batchrun

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// ContainerEngine finds a container engine that answers (podman, else
// docker: `ENGINE info` exits 0 within 20 s) for --image, or says why there
// is none: a docker client whose daemon does not answer is not an engine.
func ContainerEngine(ctx context.Context, environ []string) (string, error) {
	var why []string
	for _, name := range []string{"podman", "docker"} {
		path, err := exec.LookPath(name)
		if err != nil {
			why = append(why, name+": not installed")
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		cmd := exec.CommandContext(cctx, path, "info")
		cmd.Env = environ
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err = cmd.Run()
		cancel()
		if err == nil {
			return path, nil
		}
		why = append(why, fmt.Sprintf("%s: %s", name, lastLine(out.String(), err)))
	}
	return "", fmt.Errorf("no container engine answers (%s)", strings.Join(why, "; "))
}

func lastLine(out string, err error) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return err.Error()
}

// containerArgs run run-task in a container of image, one per task, that
// sees OUT and this directory at their own paths (a task's local repo
// inside this directory, the results on OUT) and runs with the host's
// network (the provider). The image holds agent-session and its peers
// (deploy/Dockerfile's does).
func (b *run) containerArgs() []string {
	return []string{"run", "--rm", "-i", "--init", "--network", "host",
		"-v", b.o.Out + ":" + b.o.Out, "-v", b.o.Dir + ":" + b.o.Dir, "-w", b.o.Dir,
		"--entrypoint", "agent-session", b.o.Image}
}
