// Command interop-claude-mcp runs the README's Claude Code example: the
// real Claude Code (npm @anthropic-ai/claude-code, the pinned version
// below) runs offline against the fake provider (internal/fakellm in agent
// mode) on 127.0.0.1 (ANTHROPIC_BASE_URL, a dummy key, telemetry off), in
// a network namespace with only loopback when run as root, with agent-mcp
// serve as its MCP server, added once by the README's `claude mcp add` line
// and once by its .mcp.json (--mcp-config), both taken from README.md as
// written. The fake model calls mcp__agentutils__bash (prompt MCPBASH
// `CMD`, internal/fakellm/agent.go) with (a) a write inside the project,
// (b) writes outside it (/tmp and /var/tmp), (c) a read of ~/.ssh/id_rsa
// under a HOME made here; judged by effects: (a) the file exists, (b)
// neither file does, (c) the key's text is in neither Claude's stream nor
// any request the fake provider received; and, the control, with --sandbox
// off the same calls do escape. Skips with a message when npm, the package
// or the kernel's sandbox is missing. Set AGENT_INTEROP_NPM_PREFIX to reuse
// an install.
//
//	go run ./scripts/interop-claude-mcp
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentutils/agentutils/internal/fakellm"
	"github.com/agentutils/agentutils/internal/proctree"
	"github.com/agentutils/agentutils/lib/render/show"
	"github.com/agentutils/agentutils/scripts/internal/interop"
)

const version = interop.ClaudeCode

func main() { os.Exit(interop.Main("interop-claude-mcp", run)) }

