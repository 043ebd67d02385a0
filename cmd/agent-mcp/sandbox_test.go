package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/agentutils/agentutils/internal/sandbox"
	"github.com/agentutils/agentutils/internal/testbin"
)

// TestServeSandbox runs an MCP client against agent-mcp serve with
// agent-tool behind it, as Claude Code or Codex would: bash runs in the
// sandbox (writes outside --cwd, the key, a loopback listener and the
// tool process itself are out of reach, work in --cwd is kept), and
// --sandbox passes through (read-only: bash and write cannot change files).
func TestServeSandbox(t *testing.T) {
	if err := sandbox.Check(); err != nil {
		t.Skipf("notice: the sandbox cannot run here: %v", err)
	}
	bin, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.MkdirTemp("/var/tmp", "sbx-mcp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	cwd, out, home := filepath.Join(base, "cwd"), filepath.Join(base, "out"), filepath.Join(base, "home")
	for _, d := range []string{cwd, out, filepath.Join(home, ".ssh")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PRIVATE-KEY-SBX\n"), 0o600)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	call := func(mode, name string, args map[string]any) string {
		cmd := exec.Command(filepath.Join(bin, "agent-mcp"), "serve", "--cwd", cwd, "--allow-exec", "--allow-write", "--sandbox", mode,
			"--tools-cmd", filepath.Join(bin, "agent-tool")+" serve --root .")
		cmd.Env = append(os.Environ(), "HOME="+home, "AGENTUTILS_HOME="+filepath.Join(base, "au"))
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				sb.WriteString(tc.Text)
			}
		}
		return sb.String()
	}
	vectors := "echo in > in.txt; echo x > " + out + "/f; ln -s " + out + " sl; echo x > sl/g; cat ~/.ssh/id_rsa; " +
		"echo hi > /dev/tcp/127.0.0.1/" + strconv.Itoa(port) + "; kill -9 $PPID; (sleep 1; echo x > " + out + "/late) & true"
	text := call("workspace-write", "bash", map[string]any{"command": vectors})
	if strings.Contains(text, "PRIVATE-KEY-SBX") {
		t.Errorf("the key reached the client: %s", text)
	}
	if _, err := os.Stat(filepath.Join(cwd, "in.txt")); err != nil {
		t.Errorf("the work in --cwd was not kept: %v (%s)", err, text)
	}
	for _, f := range []string{"f", "g", "late"} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("bash wrote %s outside --cwd", f)
		}
	}
	if text := call("read-only", "bash", map[string]any{"command": "echo x > ro.txt"}); !strings.Contains(text, "Read-only file system") {
		t.Errorf("read-only bash: %s", text)
	}
	if text := call("read-only", "write", map[string]any{"path": "w.txt", "content": "x"}); !strings.Contains(text, "the sandbox is read-only") {
		t.Errorf("read-only write: %s", text)
	}
	for _, f := range []string{"ro.txt", "w.txt"} {
		if _, err := os.Stat(filepath.Join(cwd, f)); err == nil {
			t.Errorf("read-only: %s was written", f)
		}
	}
	// A connection that reached the listener waits in its queue.
	rc, _ := ln.(*net.TCPListener).SyscallConn()
	rc.Read(func(fd uintptr) bool {
		if nfd, _, err := unix.Accept(int(fd)); err == nil {
			unix.Close(nfd)
			t.Error("the loopback listener received a connection")
		}
		return true
	})
}
