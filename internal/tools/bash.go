package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/agentutils/agentutils/internal/jobs"
	"github.com/agentutils/agentutils/internal/proctree"
	isandbox "github.com/agentutils/agentutils/internal/sandbox"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/redact"
	"github.com/agentutils/agentutils/lib/sandbox"
)

const (
	bashDefaultTimeout = 300
	bashGrace          = 2 * time.Second
)

// nonInteractive is the environment that keeps commands from waiting for
// a person (pagers, editors, prompts).
var nonInteractive = []string{
	"PAGER=cat", "GIT_PAGER=cat", "MANPAGER=cat", "SYSTEMD_PAGER=cat", "GH_PAGER=cat", "LESS=FRX",
	"TERM=dumb", "NO_COLOR=1", "PYTHONUNBUFFERED=1", "GIT_EDITOR=true", "VISUAL=true", "EDITOR=true",
	"GIT_TERMINAL_PROMPT=0", "SSH_ASKPASS=/usr/bin/false", "CI=1", "DEBIAN_FRONTEND=noninteractive",
	"PIP_NO_INPUT=1", "npm_config_yes=true", "AGENTUTILS_TOOL=bash",
}

func bashTool() Tool {
	return Tool{
		Def: def("bash", "Run a shell command with bash -c in the working directory (non-interactive: stdin is empty, pagers and editors are off). stdout and stderr are merged; the last 50KB are returned and the full output is kept in an artifact file. Default timeout 300 s (1-3600). With background: true the command runs on as a background job (a dev server, a watcher, a long build): the call returns its id at once, the job tool reads its output and kills it, and you are told when it ends; it has no timeout unless one is given.",
			`{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"integer","minimum":1,"maximum":3600,"description":"seconds"},"cwd":{"type":"string","description":"a path: relative to the working directory, ~ is home; confined by --root"},"background":{"type":"boolean","description":"run on as a background job; the call returns its id"}},"required":["command"],"additionalProperties":false}`),
		Run: runBash,
	}
}

