package agentutils_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/agentutils/agentutils/internal/fakellm"
	"github.com/agentutils/agentutils/internal/testbin"
)

// naming lists the live processes whose command line holds s
// (agent-chat hides its environment, not its command line).
func naming(s string) []string {
	return processes(func(_, cmdline []byte) bool { return strings.Contains(string(cmdline), s) })
}

// TestTaskInterrupted: ^C (SIGINT) to agent-chat while a sub-agent's model
// call hangs ends the sub-agent's whole pipeline, agent-tool included; the
// parent records the task call as aborted and exits 130, and no process
// of either pipeline is left (the process table, by the fixture's HOME in
// the environment and its directory on the command line).
func TestTaskInterrupted(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("runs agent pipelines; Linux's /proc")
	}
	bin, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	bin, _ = filepath.Abs(bin)
	dir := t.TempDir()
	srv := fakellm.New()
	srv.Agent = dir
	defer srv.Close()
	models := filepath.Join(dir, "models.toml")
	if err := os.WriteFile(models, []byte(srv.ModelsTOML("fake", "anthropic-messages", "test-model")), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+dir,
		"AGENTUTILS_HOME="+filepath.Join(dir, "home"), "FAKE_KEY=sk-fake-secret-123456", "NO_COLOR=1")
	cmd := exec.Command(filepath.Join(bin, "agent-chat"), "--model", "fake/test-model", "--models-file", models, "--no-context-files", "TASKHANG")
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n")
	out := &strings.Builder{}
	cmd.Stdout = out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	// Wait for the sub-agent's request: the second one, hanging.
	for len(srv.Requests()) < 2 {
		if syscall.Kill(cmd.Process.Pid, 0) != nil {
			t.Fatal("agent-chat ended early")
		}
		sleepABit()
	}
	if n := len(naming(dir)); n < 3 { // two agent-chats and the child's append (its open has ended)
		t.Fatalf("only %d processes name %s: %q", n, dir, naming(dir))
	}
	cmd.Process.Signal(os.Interrupt)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit: %v, want 130", err)
	}
	if !strings.Contains(out.String(), `"toolName":"task","result":{"content":[{"type":"text","text":"Sub-agent aborted.`) {
		t.Errorf("no aborted task result in:\n%s", out)
	}
	gone(t, "HOME="+dir, filepath.Join(dir, "none"))
	if left := naming(dir); len(left) > 0 {
		t.Errorf("left: %q", left)
	}
}
