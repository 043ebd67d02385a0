package contextfiles

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/agentutils/agentutils/lib/prompt"
)

// gitTimeout bounds each git call of the snapshot, as the reference agent does.
const gitTimeout = 3 * time.Second

// Git takes the version-control snapshot of the repository at dir: branch,
// main branch (main, else master), git status --porcelain
// --untracked-files=no and the last five commits. It returns nil when dir is
// not in a work tree or git is not installed; a git call that fails or times
// out leaves its field empty.
func Git(ctx context.Context, dir string) *prompt.Git {
	run := func(args ...string) (string, bool) {
		ctx, cancel := context.WithTimeout(ctx, gitTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "--no-optional-locks"}, args...)...)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			return "", false
		}
		return out.String(), true
	}
	// The calls are independent: they run at once (the snapshot is on the
	// way to a model call's first byte), and the rest is dropped when dir
	// turns out not to be in a work tree.
	var inside, branch, status, log string
	var insideOK, branchOK, haveMain, haveMaster bool
	var wg sync.WaitGroup
	for _, f := range []func(){
		func() { inside, insideOK = run("rev-parse", "--is-inside-work-tree") },
		func() { branch, branchOK = run("symbolic-ref", "--short", "-q", "HEAD") },
		func() { _, haveMain = run("rev-parse", "--verify", "--quiet", "refs/heads/main") },
		func() { _, haveMaster = run("rev-parse", "--verify", "--quiet", "refs/heads/master") },
		func() { status, _ = run("status", "--porcelain", "--untracked-files=no") },
		func() { log, _ = run("log", "--oneline", "--no-decorate", "--no-color", "-5") },
	} {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	wg.Wait()
	if !insideOK || strings.TrimSpace(inside) != "true" {
		return nil
	}
	g := &prompt.Git{Status: status, Log: log}
	if branchOK {
		g.Branch = strings.TrimSpace(branch)
	}
	switch {
	case haveMain:
		g.MainBranch = "main"
	case haveMaster:
		g.MainBranch = "master"
	}
	return g
}

// Env describes the machine for the prompt's environment section: the cwd,
// today's date from now, the OS (kernel release when /proc says it) and the
// shell from $SHELL. git is the snapshot from Git (may be nil).
func Env(cwd string, now time.Time, getenv func(string) string, git *prompt.Git) prompt.Env {
	osName := runtime.GOOS
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		osName += " " + strings.TrimSpace(string(b))
	}
	osName += " (" + runtime.GOARCH + ")"
	return prompt.Env{
		Cwd:   cwd,
		Date:  now.Format("2006-01-02"),
		OS:    osName,
		Shell: getenv("SHELL"),
		Git:   git,
	}
}

// ResolvePromptInput reads a --system-prompt / --append-system-prompt
// value the way the reference agent does: text with a newline is the
// prompt itself; otherwise, if it names a readable file (relative to cwd),
// the file's contents; otherwise the text as given.
func ResolvePromptInput(value, cwd string) string {
	if value == "" || strings.Contains(value, "\n") {
		return value
	}
	p := value
	if !strings.HasPrefix(p, "/") {
		p = cwd + string(os.PathSeparator) + p
	}
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		if b, err := os.ReadFile(p); err == nil {
			return string(b)
		}
	}
	return value
}

// SystemPrompt is the whole assembly for agent-chat: discovery under opt,
// the environment with git's snapshot of opt.Cwd (Git's result, taken by
// the caller: it runs git, so agent-chat starts it early, beside its
// reading of stdin), and lib/prompt's rendering. system and appendText are
// the --system-prompt / --append-system-prompt values (already read with
// ResolvePromptInput; "" for none). The Found is returned for its warnings
// and prompt templates.
func SystemPrompt(opt Options, tools []prompt.Tool, now time.Time, getenv func(string) string, git *prompt.Git, system, appendText string) (string, Found, error) {
	f, err := Discover(opt)
	if err != nil {
		return "", f, err
	}
	env := Env(opt.Cwd, now, getenv, git)
	return prompt.Build(f.PromptInput(tools, env, system, appendText)), f, nil
}
