package agentutils_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentutils/agentutils/internal/fakellm"
	"github.com/agentutils/agentutils/internal/testbin"
)

// loopSSH is sshd started by a test: 127.0.0.1 on a free port, a host key
// and an authorized key of its own in a temporary directory, reached as
// Host box through the ssh_config in SSH ("ssh -F FILE", for
// PARALLEL_SSH).
type loopSSH struct {
	SSH string
}

// startSSHD starts it, or skips the test with a notice when sshd, ssh or
// ssh-keygen is missing or sshd will not take the key here.
func startSSHD(t *testing.T) loopSSH {
	t.Helper()
	sshd := "/usr/sbin/sshd"
	if p, err := exec.LookPath("sshd"); err == nil {
		sshd = p
	}
	for _, p := range []string{sshd, "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed (apt-get install openssh-server openssh-client): no remote sub-agent tested", p)
		}
	}
	dir := t.TempDir()
	path := func(n string) string { return filepath.Join(dir, n) }
	write := func(n string, lines ...string) {
		if err := os.WriteFile(path(n), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"hostkey", "userkey"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path(k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	pub, err := os.ReadFile(path("userkey.pub"))
	if err != nil {
		t.Fatal(err)
	}
	write("authorized_keys", strings.TrimSpace(string(pub)))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	write("sshd_config", fmt.Sprintf("Port %d", port), "ListenAddress 127.0.0.1", "HostKey "+path("hostkey"),
		"AuthorizedKeysFile "+path("authorized_keys"), "PidFile "+path("sshd.pid"), "StrictModes no", "UsePAM no",
		"PasswordAuthentication no", "KbdInteractiveAuthentication no")
	os.MkdirAll("/run/sshd", 0o755) // privilege separation's directory, when we may make it
	var log bytes.Buffer
	cmd := exec.Command(sshd, "-f", path("sshd_config"), "-D", "-e")
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Skipf("sshd could not start: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	write("ssh_config", "Host box", "  HostName 127.0.0.1", fmt.Sprintf("  Port %d", port), "  User "+u.Username,
		"  IdentityFile "+path("userkey"), "  IdentitiesOnly yes", "  StrictHostKeyChecking no",
		"  UserKnownHostsFile /dev/null", "  LogLevel ERROR")
	s := loopSSH{SSH: "ssh -F " + path("ssh_config")}
	for range 100 { // sshd listening: a bound on a broken sshd, not a timing assertion
		if exec.Command("ssh", "-F", path("ssh_config"), "-o", "BatchMode=yes", "box", "true").Run() == nil {
			return s
		}
		if cmd.ProcessState != nil || syscall.Kill(cmd.Process.Pid, 0) != nil {
			break
		}
		sleepABit()
	}
	t.Skipf("sshd could not start or take the key here: %s", log.String())
	return s
}

// remoteFixture is a project directory (local), a remote one (the
// sub-agent's on host box), the binaries, the fake provider and the
// environment of a parent agent-chat allowed to run sub-agents on box.
type remoteFixture struct {
	dir, local, remote, bin string
	srv                     *fakellm.Server
	env                     []string
}

const remoteSecret = "sk-fake-remote-secret-987654"

func newRemoteFixture(t *testing.T) remoteFixture {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("runs agent pipelines over ssh; Linux's /proc")
	}
	ssh := startSSHD(t)
	bin, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	bin, _ = filepath.Abs(bin)
	f := remoteFixture{dir: t.TempDir(), bin: bin}
	f.local, f.remote = filepath.Join(f.dir, "local"), filepath.Join(f.dir, "remote")
	for _, d := range []string{f.local, f.remote} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.srv = fakellm.New()
	f.srv.Agent = f.dir
	t.Cleanup(f.srv.Close)
	models := filepath.Join(f.dir, "models.toml")
	if err := os.WriteFile(models, []byte(f.srv.ModelsTOML("fake", "anthropic-messages", "test-model")), 0o644); err != nil {
		t.Fatal(err)
	}
	f.env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+f.dir,
		"AGENTUTILS_HOME="+filepath.Join(f.dir, "home"), "FAKE_KEY="+remoteSecret, "NO_COLOR=1",
		"PARALLEL_SSH="+ssh.SSH, "AGENT_TASK_HOSTS=box:"+f.remote)
	return f
}