// tail keeps the last maxBytes of a stream in memory and, once it
// overflows, writes the whole stream to a spill file.
type tail struct {
	mu      sync.Mutex
	buf     []byte
	total   int
	lines   int
	spill   *os.File
	spilled bool
	open    func() (*os.File, error)
	err     error
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += len(p)
	t.lines += bytes.Count(p, []byte("\n"))
	if t.spill == nil && len(t.buf)+len(p) > maxBytes && t.open != nil && t.err == nil {
		t.spill, t.err = t.open()
		if t.spill != nil {
			t.spill.Write(t.buf)
			t.spilled = true
		}
	}
	if t.spill != nil {
		t.spill.Write(p)
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > maxBytes {
		cut := len(t.buf) - maxBytes
		for cut < len(t.buf) && !utf8.RuneStart(t.buf[cut]) {
			cut++
		}
		t.buf = append(t.buf[:0], t.buf[cut:]...)
	}
	return len(p), nil
}

func (t *tail) text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if t.total > len(b) {
		// The tail starts mid-line: drop the partial first line, unless
		// it is the only line (then its end is all there is to show).
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	return strings.ReplaceAll(stripANSI(s), "\r", "")
}

// stripANSI removes terminal escape sequences.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && !(s[j] >= 0x40 && s[j] <= 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func runBash(ctx context.Context, env *Env, args json.RawMessage, update func(event.ToolOutput)) (event.ToolOutput, error) {
	var a struct {
		Command    string
		Timeout    int
		Cwd        string
		Background bool
	}
	if err := decode(args, &a); err != nil {
		return event.ToolOutput{}, err
	}
	if strings.TrimSpace(a.Command) == "" {
		return event.ToolOutput{}, fmt.Errorf("command must not be empty")
	}
	timeout := a.Timeout
	jobTimeout := min(max(timeout, 0), 3600)
	if timeout <= 0 {
		timeout = bashDefaultTimeout
	}
	timeout = min(max(timeout, 1), 3600)
	dir := env.Cwd
	if a.Cwd != "" || env.Root != "" {
		if a.Cwd == "" {
			a.Cwd = "."
		}
		fsys, name, abs, err := env.at(a.Cwd)
		if err != nil {
			return event.ToolOutput{}, err
		}
		dir = abs
		st, err := fsys.Stat(name)
		if err != nil {
			return event.ToolOutput{}, fmt.Errorf("Working directory does not exist: %s", dir)
		}
		if !st.IsDir() {
			return event.ToolOutput{}, fmt.Errorf("Working directory is not a directory: %s", dir)
		}
	}
	// No keys: variables whose names look secret are withheld unless named.
	// Nor the jobs directory of the session: bash's commands are not an owner.
	environ := slices.DeleteFunc(redact.Environ(os.Environ(), env.ShellEnv, nil), func(kv string) bool { return strings.HasPrefix(kv, jobs.DirEnv+"=") })
	environ = append(environ, nonInteractive...)
	if a.Background {
		return startJob(env, a.Command, dir, jobTimeout, environ)
	}
	state, err := env.stateDir()
	if err != nil {
		return event.ToolOutput{}, err
	}
	artifact := filepath.Join(state, fmt.Sprintf("%d.bash.log", env.Now().UnixNano()))
	out := &tail{open: func() (*os.File, error) { return os.Create(artifact) }}
	// The output pipe is ours: bash and its children hold the write end,
	// we read it in a goroutine, and the call ends when bash exits (or at
	// the timeout), not when the last holder of the pipe closes it.
	pr, pw, err := os.Pipe()
	if err != nil {
		return event.ToolOutput{}, err
	}
	defer pr.Close()
	// marker finds the descendants that left the process group (setsid)
	// and lost their parent: they inherit it in their environment.
	marker := fmt.Sprintf("AGENTUTILS_BASH_ID=%d.%d", os.Getpid(), env.Now().UnixNano())
	sh, err := env.startBash(a.Command, dir, append(environ, marker), pw)
	pw.Close()
	if err != nil {
		return event.ToolOutput{}, err
	}
	copied := make(chan struct{})
	go func() { io.Copy(out, pr); close(copied) }()
	var code int
	done := make(chan error, 1)
	go func() {
		c, err := sh.wait()
		code = c
		done <- err
	}()
	pid := sh.pid
	// In the sandbox bash is PID 1 of its namespace: when it dies the
	// kernel kills the rest, so no scan of /proc is needed.
	kill := proctree.Killer(pid, marker, env.sandboxed())
	timer := time.NewTimer(time.Duration(timeout) * time.Second)
	defer timer.Stop()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	var waitErr error
	reason := ""
loop:
	for {
		select {
		case waitErr = <-done:
			break loop
		case <-tick.C:
			if update != nil {
				update(event.ToolOutput{Content: []event.Content{event.Text(out.text())}})
			}
		case <-timer.C:
			reason = "timeout"
		case <-ctx.Done():
			reason = "aborted"
		}
		if reason != "" {
			kill(syscall.SIGTERM)
			select {
			case waitErr = <-done:
			case <-time.After(bashGrace):
				kill(syscall.SIGKILL)
				waitErr = <-done
			}
			break loop
		}
	}
	// Whatever bash left running is killed: its process group and the
	// descendants that left it.
	kill(syscall.SIGKILL)
	// The output the killed processes wrote is in the pipe; a holder that
	// escaped the kill does not hold the call.
	select {
	case <-copied:
	case <-time.After(bashGrace):
		pr.Close()
		<-copied
	}
	if out.spill != nil {
		out.spill.Close()
	}
	text := out.text()
	if strings.TrimSpace(text) == "" {
		text = "(no output)"
	}
	det := map[string]any{"exitCode": code, "totalBytes": out.total}
	if out.spilled {
		det["artifact"] = artifact
		text += fmt.Sprintf("\n\n[Showing the last %s of %s. Full output: %s]", event.FormatBytes(maxBytes), event.FormatBytes(out.total), artifact)
	}
	res := event.ToolOutput{Content: []event.Content{event.Text(text)}, Details: details(det)}
	switch {
	case reason == "timeout":
		res.Content[0].Text = fmt.Sprintf("[Command timed out after %d seconds]\n%s", timeout, text)
		return res, fmt.Errorf("timeout")
	case reason == "aborted":
		res.Content[0].Text = "Command aborted\n" + text
		return res, fmt.Errorf("aborted")
	case waitErr != nil && code != 0:
		res.Content[0].Text = fmt.Sprintf("%s\n\nCommand exited with code %d", text, code)
		return res, fmt.Errorf("exit %d", code)
	}
	return res, nil
}