func run(t *interop.T) error {
	if dir := os.Getenv("INTEROP_CLAUDE_DIR"); dir != "" {
		return inside(t, dir, interop.NPM(os.Getenv("AGENT_INTEROP_NPM_PREFIX")).Bin("claude"))
	}
	dir, err := os.MkdirTemp("/var/tmp", "interop-claude-mcp.")
	if err != nil {
		return err
	}
	if os.Getenv("KEEP") == "" {
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	npm := interop.NPM(os.Getenv("AGENT_INTEROP_NPM_PREFIX"))
	if npm == "" {
		npm = interop.NPM(filepath.Join(dir, "npm"))
	}
	if !strings.HasPrefix(interop.Run(exec.Command(npm.Bin("claude"), "--version")).Stdout, version+" ") {
		fmt.Printf("interop-claude-mcp: installing @anthropic-ai/claude-code@%s into %s\n", version, npm)
		if err := npm.Install("@anthropic-ai/claude-code@" + version); err != nil {
			return interop.Skip("%v", err)
		}
	}
	if !interop.Run(exec.Command(npm.Bin("claude"), "--version")).OK() {
		return interop.Skip("claude %s does not run here", version)
	}
	if r := interop.Run(interop.Cmd(dir, nil, "agent-tool", "call", "--sandbox", "workspace-write", "bash", `{"command":"true"}`)); !r.OK() {
		return interop.Skip("the sandbox cannot run here: %s", strings.TrimSpace(r.Stdout+r.Stderr))
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	os.Setenv("INTEROP_CLAUDE_DIR", dir)
	os.Setenv("AGENT_INTEROP_NPM_PREFIX", string(npm))
	// The rest in a network namespace of its own where only loopback is up,
	// so nothing can leave the machine. Needs root: under `unshare -rn` (a
	// user namespace) the sandbox's helper cannot start (fork/exec: EPERM).
	if interop.Run(exec.Command("unshare", "-n", "true")).OK() {
		if _, err := exec.LookPath("ip"); err == nil {
			return t.Delegate(exec.Command("unshare", "-n", self))
		}
	}
	t.Note("no network namespace here (unshare -n needs root): Claude Code runs with the host's network")
	return t.Delegate(exec.Command(self))
}

// claudeRun is the inner run: Claude Code in the project dir/root.
type claudeRun struct {
	*interop.T
	dir, claude, root, outside, secret string
	srv                                *fakellm.Server
}

// inside is the run proper, in the network namespace when there is one.
func inside(t *interop.T, dir, claude string) error {
	c := &claudeRun{T: t, dir: dir, claude: claude, root: filepath.Join(dir, "root"),
		outside: fmt.Sprintf("/tmp/interop-claude-mcp-%d-outside", os.Getpid()),
		secret:  fmt.Sprintf("PRIVATE-KEY-CLAUDE-MCP-%d", os.Getpid())}
	t.Cleanup(func() { os.RemoveAll(c.outside) })
	netns := false
	if up := interop.Run(exec.Command("ip", "-o", "link", "show", "up")); up.OK() && onlyLoopback(up.Stdout) {
		netns = interop.Run(exec.Command("ip", "link", "set", "lo", "up")).OK()
		if netns {
			t.Note("in a network namespace with only loopback")
		}
	}
	t.Note("claude %s", strings.TrimSpace(interop.Run(exec.Command(claude, "--version")).Stdout))
	home := filepath.Join(dir, "home")
	for _, d := range []string{c.root, filepath.Join(home, ".ssh"), filepath.Join(dir, "out")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte(c.secret+"\n"), 0o600); err != nil {
		return err
	}
	c.srv = t.FakeProvider(c.root)
	if !strings.HasPrefix(c.srv.URL, "http://127.0.0.1:") {
		return fmt.Errorf("the fake provider is not on loopback: %s", c.srv.URL)
	}
	// Offline: the fake provider for the model; no telemetry, error reports
	// or update checks; MCP tools sent with the request rather than deferred
	// behind ToolSearch. Claude Code's other requests to the base URL (HEAD
	// /api/hello, its connectivity check) get 200 from the fake provider;
	// without a network namespace they are turned off too, with everything
	// non-essential.
	env := map[string]string{"HOME": home, "ANTHROPIC_BASE_URL": c.srv.URL, "ANTHROPIC_API_KEY": "fake-key",
		"DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_BUG_COMMAND": "1",
		"ENABLE_TOOL_SEARCH": "false", "AGENTUTILS_HOME": filepath.Join(dir, "au")}
	if !netns {
		env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
	}
	for k, v := range env {
		os.Setenv(k, v)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		return err
	}
	add, mcpJSON := readmeExamples(string(readme))
	var cfg struct {
		Servers map[string]map[string]any `json:"mcpServers"`
	}
	if add == "" || mcpJSON == "" {
		return fmt.Errorf("README.md has no claude mcp add / .mcp.json example")
	}
	if err := json.Unmarshal([]byte(mcpJSON), &cfg); err != nil || cfg.Servers["agentutils"] == nil {
		return fmt.Errorf("README's .mcp.json is not JSON with mcpServers.agentutils: %s", mcpJSON)
	}
	mcpFile := filepath.Join(dir, "mcp.json")
	os.WriteFile(mcpFile, []byte(mcpJSON+"\n"), 0o644)
	// claude mcp add, as the README says (it writes the server into
	// $HOME/.claude.json for this project)
	if r := interop.Sh(c.root, strconv.Quote(claude)+strings.TrimPrefix(add, "claude")); r.OK() {
		t.Note("%s", add)
		c.vectors("mcp-add")
		interop.Run(interop.Cmd(c.root, nil, claude, "mcp", "remove", "agentutils"))
	} else {
		t.Fail(add, interop.Head(r.Stdout+r.Stderr, 3))
	}
	t.Note("--mcp-config %s", mcpJSON)
	c.vectors("mcp-json", "--strict-mcp-config", "--mcp-config", mcpFile)
	c.control(cfg.Servers)
	t.Note("claude %s sent %s", version, requestSummary(c.srv.Requests()))
	return nil
}

// onlyLoopback reports whether `ip -o link show up` lists no link but lo.
func onlyLoopback(links string) bool {
	for _, l := range strings.Split(links, "\n") {
		if l != "" && !strings.Contains(l, ": lo:") {
			return false
		}
	}
	return true
}

// claudeCode has Claude Code answer a prompt in the project, its stream
// kept as dir/NAME.jsonl; false after a failed check when the model made
// no mcp__agentutils__bash call with a result.
func (c *claudeRun) claudeCode(name, prompt string, args ...string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.claude, append([]string{"-p", prompt, "--output-format", "stream-json", "--verbose",
		"--model", "claude-sonnet-4-5", "--allowedTools", "mcp__agentutils__bash"}, args...)...)
	cmd.Dir = c.root
	// On its time limit the whole group goes: Claude Code, the agent-mcp
	// serve it started and that one's tool process (a pipe they hold would
	// keep the run waiting).
	cmd.SysProcAttr = proctree.Attr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	r := interop.Run(cmd)
	os.WriteFile(filepath.Join(c.dir, name+".jsonl"), []byte(r.Stdout), 0o644)
	called, results := bashCalls(r.Stdout)
	result := strings.Join(results, "\n")
	if !called || result == "" {
		c.Fail(name, fmt.Sprintf("Claude Code made no mcp__agentutils__bash call with a result (exit %d): %s", r.Code, show.Clip(r.Stderr, 300)))
		return false
	}
	c.Note("%s: mcp__agentutils__bash returned: %s", name, show.OneLine(result, 160))
	return true
}

// leaked reports whether the key's text reached Claude Code's stream of a
// run or (with requests) any request the fake provider received.
func (c *claudeRun) leaked(name string, requests bool) bool {
	if b, _ := os.ReadFile(filepath.Join(c.dir, name+".jsonl")); strings.Contains(string(b), c.secret) {
		return true
	}
	if !requests {
		return false
	}
	for _, r := range c.srv.Requests() {
		if strings.Contains(string(r.Body), c.secret) {
			return true
		}
	}
	return false
}

// vectors are the three calls of a configuration, judged by their effects.
func (c *claudeRun) vectors(config string, args ...string) {
	in, out := filepath.Join(c.root, "in.txt"), filepath.Join(c.dir, "out", "f")
	for _, f := range []string{in, c.outside, out} {
		os.Remove(f)
	}
	if c.claudeCode(config+"-a", "MCPBASH `echo in > in.txt`", args...) {
		b, _ := os.ReadFile(in)
		c.Check(config+" (a) a write inside the project is kept", strings.TrimSpace(string(b)) == "in", "in.txt was not written")
	}
	if c.claudeCode(config+"-b", fmt.Sprintf("MCPBASH `echo x > %s; echo x > %s`", c.outside, out), args...) {
		var wrote []string
		for _, f := range []string{c.outside, out} {
			if _, err := os.Stat(f); err == nil {
				wrote = append(wrote, f)
			}
		}
		c.Check(fmt.Sprintf("%s (b) writes to %s and %s are refused", config, c.outside, out), len(wrote) == 0, "bash wrote outside the project: "+strings.Join(wrote, " "))
	}
	if c.claudeCode(config+"-c", "MCPBASH `cat ~/.ssh/id_rsa`", args...) {
		c.Check(config+" (c) ~/.ssh/id_rsa reached neither Claude Code's stream nor the model", !c.leaked(config+"-c", true), "it reached Claude Code or the model")
	}
}

// control: with --sandbox off the same calls escape, so the checks above
// would see an escape.
func (c *claudeRun) control(servers map[string]map[string]any) {
	args, _ := servers["agentutils"]["args"].([]any)
	servers["agentutils"]["args"] = append(args, "--sandbox", "off")
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	off := filepath.Join(c.dir, "off.json")
	os.WriteFile(off, b, 0o644)
	os.Remove(c.outside)
	if c.claudeCode("off-b", fmt.Sprintf("MCPBASH `echo x > %s`", c.outside), "--strict-mcp-config", "--mcp-config", off) &&
		c.claudeCode("off-c", "MCPBASH `cat ~/.ssh/id_rsa`", "--strict-mcp-config", "--mcp-config", off) {
		_, err := os.Stat(c.outside)
		c.Check("control: with --sandbox off the write lands and the key reaches Claude Code", err == nil && c.leaked("off-c", false),
			"the vectors did not escape; the checks above prove nothing")
	}
}
