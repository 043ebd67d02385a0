package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/commit"
	"github.com/agentutils/agentutils/lib/exit"
)

// git runs git in the command's directory (another with "-C", DIR first)
// and returns its stdout; a failure names git's subcommand and carries its
// stderr.
func git(ctx context.Context, env *app.Env, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = env.Dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), exit.Errorf(exit.Usage, "git %s: %s", subcommand(args), app.FailText(err, errb.Bytes()))
	}
	return out.String(), nil
}

// subcommand is the git subcommand of args, after git's own options.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C" || a == "-c":
			i++ // the option's value
		case !strings.HasPrefix(a, "-"):
			return a
		}
	}
	return strings.Join(args, " ")
}

// Limits on the diff text kept in memory: a file's text up to what one map
// call sends, and 16 MiB in all. Counts and spans cover the whole diff.
const (
	keepFileBytes  = 200000
	keepTotalBytes = 16 << 20
)

// stagedDiff streams `git diff --cached ARGS` through the diff parser, so a
// huge diff costs bounded memory. With spool, the raw diff is also copied to
// a temporary file (the caller removes it) for cutting patches by span.
func stagedDiff(ctx context.Context, env *app.Env, spool bool, args ...string) ([]commit.FileDiff, *os.File, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"diff", "--cached"}, args...)...)
	cmd.Dir = env.Dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	var f *os.File
	var r io.Reader = out
	if spool {
		if f, err = os.CreateTemp("", "agent-commit-diff-*"); err != nil {
			return nil, nil, err
		}
		r = io.TeeReader(out, f)
	}
	fail := func(err error) ([]commit.FileDiff, *os.File, error) {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	files, perr := commit.ParseDiffReader(r, keepFileBytes, keepTotalBytes)
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return fail(exit.Errorf(exit.Usage, "git diff: %s", app.FailText(err, errb.Bytes())))
	}
	if perr != nil {
		return fail(exit.Errorf(exit.Failure, "reading git diff: %v", perr))
	}
	return files, f, nil
}
