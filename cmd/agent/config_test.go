package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfig: config.toml's approvalMode and model are agent's defaults
// (issue #19); a bad file stops it with FILE:LINE and exit 2.
func TestConfig(t *testing.T) {
	f := newFixture(t, toolAnswer("bash", `{"command":"echo configured-run"}`), textAnswer("Ran unasked."))
	cfg := filepath.Join(f.home, "config.toml")
	if err := os.WriteFile(cfg, []byte("approvalMode = \"yes\"\ndefaultThinkingLevel = \"low\"\n[modelRoles]\ndefault = \"fake/test-model\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := f.start("agent") // no --model, no --yes
	s.wait("/help for commands")
	s.wait("thinking low")
	s.send("run it\r")
	s.wait("Ran unasked.")
	if strings.Contains(s.text(), "Allow $") {
		t.Error("asked although config.toml says approvalMode = \"yes\"")
	}
	s.send("/exit\r")
	s.exited()

	if err := os.WriteFile(cfg, []byte("approvalMode = \"maybe\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(f.bin, "agent"), "-p", "hi")
	cmd.Dir, cmd.Env = f.dir, f.env()
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("exit %v, want 2\n%s", err, out)
	}
	if !strings.Contains(string(out), "config.toml:1: approvalMode: must be one of ask, yes, not \"maybe\"") {
		t.Errorf("message: %s", out)
	}
}
