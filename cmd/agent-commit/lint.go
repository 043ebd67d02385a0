package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/commit"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
)

// configNames are the plain-JSON commitlint configs we read, first found wins.
var configNames = []string{".commitlintrc.json", ".commitlintrc", "commitlint.config.json", "package.json"}

func lintCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "lint",
		Usage:     "check commit messages against commitlint's conventional rules",
		ArgsUsage: "[FILE|-]",
		Description: "Reads one message from FILE (a commit-msg hook's file) or stdin, or every commit in " +
			"--from..--to. Comment lines and everything below git's scissors line are dropped. Merges, reverts, " +
			"fixup!/squash!/amend! and release versions are ignored, as commitlint does. Rule overrides come " +
			"from .commitlintrc.json, .commitlintrc, commitlint.config.json or package.json (\"commitlint\" key) " +
			"when they are plain JSON. Exit 1 when a message has errors (warnings never fail), 2 on bad input.\n\n" +
			"Examples:\n\n" +
			"   echo 'fix(parser): handle empty input' | agent-commit lint\n" +
			"   agent-commit lint .git/COMMIT_EDITMSG\n" +
			"   agent-commit lint --from v1.0.0 --to HEAD --format json\n" +
			"   agent-commit lint --profile strict msg.txt",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "lint the commits after `REV` (exclusive)"},
			&cli.StringFlag{Name: "to", Usage: "last commit to lint with --from", Value: "HEAD"},
			&cli.StringFlag{Name: "profile", Usage: "conventional (commitlint config-conventional) or strict (adds past tense, filler words, 72 characters)", Value: "conventional"},
			&cli.StringFlag{Name: "format", Usage: "text (commitlint-like) or json (one object per message)", Value: "text"},
			&cli.StringFlag{Name: "config", Usage: "plain-JSON commitlint config `FILE` (default: discovered in the repository root)"},
			&cli.StringFlag{Name: "comment-char", Usage: "comment `CHAR` of the message file (default: git's core.commentChar, else #)"},
		},
		Action: func(c *cli.Context) error { return runLint(c, env) },
	}
}

type lintInput struct {
	name string // file name or commit hash
	text string
}

func runLint(c *cli.Context, env *app.Env) error {
	if c.NArg() > 1 {
		return exit.Errorf(exit.Usage, "lint takes at most one FILE")
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return exit.Errorf(exit.Usage, "--format %q: choose text or json", format)
	}
	cfg, err := lintConfig(c, env)
	if err != nil {
		return err
	}
	var inputs []lintInput
	if c.IsSet("from") {
		if c.NArg() > 0 {
			return exit.Errorf(exit.Usage, "give FILE or --from, not both")
		}
		inputs, err = history(c, env, c.String("from"), c.String("to"))
		if err != nil {
			return err
		}
	} else {
		name, data, err := readInput(env, c.Args().First())
		if err != nil {
			return err
		}
		if !utf8.Valid(data) {
			return exit.Errorf(exit.Usage, "%s: message is not UTF-8", name)
		}
		cc := c.String("comment-char")
		if cc == "" && name != "-" {
			cc = commentChar(c, env) // a commit-msg file: git's own comment char
		}
		inputs = []lintInput{{name: name, text: commit.Clean(string(data), cc)}}
	}
	failed := false
	for _, in := range inputs {
		var r commit.Result
		if strings.TrimSpace(in.text) == "" {
			r = commit.Result{Valid: true, Ignored: true, Errors: []commit.Problem{}, Warnings: []commit.Problem{}}
		} else {
			r = commit.Lint(in.text, cfg)
		}
		if !r.Valid {
			failed = true
		}
		if format == "json" {
			rec := struct {
				Commit string `json:"commit,omitempty"`
				commit.Result
			}{Result: r}
			if c.IsSet("from") {
				rec.Commit = in.name
			}
			b, _ := json.Marshal(rec)
			fmt.Fprintf(env.Stdout, "%s\n", b)
			continue
		}
		writeText(env.Stdout, in, r)
	}
	if failed {
		return exit.Silent(exit.Failure)
	}
	return nil
}

// writeText prints commitlint's report shape; a clean message prints nothing.
func writeText(w io.Writer, in lintInput, r commit.Result) {
	if len(r.Errors)+len(r.Warnings) == 0 {
		return
	}
	header, _, _ := strings.Cut(r.Input, "\n")
	fmt.Fprintf(w, "⧗   input: %s\n", header)
	for _, p := range r.Errors {
		fmt.Fprintf(w, "✖   %s [%s]\n", p.Message, p.Rule)
	}
	for _, p := range r.Warnings {
		fmt.Fprintf(w, "⚠   %s [%s]\n", p.Message, p.Rule)
	}
	mark := "⚠"
	if len(r.Errors) > 0 {
		mark = "✖"
	}
	fmt.Fprintf(w, "\n%s   found %d problems, %d warnings\n\n", mark, len(r.Errors), len(r.Warnings))
}

