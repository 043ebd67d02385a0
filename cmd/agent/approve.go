package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentutils/agentutils/internal/hooks"
)

// Approvals are an agent-tool PreToolUse hook: the front-end writes a
// settings file whose hook runs this binary with --approval-hook SOCKET for
// the tools that change things; the hook hands the call to the front-end
// over the socket and answers agent-tool by its exit code (0 allow, 2 deny
// with the reason on stderr, which the model reads).

// approvalTools are the tools asked about (a hooks matcher: the whole name).
const approvalTools = "edit|write|bash|apply_patch|undo_edit"

// approvalReq is one call waiting for the person.
type approvalReq struct {
	in    hooks.Input
	reply chan approvalAnswer
}

type approvalAnswer struct {
	Allow  bool   `json:"allow"`
	Reason string `json:"reason,omitempty"`
}

// key is what "always for this command" remembers: a bash command line,
// or the tool for the others.
func (r *approvalReq) key() string {
	if r.in.ToolName == "bash" {
		var a struct{ Command string }
		json.Unmarshal(r.in.ToolInput, &a)
		return "bash\x00" + a.Command
	}
	return r.in.ToolName
}

func (r *approvalReq) summary() string { return toolHeader(r.in.ToolName, r.in.ToolInput) }

// approver serves the socket and remembers the "always" answers.
type approver struct {
	dir      string
	ln       net.Listener
	settings string
	mu       sync.Mutex
	always   map[string]bool
}

// newApprover listens on a socket in a private directory and writes the
// settings file that names the hook; ask is called for each request that
// no "always" covers (from the socket's goroutine).
func newApprover(exe string, ask func(*approvalReq)) (*approver, error) {
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
	a := &approver{dir: dir, ln: ln, always: map[string]bool{}, settings: filepath.Join(dir, "settings.json")}
	settings := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": approvalTools,
		"hooks": []any{map[string]any{
			"type": "command", "command": shellQuote(exe) + " --approval-hook " + shellQuote(sock),
			"timeout": 7 * 24 * 3600,
		}},
	}}}}
	b, _ := json.Marshal(settings)
	if err := os.WriteFile(a.settings, b, 0o600); err != nil {
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

func (a *approver) serve(c net.Conn, ask func(*approvalReq)) {
	defer c.Close()
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return
	}
	req := &approvalReq{reply: make(chan approvalAnswer, 1)}
	if err := json.Unmarshal(line, &req.in); err != nil {
		json.NewEncoder(c).Encode(approvalAnswer{Reason: "the approval request was not JSON"})
		return
	}
	a.mu.Lock()
	ok := a.always[req.key()]
	a.mu.Unlock()
	ans := approvalAnswer{Allow: true}
	if !ok {
		ask(req)
		ans = <-req.reply
	}
	json.NewEncoder(c).Encode(ans)
}

// Always remembers req's key as approved.
func (a *approver) Always(req *approvalReq) {
	a.mu.Lock()
	a.always[req.key()] = true
	a.mu.Unlock()
}

func (a *approver) Close() {
	a.ln.Close()
	os.RemoveAll(a.dir)
}

// approvalHook is this binary as the hook: the hook input on stdin goes to
// the front-end at sock; its answer becomes the exit status.
func approvalHook(sock string, stdin io.Reader, stderr io.Writer) int {
	in, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "approval: reading the hook input:", err)
		return 2
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		fmt.Fprintln(stderr, "approval: the interactive agent is gone; not approved")
		return 2
	}
	defer c.Close()
	c.Write(append(bytesTrimNL(in), '\n'))
	var ans approvalAnswer
	if err := json.NewDecoder(c).Decode(&ans); err != nil {
		fmt.Fprintln(stderr, "approval: no answer; not approved")
		return 2
	}
	if ans.Allow {
		return 0
	}
	msg := "the user denied this tool call"
	if ans.Reason != "" {
		msg += ": " + ans.Reason
	}
	fmt.Fprintln(stderr, msg)
	return 2
}

func bytesTrimNL(b []byte) []byte {
	return []byte(strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", " "))
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