// shell is a started bash: its pid, and how to wait for its exit code
// (-1 when a signal ended it) and the error of an exit other than 0.
type shell struct {
	pid  int
	wait func() (int, error)
}

// startBash starts bash -c script in dir with out as its stdout and
// stderr: in its own process group, or inside the sandbox of e.Sandbox
// (internal/sandbox: the session helper of the sandbox forks it), where
// bash is PID 1 of a PID namespace, so the kernel kills what it leaves
// behind when it exits.
func (e *Env) startBash(script, dir string, environ []string, out *os.File) (shell, error) {
	if e.sandboxed() {
		spec, err := e.sandboxSpec()
		if err != nil {
			return shell{}, err
		}
		p, err := isandbox.Start(spec, dir, environ, script, out)
		if err != nil {
			return shell{}, err
		}
		return shell{pid: p.Pid, wait: p.Wait}, nil
	}
	cmd, err := isandbox.Shell(nil, script, environ)
	if err != nil {
		return shell{}, err
	}
	cmd.Dir = dir
	cmd.Stdin = nil // /dev/null
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return shell{}, err
	}
	return shell{pid: cmd.Process.Pid, wait: func() (int, error) {
		err := cmd.Wait()
		return cmd.ProcessState.ExitCode(), err
	}}, nil
}

// sandboxed: bash runs in the sandbox.
func (e *Env) sandboxed() bool { return e.Sandbox != nil && e.Sandbox.Mode != sandbox.Off }

// NetworkOff says the sandbox keeps bash off the network: then a tool
// that reads the network (fetch, web_search) is one a person approves
// where one is asked (agent), as a command that reached it would be.
func (e *Env) NetworkOff() bool { return e.sandboxed() && !e.Sandbox.Net }

// shellSpec is the sandbox of bash's commands, nil when there is none.
func (e *Env) shellSpec() (*isandbox.Spec, error) {
	if !e.sandboxed() {
		return nil, nil
	}
	spec, err := e.sandboxSpec()
	return &spec, err
}

// sandboxSpec is the boundary of e's bash calls: the root (--root, else
// the working directory), the session's private temp dir, the caches
// and writable dirs, the credential stores to hide.
func (e *Env) sandboxSpec() (isandbox.Spec, error) {
	sb := e.Sandbox
	root := e.Root
	if root == "" {
		root = e.Cwd
	}
	state, err := e.stateDir()
	if err != nil {
		return isandbox.Spec{}, err
	}
	tmp, err := isandbox.PrivateTmp(state, e.Session)
	if err != nil {
		return isandbox.Spec{}, err
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return isandbox.Spec{}, err
	}
	home := e.Getenv("HOME")
	d := dirs.Resolve(e.Getenv)
	hide := sb.Hide
	if hide == nil {
		hide = sandbox.DefaultHide
	}
	real := func(ps []string) []string {
		out := make([]string, 0, len(ps))
		for _, p := range ps {
			if r, err := filepath.EvalSymlinks(p); err == nil {
				if r, err = filepath.Abs(r); err == nil {
					out = append(out, r)
				}
			}
		}
		return out
	}
	roots := real([]string{root, tmp})
	if len(roots) != 2 {
		return isandbox.Spec{}, fmt.Errorf("sandbox: the root %s does not exist", root)
	}
	return isandbox.Spec{Mode: sb.Mode, Root: roots[0], Tmp: roots[1], Net: sb.Net, Bash: bash,
		Writable: real(append(sandbox.Caches(e.Getenv, home), sandbox.Expand(sb.Writable, e.Cwd, home, d.Config, d.Data)...)),
		Hide:     sandbox.Expand(hide, e.Cwd, home, d.Config, d.Data)}, nil
}
