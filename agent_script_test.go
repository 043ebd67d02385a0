package agentutils_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentScriptArgs checks scripts/agent's argument handling, which needs
// no binary. Its end-to-end run (a real pipeline against the fake provider)
// belongs to the pipeline suite once agent-chat exists.
func TestAgentScriptArgs(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	if out, err := exec.Command(bash, "-n", "scripts/agent").CombinedOutput(); err != nil {
		t.Fatalf("bash -n scripts/agent: %v\n%s", err, out)
	}
	// A PATH with the few system tools the script uses and no agentutils binaries.
	empty := t.TempDir()
	for _, tool := range []string{"cat", "sed", "grep", "basename", "dirname", "mkdir"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s not installed", tool)
		}
		if err := os.Symlink(p, filepath.Join(empty, tool)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"--help"}, 0, "usage: agent [options] [PROMPT...]"},
		{[]string{"-h"}, 0, "/compact [NOTE]"},
		{[]string{"--bogus"}, 2, "agent: unknown option --bogus (see --help)"},
		{[]string{"-p"}, 2, "agent: --print needs a PROMPT"},
		{[]string{"-m"}, 2, "agent: -m needs a MODEL"},
		{[]string{"--session"}, 2, "agent: --session needs a FILE"},
		{[]string{"-n", "-s", "x.jsonl"}, 2, "agent: --new and --session exclude each other"},
		{[]string{"-s", empty + "/none.jsonl", "hi"}, 2, "none.jsonl: no such session file"},
		{[]string{"-p", "hi", "--", "--thinking", "high"}, 2, "agent: agent-session not found on PATH"},
	}
	for _, tt := range tests {
		cmd := exec.Command(bash, append([]string{"scripts/agent"}, tt.args...)...)
		cmd.Env = []string{"PATH=" + empty, "HOME=" + empty}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.code || !strings.Contains(string(out), tt.contains) {
			t.Errorf("agent %q: exit %d, output:\n%s\nwant exit %d and %q", tt.args, code, out, tt.code, tt.contains)
		}
	}
}