// chat starts the pipeline of a session file with prompt:
// agent-session open S | agent-chat PROMPT | agent-session append S.
func (f remoteFixture) chat(t *testing.T, prompt string) (*exec.Cmd, string, *bytes.Buffer) {
	out, err := f.run("agent-session", "new")
	if err != nil {
		t.Fatal(err)
	}
	var h struct{ File string }
	if err := json.Unmarshal(out, &h); err != nil || h.File == "" {
		t.Fatalf("agent-session new printed %q", out)
	}
	models := filepath.Join(f.dir, "models.toml")
	script := `agent-session open "$S" | agent-chat --model fake/test-model --models-file "$M" --no-context-files "$P" | agent-session append "$S"`
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = f.local
	cmd.Env = append(f.env, "S="+h.File, "M="+models, "P="+prompt)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return cmd, h.File, &errb
}

func (f remoteFixture) run(name string, args ...string) ([]byte, error) {
	c := exec.Command(filepath.Join(f.bin, name), args...)
	c.Dir, c.Env = f.local, f.env
	var errb bytes.Buffer
	c.Stderr = &errb
	out, err := c.Output()
	if err != nil {
		return out, fmt.Errorf("%s %v: %v: %s", name, args, err, errb.String())
	}
	return out, nil
}

// subFiles are the sub-agents' session files of a parent's.
func subFiles(parent string) []string {
	fs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(parent, ".jsonl"), "*.jsonl"))
	return fs
}

// TestRemoteTask: a task call with a host runs the sub-agent's agent-chat
// and its tools on that host (sshd on the loopback, another directory),
// the sub-agent's session file beside the parent's with its header naming
// the parent and the call, its cwd the remote directory; the parent's
// result names the host; tree, export --html, stats and usage read it as
// a local sub-agent's; no process is left.
func TestRemoteTask(t *testing.T) {
	f := newRemoteFixture(t)
	cmd, parent, errb := f.chat(t, "TASKHOST `box`")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("pipeline: %v\n%s", err, errb)
	}
	body, _ := os.ReadFile(parent)
	if !bytes.Contains(body, []byte(`"host":"box"`)) || !bytes.Contains(body, []byte(`"toolName":"task"`)) {
		t.Fatalf("no task result run on box in the parent:\n%s\n%s", body, errb)
	}
	subs := subFiles(parent)
	if len(subs) != 1 {
		t.Fatalf("sub-agent files beside %s: %q", parent, subs)
	}
	sub, _ := os.ReadFile(subs[0])
	first, _, _ := bytes.Cut(sub, []byte("\n"))
	var head map[string]any
	json.Unmarshal(first, &head)
	if head["cwd"] != f.remote || head["parentSession"] != parent || head["parentToolCallId"] == nil {
		t.Errorf("sub-agent header: %s", first)
	}
	// Its bash ran pwd on the host, in the remote directory.
	if !bytes.Contains(sub, []byte(f.remote+`\n"}]`)) {
		t.Errorf("the sub-agent's pwd is not %s:\n%s", f.remote, sub)
	}
	if bytes.Contains(sub, []byte(remoteSecret)) || bytes.Contains(body, []byte(remoteSecret)) {
		t.Error("the provider key is in a session file")
	}
	tree, err := f.run("agent-session", "tree", parent)
	if err != nil || !bytes.Contains(tree, []byte(filepath.Base(subs[0]))) {
		t.Errorf("tree does not name the sub-agent's file: %v\n%s", err, tree)
	}
	// export nests its conversation; stats of the parent counts its spend
	// from the result (the parent's two calls and the sub-agent's two)
	html, err := f.run("agent-session", "export", "--html", parent)
	if err != nil || !bytes.Contains(html, []byte(`<details class="subagent"><summary>Sub-agent conversation`)) || !bytes.Contains(html, []byte(f.remote)) {
		t.Errorf("export --html does not nest the sub-agent's conversation: %v", err)
	}
	stats, err := f.run("agent-session", "stats", "--json", parent)
	if err != nil || !bytes.Contains(stats, []byte(`"input":400,"output":80`)) {
		t.Errorf("stats: %v\n%s", err, stats)
	}
	// usage reads every file: the parent's two calls and the sub-agent's
	// two, each once ($0.0006 a call).
	use, err := f.run("agent-session", "usage", "--json", "--sessions-dir", filepath.Join(f.dir, "home", "sessions"), "--pi-dir", "none",
		"--omp-dir", "none", "--claude-dir", "none", "--codex-dir", "none", "--gemini-dir", "none", "--opencode-dir", "none")
	var u struct{ Total struct{ Cost float64 } }
	if err != nil || json.Unmarshal(use, &u) != nil || u.Total.Cost < 0.0023999 || u.Total.Cost > 0.0024001 {
		t.Errorf("usage: %v, total cost %v, want 0.0024:\n%s", err, u.Total.Cost, use)
	}
	if left := naming(f.dir); len(left) > 0 {
		t.Errorf("left: %q", left)
	}
}

