package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/pipeline"
	"github.com/agentutils/agentutils/internal/proctree"
	"github.com/agentutils/agentutils/lib/exit"
)

func runSubagentCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "run-subagent",
		Usage:     "run a sub-agent's agent-chat on this host for a parent on another (the task tool's host, over ssh)",
		ArgsUsage: "-- AGENT-CHAT [FLAGS…]",
		Description: `The remote end of a sub-agent sent to a host: the parent's agent-chat runs
   ssh HOST exec agent-session run-subagent --dir DIR -- agent-chat FLAGS… -- -
and the sub-agent's session stays on the parent's host (agent-session append there persists the
events as they come back over ssh). run-subagent reads one JSON line on stdin:
   {"env":["ANTHROPIC_API_KEY=…"],"args":["--api-key","…"],"input":"SESSION STREAM + PROMPT"}
— the provider keys and flags no command line may show (ps would), and agent-chat's input — then
starts agent-chat in DIR with those variables and flags added, this command's directory first on
PATH, its stdout and stderr this one's. Every further line is a control line: "abort" sends
agent-chat SIGINT (it ends the run, writing what it has). As run-task --die-with-parent, it
takes the reader of its stdout going or its parent dying for the connection's end (sshd closes
the channel, or its session process goes), and then kills agent-chat's whole process tree at
once (its tools, their children: it is their subreaper and marks their environment with
AGENTUTILS_SUBAGENT). It exits with agent-chat's status.

Examples:
   printf '%s\n' '{"env":["GREETING=hi"],"input":"from stdin\n"}' | agent-session run-subagent --dir /tmp -- sh -c 'echo "$GREETING $(cat) in $PWD"'`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Value: ".", Usage: "run agent-chat in `DIR`"},
		},
		Action: func(c *cli.Context) error { return runSubagent(c, env) },
	}
}

// subagentMark is the variable that marks the processes of a remote
// sub-agent for proctree.KillTree (its value: this process's pid).
const subagentMark = "AGENTUTILS_SUBAGENT"

func runSubagent(c *cli.Context, env *app.Env) error {
	argv := c.Args().Slice()
	if len(argv) == 0 {
		return exit.Errorf(exit.Usage, "run-subagent: no command after --")
	}
	dir := c.String("dir")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return exit.Errorf(exit.Usage, "run-subagent: --dir %s: not a directory", dir)
	}
	ctx, stop, err := dieWithParent(c.Context)
	if err != nil {
		return err
	}
	defer stop()
	in := bufio.NewReaderSize(env.Stdin, 64<<10)
	line, err := in.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return exit.Errorf(exit.Usage, "run-subagent: stdin: no first line: %v", err)
	}
	var start pipeline.RemoteStart
	if err := json.Unmarshal(line, &start); err != nil {
		return exit.Errorf(exit.Usage, "run-subagent: stdin: line 1: %v", err)
	}
	for _, kv := range start.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return exit.Errorf(exit.Usage, "run-subagent: stdin: line 1: env %q is not NAME=VALUE", kv)
		}
	}
	if err := proctree.Subreaper(); err != nil {
		return err
	}
	mark := subagentMark + "=" + strconv.Itoa(os.Getpid())
	cmd := exec.Command(argv[0], append(argv[1:], start.Args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(withBinPath(env.Environment()), start.Env...), mark)
	cmd.Stdin = strings.NewReader(start.Input)
	cmd.Stdout, cmd.Stderr = env.Stdout, env.Stderr
	cmd.SysProcAttr = proctree.Attr()
	if err := cmd.Start(); err != nil {
		return exit.Errorf(exit.Failure, "run-subagent: %v", err)
	}
	pid := cmd.Process.Pid
	go func() { // control lines, until stdin ends (the end of the run's, or the connection's)
		for {
			l, err := in.ReadString('\n')
			if strings.TrimSpace(l) == pipeline.RemoteAbort {
				syscall.Kill(pid, syscall.SIGINT)
			}
			if err != nil {
				return
			}
		}
	}()
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			proctree.KillTree(pid, mark, syscall.SIGKILL)
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)
	proctree.KillTree(pid, mark, syscall.SIGKILL) // what it left: a tool's orphans
	proctree.Reap()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return exit.Silent(ee.ExitCode())
	case err != nil:
		return &exit.Error{Code: exit.Interrupted, Err: fmt.Errorf("run-subagent: agent-chat: %v", err)}
	}
	return nil
}

// withBinPath puts this executable's directory first on PATH, as
// agent-batch does for its hosts: the sub-agent's commands are found
// beside run-subagent's.
func withBinPath(environ []string) []string {
	exe, err := os.Executable()
	if err != nil {
		return environ
	}
	return app.PathFirst(environ, filepath.Dir(exe))
}
