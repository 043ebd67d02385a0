// Package approval asks a person before the agent's tools change
// anything. It is an agent-tool PermissionRequest hook: the front-end
// writes a settings file whose hook runs the front-end's binary with
// --approval-hook SOCKET, which agent-tool runs for the tools that change
// things (and the calls a PreToolUse hook wants asked about); the hook hands
// the call to the front-end over the socket (Server) and answers
// agent-tool by its exit code (Hook: 0 allow, 2 deny with the reason on
// stderr, which the model reads).
package approval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/agentutils/agentutils/lib/tooldef"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentutils/agentutils/internal/hooks"
)

// Request is one call, or one tool's question, waiting for the person.
type Request struct {
	In hooks.Input
	// Question, when set, is a tool's question (agent-chat --ask-cmd runs
	// AskHook) rather than a call to approve.
	Question *Question
	Reply    chan Answer // the answer, sent once
}

// Question is a tool's request for a person as agent-chat's --ask-cmd
// hands it on: its kind (ask, exit_plan_mode) and payload (formats/tool-protocol).
type Question struct {
	Kind    string          `json:"kind"`
	Payload json.RawMessage `json:"payload"`
}

// NewRequest is a request for in, waiting for its Answer.
func NewRequest(in hooks.Input) *Request { return &Request{In: in, Reply: make(chan Answer, 1)} }

// Answer is the person's answer.
type Answer struct {
	Allow  bool   `json:"allow"`
	Reason string `json:"reason,omitempty"`
	Abort  bool   `json:"abort,omitempty"` // ^C: the run is aborted
	// Value answers a Question (with Allow); none: not answered.
	Value json.RawMessage `json:"value,omitempty"`
}

// Answer answers the request (once; later answers are dropped).
func (r *Request) Answer(a Answer) {
	select {
	case r.Reply <- a:
	default:
	}
}

// Key is what "always for this command" remembers: a bash command line,
// or the tool for the others.
func (r *Request) Key() string {
	if t, _ := tooldef.Lookup(r.In.ToolName); t.Script != "" {
		var a map[string]any
		json.Unmarshal(r.In.ToolInput, &a)
		script, _ := a[t.Script].(string)
		return t.Name + "\x00" + script
	}
	return r.In.ToolName
}

// Server serves the socket and remembers the "always" answers.
type Server struct {
	dir      string
	ln       net.Listener
	Settings string // the agent-tool settings file naming the hook
	AskCmd   string // agent-chat's --ask-cmd: exe --ask-hook SOCKET
	mu       sync.Mutex
	always   map[string]bool
}

// NewServer listens on a socket in a private directory and writes the
// settings file that names the hook (exe --approval-hook SOCKET); ask is
// called for each request that no "always" covers (from the socket's
// goroutine).
func NewServer(exe string, ask func(*Request)) (*Server, error) {
	dir, err := os.MkdirTemp("", "agent-approve-")
	if err != nil {
		return nil, err
	}
	sock := filepath.Join(dir, "sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	a := &Server{dir: dir, ln: ln, always: map[string]bool{}, Settings: filepath.Join(dir, "settings.json"),
		AskCmd: ShellQuote(exe) + " --ask-hook " + ShellQuote(sock)}
	settings := map[string]any{"hooks": map[string]any{"PermissionRequest": []any{map[string]any{
		"matcher": "",
		"hooks": []any{map[string]any{
			"type": "command", "command": ShellQuote(exe) + " --approval-hook " + ShellQuote(sock),
			"timeout": 7 * 24 * 3600,
		}},
	}}}}
	b, _ := json.Marshal(settings)
	if err := os.WriteFile(a.Settings, b, 0o600); err != nil {
		a.Close()
		return nil, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go a.serve(c, ask)
		}
	}()
	return a, nil
}

func (a *Server) serve(c net.Conn, ask func(*Request)) {
	defer c.Close()
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return
	}
	req := NewRequest(hooks.Input{})
	var q Question
	if err := json.Unmarshal(line, &req.In); err != nil || json.Unmarshal(line, &q) != nil {
		json.NewEncoder(c).Encode(Answer{Reason: "the approval request was not JSON"})
		return
	}
	req.In.ToolName, req.In.AgentToolName = req.In.Tool(), "" // ours, not Claude Code's
	if q.Kind != "" {
		req.Question = &q
		ask(req)
		json.NewEncoder(c).Encode(<-req.Reply)
		return
	}
	a.mu.Lock()
	ok := a.always[req.Key()]
	a.mu.Unlock()
	ans := Answer{Allow: true}
	if !ok {
		ask(req)
		ans = <-req.Reply
	}
	json.NewEncoder(c).Encode(ans)
}

// Always remembers req's key as approved.
func (a *Server) Always(req *Request) {
	a.mu.Lock()
	a.always[req.Key()] = true
	a.mu.Unlock()
}

// Close stops serving and removes the socket and the settings file.
func (a *Server) Close() {
	a.ln.Close()
	os.RemoveAll(a.dir)
}

// roundTrip hands stdin, one line, to the front-end at sock and reads
// its answer; the error says what failed, for stderr.
func roundTrip(sock string, stdin io.Reader) (Answer, error) {
	var ans Answer
	in, err := io.ReadAll(stdin)
	if err != nil {
		return ans, fmt.Errorf("reading the input: %v", err)
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		return ans, fmt.Errorf("the interactive agent is gone")
	}
	defer c.Close()
	c.Write(append([]byte(strings.ReplaceAll(strings.TrimSpace(string(in)), "\n", " ")), '\n'))
	if err := json.NewDecoder(c).Decode(&ans); err != nil {
		return ans, fmt.Errorf("no answer")
	}
	return ans, nil
}

// Hook is the front-end's binary as the hook: the hook input on stdin goes
// to the front-end at sock; its answer is a PermissionRequest verdict on
// stdout (allow) or exit 2 with the reason on stderr (deny).
func Hook(sock string, stdin io.Reader, stdout, stderr io.Writer) int {
	ans, err := roundTrip(sock, stdin)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "approval: %v; not approved\n", err)
		return 2
	case ans.Allow:
		fmt.Fprintln(stdout, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`)
		return 0
	case ans.Abort:
		fmt.Fprintln(stderr, "aborted by the user")
		return 2
	}
	msg := "the user denied this tool call"
	if ans.Reason != "" {
		msg += ": " + ans.Reason
	}
	fmt.Fprintln(stderr, msg)
	return 2
}

// AskHook is the front-end's binary as agent-chat's --ask-cmd: the
// question on stdin ({"kind","payload"}) goes to the front-end at sock;
// the answer's value is printed on stdout (exit 0), or the status is 1
// when the person gave none.
func AskHook(sock string, stdin io.Reader, stdout, stderr io.Writer) int {
	ans, err := roundTrip(sock, stdin)
	if err == nil && (!ans.Allow || len(ans.Value) == 0) {
		err = fmt.Errorf("no answer")
	}
	if err != nil {
		fmt.Fprintf(stderr, "ask: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", ans.Value)
	return 0
}

// ShellQuote quotes s for sh.
func ShellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