// TestRemoteTaskInterrupted: ^C to the parent's agent-chat while the
// remote sub-agent's request hangs ends the sub-agent's processes on the
// host (run-subagent, agent-chat, agent-tool) and here (ssh); the parent
// records the call as aborted and exits 130. SIGKILL of the parent's
// process group ends them too (ssh dies with it; run-subagent sees the
// connection go). While it ran, no process's command line held the
// provider key.
func TestRemoteTaskInterrupted(t *testing.T) {
	f := newRemoteFixture(t)
	t.Run("^C", func(t *testing.T) { remoteInterrupt(t, f, false) })
	t.Run("SIGKILL", func(t *testing.T) { remoteInterrupt(t, f, true) })
}

func remoteInterrupt(t *testing.T, f remoteFixture, kill bool) {
	models := filepath.Join(f.dir, "models.toml")
	before := len(f.srv.Requests())
	cmd := exec.Command(filepath.Join(f.bin, "agent-chat"), "--model", "fake/test-model", "--models-file", models, "--no-context-files", "TASKHOSTHANG `box`")
	cmd.Dir, cmd.Env = f.local, f.env
	cmd.Stdin = strings.NewReader(`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	for len(f.srv.Requests()) < before+2 { // the sub-agent's request, hanging
		if syscall.Kill(cmd.Process.Pid, 0) != nil {
			t.Fatalf("agent-chat ended early: %s", errb.String())
		}
		sleepABit()
	}
	running := naming(f.remote)
	var mark string // run-subagent's, in the environment of what it started
	for _, p := range running {
		if strings.Contains(p, "run-subagent") {
			pid, _, _ := strings.Cut(p, " ")
			mark = "AGENTUTILS_SUBAGENT=" + pid
		}
	}
	if mark == "" {
		t.Fatalf("no run-subagent names %s: %q", f.remote, running)
	}
	if tools := carrying(mark); len(tools) == 0 { // agent-chat hides its environment; its agent-tool does not
		t.Fatalf("no process carries %s", mark)
	}
	if keys := naming(remoteSecret); len(keys) > 0 {
		t.Errorf("the provider key is on a command line: %q", keys)
	}
	if kill {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	} else {
		cmd.Process.Signal(os.Interrupt)
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
			t.Errorf("exit: %v, want 130\n%s", err, errb.String())
		}
		if !strings.Contains(out.String(), `"toolName":"task","result":{"content":[{"type":"text","text":"Sub-agent aborted.`) {
			t.Errorf("no aborted task result in:\n%s", out.String())
		}
	}
	gone(t, mark, filepath.Join(f.dir, "none"))
	// run-subagent (not marked) ends after what it started: at most 15 s,
	// a bound on a hang, not a timing assertion
	for deadline := time.Now().Add(15 * time.Second); len(naming(f.dir)) > 0 && time.Now().Before(deadline); {
		sleepABit()
	}
	if left := naming(f.dir); len(left) > 0 {
		t.Errorf("left: %q", left)
	}
}