func lintConfig(c *cli.Context, env *app.Env) (commit.Config, error) {
	var base commit.Config
	switch p := c.String("profile"); p {
	case "conventional":
		base = commit.Conventional()
	case "strict":
		base = commit.Strict()
	default:
		return nil, exit.Errorf(exit.Usage, "--profile %q: choose conventional or strict", p)
	}
	path := c.String("config")
	if path == "" {
		dir := repoRoot(env.Dir)
		for _, n := range configNames {
			p := filepath.Join(dir, n)
			if _, err := os.Stat(p); err != nil {
				continue
			}
			if n == "package.json" {
				data, err := os.ReadFile(p)
				if err != nil || !strings.Contains(string(data), `"commitlint"`) {
					continue
				}
			}
			path = p
			break
		}
		if path == "" {
			return base, nil
		}
	}
	data, err := os.ReadFile(abs(env, path))
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "%v", err)
	}
	cfg, err := commit.ApplyConfig(base, data)
	if err != nil {
		return nil, exit.Errorf(exit.Usage, "%s: %v", path, err)
	}
	return cfg, nil
}

// repoRoot is the nearest directory at or above dir holding .git (a
// directory or a worktree's file), else dir. Found without running git, so
// linting stdin costs one process.
func repoRoot(dir string) string {
	if root, ok := dirs.Up(dir, func(d string) bool {
		_, err := os.Lstat(filepath.Join(d, ".git"))
		return err == nil
	}); ok {
		return root
	}
	return dir
}

func commentChar(c *cli.Context, env *app.Env) string {
	if !mayConfigCommentChar(env) {
		return "#" // no config git reads can set it: spare the git process
	}
	out, err := git(c.Context, env, "config", "core.commentChar")
	cc := strings.TrimSpace(out)
	if err != nil || cc == "" || cc == "auto" {
		return "#"
	}
	return cc
}

func history(c *cli.Context, env *app.Env, from, to string) ([]lintInput, error) {
	out, err := git(c.Context, env, "log", "--reverse", "--format=%H%x00%B%x00", from+".."+to)
	if err != nil {
		return nil, err
	}
	parts := strings.Split(out, "\x00")
	var ins []lintInput
	for i := 0; i+1 < len(parts); i += 2 {
		h := strings.TrimSpace(parts[i])
		ins = append(ins, lintInput{name: h, text: commit.Clean(parts[i+1], "\x00")})
	}
	return ins, nil
}

// readInput reads the file name, or stdin when name is "" or "-" (then
// named "-"); a file that cannot be read is a usage error.
func readInput(env *app.Env, name string) (string, []byte, error) {
	var data []byte
	var err error
	if name == "" || name == "-" {
		name = "-"
		data, err = io.ReadAll(env.Stdin)
	} else {
		data, err = os.ReadFile(abs(env, name))
	}
	if err != nil {
		return name, nil, exit.Errorf(exit.Usage, "%v", err)
	}
	return name, data, nil
}

func abs(env *app.Env, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(env.Dir, p)
}

// mayConfigCommentChar reports whether any configuration git would read here
// could set core.commentChar: a config file that names it (in any case) or
// includes another file, or settings passed in the environment (git -c).
// Only then is git asked; a commit-msg hook then costs one process, not two.
func mayConfigCommentChar(env *app.Env) bool {
	if strings.Contains(strings.ToLower(env.Getenv("GIT_CONFIG_PARAMETERS")), "commentchar") || env.Getenv("GIT_CONFIG_COUNT") != "" {
		return true
	}
	var files []string
	if env.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		if f := env.Getenv("GIT_CONFIG_SYSTEM"); f != "" {
			files = append(files, f)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	if f := env.Getenv("GIT_CONFIG_GLOBAL"); f != "" {
		files = append(files, f)
	} else {
		home := env.Getenv("HOME")
		xdg := env.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	gitDir := env.Getenv("GIT_DIR")
	if gitDir != "" {
		gitDir = abs(env, gitDir)
	} else {
		dot := filepath.Join(repoRoot(env.Dir), ".git")
		st, err := os.Stat(dot)
		switch {
		case err != nil:
			return true // no repository found our way: let git decide
		case st.IsDir():
			gitDir = dot
		default:
			data, err := os.ReadFile(dot)
			d, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
			if err != nil || !ok {
				return true
			}
			if !filepath.IsAbs(d) {
				d = filepath.Join(filepath.Dir(dot), d)
			}
			gitDir = d
		}
	}
	files = append(files, filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree"))
	if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		d := strings.TrimSpace(string(common))
		if !filepath.IsAbs(d) {
			d = filepath.Join(gitDir, d)
		}
		files = append(files, filepath.Join(d, "config"), filepath.Join(d, "config.worktree"))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return true
		}
		low := strings.ToLower(string(data))
		if strings.Contains(low, "commentchar") || strings.Contains(low, "[include") {
			return true
		}
	}
	return false
}
