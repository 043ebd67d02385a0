package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/atomicfile"
	"github.com/agentutils/agentutils/lib/commit"
	"github.com/agentutils/agentutils/lib/exit"
)

func commitCommand(env *app.Env) *cli.Command {
	msg := msgCommand(env)
	return &cli.Command{
		Name:  "commit",
		Usage: "write a message for the staged changes with the model, update changelogs and commit",
		Description: "msg followed by git commit -F - (so your git hooks run). Staging is explicit: nothing is staged " +
			"unless you pass --all. Each staged file's nearest tracked CHANGELOG.md (up to the repository root) gets " +
			"the model's entries in its [Unreleased] section, in the same answer as the message; the entries go into " +
			"the staged version of the file (and the working copy), so the commit carries them; a changelog without " +
			"[Unreleased] is skipped with a warning; --no-changelog leaves changelogs alone. When git commit fails " +
			"(a refusing hook) the changelog edits are rolled back. --dry-run prints the message and the changelog " +
			"entries it would add, and changes nothing. --push runs git push after the commit (refused up front on " +
			"a detached HEAD).\n\n" +
			"Examples:\n\n" +
			"   agent-commit commit\n" +
			"   agent-commit commit --all --push\n" +
			"   agent-commit commit --dry-run --context 'part of the v2 migration'\n" +
			"   agent-commit commit --no-changelog",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "stage all changes first (git add -A); never with --dry-run"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the message and changelog entries; stage, write and commit nothing"},
			&cli.BoolFlag{Name: "push", Usage: "git push after the commit"},
			&cli.BoolFlag{Name: "no-changelog", Usage: "do not add entries to CHANGELOG.md files"},
		}, withoutFlag(msg.Flags, "n")...),
		Action: func(c *cli.Context) error { return runCommit(c, env) },
	}
}

func runCommit(c *cli.Context, env *app.Env) error {
	if c.NArg() > 0 {
		return exit.Errorf(exit.Usage, "commit takes no arguments")
	}
	if c.Bool("all") && c.Bool("dry-run") {
		return exit.Errorf(exit.Usage, "--all and --dry-run cannot be combined: a dry run stages nothing")
	}
	cfg, err := msgSetup(c, env)
	if err != nil {
		return err
	}
	_, err = git(c.Context, env, "symbolic-ref", "-q", "HEAD")
	detached := err != nil
	if c.Bool("push") && detached {
		return exit.Errorf(exit.Usage, "--push: HEAD is detached (not on a branch), so there is nothing to push to; check out a branch first")
	}
	if c.Bool("all") {
		if _, err := git(c.Context, env, "add", "-A"); err != nil {
			return err
		}
	}
	var targets []commit.ChangelogTarget
	var tracked trackedChangelogs
	if !c.Bool("no-changelog") {
		var err error
		if targets, tracked, err = changelogTargets(c, env); err != nil {
			return err
		}
	}
	a, err := generateMessage(c, env, cfg, targets)
	if err != nil {
		return err
	}
	m := a.Render()
	edits, err := changelogEdits(c, env, a, targets, tracked)
	if err != nil {
		return err
	}
	if c.Bool("dry-run") {
		for _, e := range edits {
			for _, cat := range e.cats {
				for _, it := range e.entries[cat] {
					app.Warnf(c, "dry run: would add to %s under %s: %s", e.path, cat, it)
				}
			}
		}
		_, err := fmt.Fprintln(env.Stdout, m)
		return err
	}
	if err := applyEdits(c.Context, env, edits); err != nil {
		rollback(c.Context, env, edits)
		return err
	}
	if err := gitCommit(c, env, m, edits); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, m)
	if detached {
		app.Warnf(c, "HEAD is detached: the commit is on no branch (git switch -c NAME keeps it)")
	}
	if c.Bool("push") {
		return gitPush(c, env)
	}
	return nil
}

// gitCommit commits the staged changes with message m, rolling the
// changelog edits back when git refuses.
func gitCommit(c *cli.Context, env *app.Env, m string, edits []*edit) error {
	cmd := exec.CommandContext(c.Context, "git", "commit", "-q", "-F", "-")
	cmd.Dir = env.Dir
	cmd.Env = append(env.Environment(), "AGENT_COMMIT_ACTIVE=1")
	cmd.Stdin = strings.NewReader(m + "\n")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		rollback(c.Context, env, edits)
		msg := "git commit failed:\n" + indent(out.String())
		if len(edits) > 0 {
			msg += "\n(the changelog edits were rolled back)"
		}
		return exit.Errorf(exit.Failure, "%s", msg)
	}
	return nil
}

func gitPush(c *cli.Context, env *app.Env) error {
	cmd := exec.CommandContext(c.Context, "git", "push", "-q")
	cmd.Dir = env.Dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return exit.Errorf(exit.Failure, "committed, but git push failed:\n%s", indent(out.String()))
	}
	return nil
}

// indexEntry is a tracked file's index entry.
type indexEntry struct{ mode, sha string }

// trackedChangelogs are the tracked CHANGELOG.md files by repo-relative
// path, and the repository's top level they are relative to.
type trackedChangelogs struct {
	root    string
	entries map[string]indexEntry
}

