package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Remote runs a run's agent-chat on another host over ssh (a sub-agent
// sent to a host, README "Remote sub-agents"); the session stages stay on
// this host, so that the one writer persists the events as they come back
// and the session file is where a local run's is. ssh runs
//
//	RUNNER run-subagent --dir DIR -- CHAT ARGS… -- -
//
// there (agent-session's run-subagent: the remote end), which reads one
// JSON line on stdin — the environment and the flags no command line may
// show (provider keys, --api-key), and agent-chat's input: the session
// stream, context_end and the prompt — and then control lines: "abort"
// (SIGINT to agent-chat). The connection's end (its stdout's reader goes,
// or sshd's session process) kills its process tree there.
type Remote struct {
	SSH    []string // the ssh client command (agent-batch's PARALLEL_SSH, else ssh)
	Dest   string   // the ssh destination: user@host, or a Host of ~/.ssh/config
	Dir    string   // the working directory there
	Runner string   // agent-session there
	Env    []string // NAME=VALUE for agent-chat there: on stdin, never on a command line
	Args   []string // more agent-chat flags, on stdin likewise (--api-key)
}

// RemoteStart is the first line run-subagent reads.
type RemoteStart struct {
	Env   []string `json:"env,omitempty"`
	Args  []string `json:"args,omitempty"`
	Input string   `json:"input"`
}

// RemoteAbort is the control line that has run-subagent stop agent-chat
// as ^C would.
const RemoteAbort = "abort"

// argv is ssh's command line: no terminal, never a password prompt (no
// one is at ssh's), the remote command quoted for the remote's shell.
func (m *Remote) argv(chat []string) []string {
	words := append([]string{m.Runner, "run-subagent", "--dir", m.Dir, "--"}, chat...)
	for i, w := range words {
		if q, err := syntax.Quote(w, syntax.LangPOSIX); err == nil {
			words[i] = q
		}
	}
	return append(append([]string(nil), m.SSH...), "-T", "-o", "BatchMode=yes", "--", m.Dest, "exec "+strings.Join(words, " "))
}

// start is the first line for a run: stream is the session stream
// agent-chat reads, then the prompt (agent-chat's "-" argument).
func (m *Remote) start(stream []byte, prompt string) ([]byte, error) {
	var in bytes.Buffer
	if err := passContext(&in, bytes.NewReader(stream)); err != nil {
		return nil, err
	}
	in.WriteString(prompt)
	b, err := json.Marshal(RemoteStart{Env: m.Env, Args: m.Args, Input: in.String()})
	return append(b, '\n'), err
}

// remoteChat is the ssh command that runs agent-chat there; its stdin is
// the run's control pipe: the first line, written once ssh started
// (Run.sendFirst), then the abort.
func (s *Stages) remoteChat(r *Run, o Opts) (*exec.Cmd, error) {
	if o.Stream == nil {
		return nil, fmt.Errorf("a remote run needs its session stream")
	}
	prompt := o.Prompt
	o.Ahead, o.Prompt = true, ""
	first, err := s.Remote.start(o.Stream, prompt)
	if err != nil {
		return nil, err
	}
	argv := s.Remote.argv(append(append([]string(nil), s.Chat...), s.ChatArgv(o)...))
	c := exec.Command(argv[0], argv[1:]...)
	c.Dir, c.Env = s.Dir, s.Env
	if r.control, err = c.StdinPipe(); err != nil {
		return nil, err
	}
	r.first = first
	return c, nil
}

// sendFirst writes the first line to run-subagent (ssh reads it once it
// is connected: not on the caller's goroutine).
func (r *Run) sendFirst() {
	r.control.Write(r.first) // not under mu: an Abort meanwhile closes the pipe
	r.mu.Lock()
	r.sent = true
	r.mu.Unlock()
}
