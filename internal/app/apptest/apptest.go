// Package apptest checks the command line every agent-* command shares,
// from its definitions: arguments beyond what a command takes are usage
// errors, unknown help topics are usage errors, --man renders, and the
// bash, zsh and fish completion scripts offer every command, subcommand
// and flag (run in each shell that is installed; bash always is).
package apptest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/exit"
)

// command is one command path with what the definitions say it offers.
type command struct {
	words   []string // below the program
	cmds    []string // subcommand names (help included where urfave adds it)
	flags   []string
	args    string // ArgsUsage
	runs    bool   // has an action of its own
	parents bool   // has subcommands
}

func run(spec app.Spec, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	env := &app.Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Now: func() time.Time { return time.Unix(0, 0) },
		Dir: os.TempDir(),
	}
	code := app.Run(context.Background(), spec, env, args)
	return code, out.String(), errb.String()
}

func visible(fs []cli.Flag) []string {
	var out []string
	for _, f := range fs {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		out = append(out, app.FlagNames(f)...)
	}
	return out
}

func commands(a *cli.App) []command {
	root := command{runs: a.Action != nil, args: a.ArgsUsage, parents: len(a.Commands) > 0,
		flags: append(visible(a.Flags), "--man", "--generate-completion", "--help", "-h", "--version", "-V")}
	var out []command
	var walk func(words []string, cs []*cli.Command) []string
	walk = func(words []string, cs []*cli.Command) []string {
		var sub []string
		for _, c := range cs {
			if c.Hidden {
				continue
			}
			sub = append(sub, c.Names()...)
			w := append(append([]string(nil), words...), c.Name)
			cmd := command{words: w, args: c.ArgsUsage, runs: c.Action != nil && len(c.Subcommands) == 0,
				parents: len(c.Subcommands) > 0, flags: append(visible(c.Flags), "--help", "-h")}
			i := len(out)
			out = append(out, cmd)
			if c.Name == "help" {
				continue
			}
			out[i].cmds = walk(w, c.Subcommands) // (its "help" is not offered)
		}
		return sub
	}
	root.cmds = walk(nil, a.Commands)
	if root.parents {
		root.cmds = append(root.cmds, "help", "h")
	}
	return append([]command{root}, out...)
}

func sorted(l []string) string {
	c := append([]string(nil), l...)
	sort.Strings(c)
	return strings.Join(c, " ")
}