// changelogTargets lists the staged files and the tracked CHANGELOG.md
// files, and pairs them up.
func changelogTargets(c *cli.Context, env *app.Env) ([]commit.ChangelogTarget, trackedChangelogs, error) {
	top, err := git(c.Context, env, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, trackedChangelogs{}, err
	}
	root := strings.TrimSpace(top)
	names, err := git(c.Context, env, "-C", root, "diff", "--cached", "--name-only", "-z", "--no-renames", "--ignore-submodules")
	if err != nil {
		return nil, trackedChangelogs{}, err
	}
	ls, err := git(c.Context, env, "-C", root, "ls-files", "-s", "-z", "--", ":(glob)CHANGELOG.md", ":(glob)**/CHANGELOG.md")
	if err != nil {
		return nil, trackedChangelogs{}, err
	}
	tracked := map[string]indexEntry{}
	for _, rec := range strings.Split(ls, "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) < 3 || f[2] != "0" {
			continue // a conflicted changelog is not a target
		}
		tracked[p] = indexEntry{f[0], f[1]}
	}
	var staged []string
	for _, p := range strings.Split(names, "\x00") {
		if p != "" {
			staged = append(staged, p)
		}
	}
	return commit.ChangelogTargets(staged, func(p string) bool { _, ok := tracked[p]; return ok }), trackedChangelogs{root, tracked}, nil
}

// edit is one changelog's new content, in the index and in the working tree.
type edit struct {
	path         string // repo-relative
	root         string // the repository's top level
	abs          string
	orig         indexEntry
	index        string // new staged content
	work         []byte // original working-tree content (nil when the file is absent)
	newWork      string
	entries      map[string][]string
	cats         []string
	indexWritten bool
	workWritten  bool
}

// changelogEdits merges the model's entries into the staged version of each
// target (and into the working copy, which may hold unstaged edits).
func changelogEdits(c *cli.Context, env *app.Env, a commit.Analysis, targets []commit.ChangelogTarget, tracked trackedChangelogs) ([]*edit, error) {
	root := tracked.root
	var edits []*edit
	for _, t := range targets {
		entries := commit.NormalizeEntries(a.Changelog[t.Path])
		if len(entries) == 0 {
			continue
		}
		staged, err := git(c.Context, env, "-C", root, "cat-file", "blob", tracked.entries[t.Path].sha)
		if err != nil {
			return nil, err
		}
		merged, err := commit.Merge(staged, entries, nil, false)
		if errors.Is(err, commit.ErrNoUnreleased) {
			app.Warnf(c, "%s has no [Unreleased] section; its entries are left out", t.Path)
			continue
		}
		if err != nil {
			return nil, err
		}
		e := &edit{path: t.Path, root: root, abs: filepath.Join(root, filepath.FromSlash(t.Path)), orig: tracked.entries[t.Path], index: merged, entries: entries}
		for cat := range entries {
			e.cats = append(e.cats, cat)
		}
		sort.Strings(e.cats)
		if work, err := os.ReadFile(e.abs); err == nil {
			e.work = work
			if string(work) == staged {
				e.newWork = merged
			} else if e.newWork, err = commit.Merge(string(work), entries, nil, false); err != nil {
				e.newWork = "" // the working copy lost its [Unreleased]: leave it as it is
			}
		}
		edits = append(edits, e)
	}
	return edits, nil
}

// applyEdits writes the merged changelogs: the staged version through
// hash-object and update-index (so unstaged edits stay unstaged), and the
// working copy.
func applyEdits(ctx context.Context, env *app.Env, edits []*edit) error {
	for _, e := range edits {
		cmd := exec.CommandContext(ctx, "git", "hash-object", "-w", "--stdin", "--path", e.path)
		cmd.Dir = e.root
		cmd.Stdin = strings.NewReader(e.index)
		out, err := cmd.Output()
		if err != nil {
			return exit.Errorf(exit.Failure, "%s: git hash-object: %v", e.path, err)
		}
		if _, err := git(ctx, env, "-C", e.root, "update-index", "--cacheinfo", e.orig.mode+","+strings.TrimSpace(string(out))+","+e.path); err != nil {
			return exit.Errorf(exit.Failure, "%s: %v", e.path, err)
		}
		e.indexWritten = true
		if e.work != nil && e.newWork != "" {
			if err := atomicfile.Write(e.abs, []byte(e.newWork), 0o644); err != nil {
				return exit.Errorf(exit.Failure, "%s: %v", e.path, err)
			}
			e.workWritten = true
		}
	}
	return nil
}

// rollback puts the changelogs back as they were, in the index and on disk.
func rollback(ctx context.Context, env *app.Env, edits []*edit) {
	for _, e := range edits {
		if e.indexWritten {
			if _, err := git(ctx, env, "-C", e.root, "update-index", "--cacheinfo", e.orig.mode+","+e.orig.sha+","+e.path); err != nil {
				fmt.Fprintf(env.Stderr, "agent-commit: rolling back %s in the index: %v\n", e.path, err)
			}
		}
		if e.workWritten {
			if err := atomicfile.Write(e.abs, e.work, 0o644); err != nil {
				fmt.Fprintf(env.Stderr, "agent-commit: rolling back %s: %v\n", e.path, err)
			}
		}
	}
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

func withoutFlag(fs []cli.Flag, name string) []cli.Flag {
	var out []cli.Flag
	for _, f := range fs {
		if f.Names()[0] != name {
			out = append(out, f)
		}
	}
	return out
}
