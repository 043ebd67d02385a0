package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/lib/exit"
)

// checkCLIFlag runs CheckCLI in a built binary. It is not listed in
// --help, the man page or the completion scripts: it checks those, and is
// for packagers and make man-check, not for daily use.
const checkCLIFlag = "--check-cli"

func checkCLIMain(spec Spec, env *Env) int {
	name := spec(&Env{Getenv: env.Getenv, Now: env.Now, Stdin: strings.NewReader(""),
		Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer)}).Name
	dir, err := os.MkdirTemp("", name+"-check-cli-")
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: %v\n", name, err)
		return exit.Failure
	}
	defer os.RemoveAll(dir)
	problems := CheckCLI(spec, dir)
	for _, p := range problems {
		fmt.Fprintf(env.Stderr, "%s: %s\n", name, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(env.Stderr, "%s: %d problems in the command line's definitions\n", name, len(problems))
		return exit.Failure
	}
	fmt.Fprintf(env.Stdout, "%s: command line ok (arguments, help topics, --man, bash/zsh/fish completion)\n", name)
	return exit.OK
}

// command is one command path with what the definitions say it offers.
type command struct {
	words   []string // below the program
	cmds    []string // subcommand names (help included where urfave adds it)
	flags   []string
	args    string // ArgsUsage
	runs    bool   // has an action of its own
	parents bool   // has subcommands
}

func runArgs(spec Spec, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	env := &Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Now: func() time.Time { return time.Unix(0, 0) },
		Dir: os.TempDir(),
	}
	code := Run(context.Background(), spec, env, args)
	return code, out.String(), errb.String()
}

func visible(fs []cli.Flag) []string {
	var out []string
	for _, f := range fs {
		if visibleFlag(f) {
			out = append(out, FlagNames(f)...)
		}
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

// CheckCLI checks the command line an application's definitions promise,
// by running the application in-process: arguments beyond what a command
// takes are usage errors, unknown help topics are usage errors, --man
// renders, and the bash, zsh and fish completion scripts offer every
// command, subcommand and flag (run in each shell installed; dir holds
// their scripts). It returns the problems found, none when all hold. Each
// command's tests run it on its definitions, and `CMD --check-cli` runs it
// in a built binary (make man-check), whose build tags the tests lack.
func CheckCLI(spec Spec, dir string) []string {
	a := spec(&Env{Getenv: func(string) string { return "" }, Now: time.Now, Stdin: strings.NewReader(""),
		Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer)})
	cmds := commands(a)
	problems := checkArguments(spec, a.Name, cmds)
	problems = append(problems, checkHelp(spec, a.Name, cmds)...)
	for _, shell := range []string{"bash", "zsh", "fish"} {
		problems = append(problems, checkCompletion(spec, a.Name, cmds, shell, dir)...)
	}
	return problems
}

func checkArguments(spec Spec, name string, cmds []command) []string {
	var p []string
	for _, c := range cmds {
		if !c.runs || strings.Contains(c.args, "...") || strings.Contains(c.args, "…") {
			continue
		}
		args := append([]string{name}, c.words...)
		for i := 0; i <= len(strings.Fields(c.args)); i++ {
			args = append(args, fmt.Sprintf("zz-extra-%d", i))
		}
		code, out, errs := runArgs(spec, args...)
		if code != exit.Usage || !strings.Contains(errs, "unexpected argument") {
			p = append(p, fmt.Sprintf("%s: exit %d, stderr %q; want %d and \"unexpected argument\"", strings.Join(args, " "), code, errs, exit.Usage))
		}
		if out != "" && !strings.HasPrefix(out, `{"type":"error"`) {
			p = append(p, fmt.Sprintf("%s: wrote %q", strings.Join(args, " "), out))
		}
	}
	return p
}

func checkHelp(spec Spec, name string, cmds []command) []string {
	var p []string
	for _, c := range cmds {
		if !c.parents {
			continue
		}
		args := append(append([]string{name}, c.words...), "help", "zz-no-such-topic")
		if code, _, errs := runArgs(spec, args...); code != exit.Usage {
			p = append(p, fmt.Sprintf("%s: exit %d (%s), want %d", strings.Join(args, " "), code, errs, exit.Usage))
		}
	}
	if code, out, _ := runArgs(spec, name, "--man"); code != 0 || !strings.HasPrefix(out, ".TH ") {
		p = append(p, fmt.Sprintf("%s --man: exit %d, %.40q", name, code, out))
	}
	return p
}

// checkCompletion: the script names every command and flag, and the shell
// (when installed) completes each command path to exactly its flags and
// its subcommands.
func checkCompletion(spec Spec, name string, cmds []command, shell, dir string) []string {
	code, script, errs := runArgs(spec, name, "--generate-completion", shell)
	if code != 0 {
		return []string{fmt.Sprintf("--generate-completion %s: exit %d: %s", shell, code, errs)}
	}
	var p []string
	for _, c := range cmds {
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
				p = append(p, fmt.Sprintf("%s completion lacks %q (%s)", shell, w, strings.Join(c.words, " ")))
			}
		}
	}
	sh, err := exec.LookPath(shell)
	if err != nil {
		return p // not installed: the script is checked by content only
	}
	file := filepath.Join(dir, name+"."+shell)
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		return append(p, err.Error())
	}
	// One shell process asks for the flags ("-") and the commands ("")
	// after every command path, one answer per line.
	var drv strings.Builder
	for _, c := range cmds {
		for _, cur := range []string{"-", ""} {
			drv.WriteString(driver(shell, append(append([]string{name}, c.words...), cur)))
		}
	}
	empty := filepath.Join(dir, "empty-"+shell) // no files to offer
	if err := os.MkdirAll(empty, 0o755); err != nil {
		return append(p, err.Error())
	}
	cmd := exec.Command(sh, shellArgs(shell, file, drv.String())...)
	cmd.Dir = empty
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir)
	got, err := cmd.CombinedOutput()
	if err != nil {
		return append(p, fmt.Sprintf("%s: %v\n%s", shell, err, got))
	}
	lines := strings.Split(string(got), "\n")
	i := 0
	for _, c := range cmds {
		for _, want := range []string{sorted(c.flags), sorted(c.cmds)} {
			if i >= len(lines) {
				return append(p, fmt.Sprintf("%s: too few answers:\n%s", shell, got))
			}
			if g := sorted(strings.Fields(lines[i])); g != want {
				p = append(p, fmt.Sprintf("%s: %s %s <TAB>: got\n  %s\nwant\n  %s", shell, name, strings.Join(c.words, " "), g, want))
			}
			i++
		}
	}
	return p
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