// Check runs every check over the application spec builds.
func Check(t *testing.T, spec app.Spec) {
	t.Helper()
	a := spec(&app.Env{Getenv: func(string) string { return "" }, Now: time.Now, Stdin: strings.NewReader(""),
		Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer)})
	name := a.Name
	cmds := commands(a)

	t.Run("arguments", func(t *testing.T) {
		for _, c := range cmds {
			if !c.runs || strings.Contains(c.args, "...") || strings.Contains(c.args, "…") {
				continue
			}
			args := append([]string{name}, c.words...)
			for i := 0; i <= len(strings.Fields(c.args)); i++ {
				args = append(args, fmt.Sprintf("zz-extra-%d", i))
			}
			code, out, errs := run(spec, args...)
			if code != exit.Usage || !strings.Contains(errs, "unexpected argument") {
				t.Errorf("%s: exit %d, stderr %q; want %d and \"unexpected argument\"", strings.Join(args, " "), code, errs, exit.Usage)
			}
			if out != "" && !strings.HasPrefix(out, `{"type":"error"`) {
				t.Errorf("%s: wrote %q", strings.Join(args, " "), out)
			}
		}
	})

	t.Run("help", func(t *testing.T) {
		for _, c := range cmds {
			if !c.parents {
				continue
			}
			args := append(append([]string{name}, c.words...), "help", "zz-no-such-topic")
			if code, _, errs := run(spec, args...); code != exit.Usage {
				t.Errorf("%s: exit %d (%s), want %d", strings.Join(args, " "), code, errs, exit.Usage)
			}
		}
		if code, out, _ := run(spec, name, "--man"); code != 0 || !strings.HasPrefix(out, ".TH ") {
			t.Errorf("%s --man: exit %d, %.40q", name, code, out)
		}
	})

	t.Run("completion", func(t *testing.T) {
		dir := t.TempDir()
		for _, shell := range []string{"bash", "zsh", "fish"} {
			code, script, errs := run(spec, name, "--generate-completion", shell)
			if code != 0 {
				t.Fatalf("--generate-completion %s: exit %d: %s", shell, code, errs)
			}
			for _, c := range cmds { // the script names every command and flag
				for _, w := range append(append([]string(nil), c.cmds...), c.flags...) {
					if shell == "fish" {
						switch {
						case strings.HasPrefix(w, "--"):
							w = "-l '" + w[2:] + "'"
						case strings.HasPrefix(w, "-"):
							w = "-s '" + w[1:] + "'"
						default:
							w = "-a '" + w + "'"
						}
					}
					if !strings.Contains(script, w) {
						t.Errorf("%s completion lacks %q (%s)", shell, w, strings.Join(c.words, " "))
					}
				}
			}
			sh, err := exec.LookPath(shell)
			if err != nil {
				t.Logf("%s not installed: its script is checked by content only", shell)
				continue
			}
			file := filepath.Join(dir, name+"."+shell)
			if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			// One shell process asks for the flags ("-") and the commands ("")
			// after every command path, one answer per line.
			var drv strings.Builder
			for _, c := range cmds {
				for _, cur := range []string{"-", ""} {
					words := append(append([]string{name}, c.words...), cur)
					drv.WriteString(driver(shell, words))
				}
			}
			cmd := exec.Command(sh, shellArgs(shell, file, drv.String())...)
			cmd.Dir = t.TempDir() // no files to offer
			cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir)
			got, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", shell, err, got)
			}
			lines := strings.Split(string(got), "\n")
			i := 0
			for _, c := range cmds {
				for _, want := range []string{sorted(c.flags), sorted(c.cmds)} {
					if i >= len(lines) {
						t.Fatalf("%s: too few answers:\n%s", shell, got)
					}
					if g := sorted(strings.Fields(lines[i])); g != want {
						t.Errorf("%s: %s %s <TAB>: got\n  %s\nwant\n  %s", shell, name, strings.Join(c.words, " "), g, want)
					}
					i++
				}
			}
		}
	})
}

// driver is the shell code that completes words (the last is the word
// under the cursor) and prints the candidates on one line.
func driver(shell string, words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + w + "'"
	}
	fn := "_" + strings.ReplaceAll(words[0], "-", "_")
	switch shell {
	case "bash":
		return fmt.Sprintf("COMP_WORDS=(%s); COMP_CWORD=%d; %s; echo \"${COMPREPLY[*]}\"\n", strings.Join(q, " "), len(words)-1, fn)
	case "zsh":
		return fmt.Sprintf("words=(%s); CURRENT=%d; _r=(); %s; print -r -- \"${_r[*]}\"\n", strings.Join(q, " "), len(words), fn)
	default: // fish: complete -C lists "candidate<TAB>description"
		return fmt.Sprintf("echo (complete -C %s | cut -f1)\n", "'"+strings.Join(words, " ")+"'")
	}
}

func shellArgs(shell, file, drv string) []string {
	switch shell {
	case "bash":
		return []string{"--norc", "--noprofile", "-c", "source " + file + "\n" + drv}
	case "zsh":
		// compadd and _files are the completion system's; here they collect.
		// The real compadd keeps only the candidates matching the word.
		return []string{"-f", "-c", `compadd() { [[ $1 == -- ]] && shift; local w; for w in "$@"; do [[ $w == ${words[CURRENT]}* ]] && _r+=("$w"); done; }
_files() { :; }
compdef() { :; }
source ` + file + "\n" + drv}
	default:
		return []string{"-N", "-c", "source " + file + "\n" + drv}
	}
}
