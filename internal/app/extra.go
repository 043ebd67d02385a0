package app

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/lib/exit"
)

// The flags every command has besides --help and --version. They are flags,
// not subcommands, so a positional argument is always the command's own (a
// prompt, a pattern, a path): 'agent-grep man .' searches for "man".
const (
	versionFlag    = "version" // -V, as in ripgrep: -v stays free for "invert"
	manFlag        = "man"
	completionFlag = "generate-completion"
)

func extraFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: versionFlag, Aliases: []string{"V"}, Usage: "print the version"},
		&cli.BoolFlag{Name: manFlag, Usage: "print the man page (roff): " + "`man -l <(CMD --man)`"},
		&cli.StringFlag{Name: completionFlag, Usage: "print the completion script for `SHELL` (bash, zsh or fish)"},
	}
}

// extraAction answers --man and --generate-completion before the command's
// own action runs (and before its arguments are checked).
func extraAction(a *cli.App, next cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.Bool(versionFlag) {
			_, err := fmt.Fprintf(c.App.Writer, "%s version %s\n", a.Name, a.Version)
			return err
		}
		if c.Bool(manFlag) {
			_, err := fmt.Fprint(c.App.Writer, Man(a))
			return err
		}
		if c.IsSet(completionFlag) {
			s, err := Completion(a, c.String(completionFlag))
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(c.App.Writer, s)
			return err
		}
		return next(c)
	}
}

// maxArgs is how many positional arguments a command's ArgsUsage allows:
// none when it is empty, any number when it has "..." or "…", else one per
// word ("FILE ENTRY [TEXT]" is 3).
func maxArgs(usage string) int {
	if strings.Contains(usage, "...") || strings.Contains(usage, "…") {
		return -1
	}
	return len(strings.Fields(usage))
}

// checkArgs wraps an action so arguments beyond what ArgsUsage names are a
// usage error (exit 2) instead of being ignored.
func checkArgs(name, usage string, next cli.ActionFunc) cli.ActionFunc {
	max := maxArgs(usage)
	return func(c *cli.Context) error {
		if max >= 0 && c.NArg() > max {
			extra := c.Args().Slice()[max]
			if max == 0 {
				return exit.Errorf(exit.Usage, "unexpected argument %q: %s takes none (see '%s --help')", extra, name, name)
			}
			return exit.Errorf(exit.Usage, "unexpected argument %q: %s takes %s (see '%s --help')", extra, name, usage, name)
		}
		return next(c)
	}
}

// node is one command of the tree a completion script knows: its path
// below the program ("" for the program, "hook install"), its subcommand
// names, its flags, and the flags that take a value.
type node struct {
	path   string
	cmds   []string
	flags  []string
	values []string
	descs  map[string]string // flag or command → one-line usage
}

// FlagNames are a flag's names as typed: -x for one letter, --name else.
func FlagNames(f cli.Flag) []string {
	var out []string
	for _, n := range f.Names() {
		if len(n) == 1 {
			out = append(out, "-"+n)
		} else {
			out = append(out, "--"+n)
		}
	}
	return out
}

func flagUsage(f cli.Flag) string {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		return strings.ReplaceAll(d.GetUsage(), "`", "")
	}
	return ""
}

func visibleFlag(f cli.Flag) bool {
	v, ok := f.(cli.VisibleFlag)
	return !ok || v.IsVisible()
}

func addFlags(n *node, fs []cli.Flag) {
	for _, f := range fs {
		if !visibleFlag(f) {
			continue
		}
		for _, name := range FlagNames(f) {
			if _, dup := n.descs[name]; dup {
				continue
			}
			n.flags = append(n.flags, name)
			n.descs[name] = flagUsage(f)
			if TakesValue(f) {
				n.values = append(n.values, name)
			}
		}
	}
}

// tree lists every command path of the application, the program first.
func tree(a *cli.App) []*node {
	root := &node{descs: map[string]string{}}
	addFlags(root, a.Flags)
	out := []*node{root}
	var walk func(parent *node, path string, cs []*cli.Command)
	walk = func(parent *node, path string, cs []*cli.Command) {
		for _, c := range cs {
			if c.Hidden {
				continue
			}
			for _, name := range c.Names() {
				parent.cmds = append(parent.cmds, name)
				parent.descs[name] = c.Usage
			}
			n := &node{path: strings.TrimSpace(path + " " + c.Name), descs: map[string]string{}}
			addFlags(n, c.Flags)
			if !c.HideHelp {
				addFlags(n, []cli.Flag{cli.HelpFlag})
			}
			out = append(out, n)
			if c.Name != "help" { // urfave/cli's one shared help command may list itself
				walk(n, n.path, c.Subcommands)
			}
			for _, alias := range c.Aliases { // an alias reaches the same command
				cp := *n
				cp.path = strings.TrimSpace(path + " " + alias)
				out = append(out, &cp)
			}
		}
	}
	walk(root, "", a.Commands)
	return out
}

// Completion is the completion script of an application for a shell
// (bash, zsh or fish): a static table of every command, subcommand and
// flag, generated from the definitions, that completes without running
// the program. Files are offered where no command or flag fits.
func Completion(a *cli.App, shell string) (string, error) {
	nodes := tree(a)
	fn := "_" + strings.NewReplacer("-", "_").Replace(a.Name)
	var b strings.Builder
	switch shell {
	case "bash", "zsh":
		if shell == "bash" {
			fmt.Fprintf(&b, "# bash completion for %s: source <(%s --generate-completion bash)\n", a.Name, a.Name)
		} else {
			fmt.Fprintf(&b, "#compdef %s\n# zsh completion for %s: put it in $fpath as _%s, or source <(%s --generate-completion zsh)\n", a.Name, a.Name, a.Name, a.Name)
		}
		fmt.Fprintf(&b, "%s_table() {\n  case \"$1\" in\n", fn)
		for _, n := range nodes {
			fmt.Fprintf(&b, "    %s) cmds=%s; flags=%s; vflags=%s ;;\n",
				shQuote(n.path), shQuote(strings.Join(n.cmds, " ")), shQuote(strings.Join(n.flags, " ")), shQuote(strings.Join(n.values, " ")))
		}
		b.WriteString("    *) cmds=''; flags=''; vflags='' ;;\n  esac\n}\n")
		if shell == "bash" {
			b.WriteString(strings.ReplaceAll(bashBody, "FN", fn))
			fmt.Fprintf(&b, "complete -o bashdefault -o default -F %s %s\n", fn, a.Name)
		} else {
			b.WriteString(strings.ReplaceAll(zshBody, "FN", fn))
			fmt.Fprintf(&b, "if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then\n  %s \"$@\"\nelse\n  compdef %s %s\nfi\n", fn, fn, a.Name)
		}
	case "fish":
		fmt.Fprintf(&b, "# fish completion for %s: %s --generate-completion fish > ~/.config/fish/completions/%s.fish\n", a.Name, a.Name, a.Name)
		fmt.Fprintf(&b, "function _%s_table\n    switch \"$argv[1]\"\n", fn)
		for _, n := range nodes {
			fmt.Fprintf(&b, "        case %s\n            set -g __%s_cmds %s\n            set -g __%s_vflags %s\n",
				fishQuote(n.path), fn, fishList(n.cmds), fn, fishList(n.values))
		}
		fmt.Fprintf(&b, "        case '*'\n            set -g __%s_cmds\n            set -g __%s_vflags\n    end\nend\n", fn, fn)
		b.WriteString(strings.ReplaceAll(fishBody, "FN", fn))
		for _, n := range nodes {
			cond := fmt.Sprintf("_%s_at %s", fn, fishQuote(n.path))
			for _, c := range n.cmds {
				fmt.Fprintf(&b, "complete -c %s -n %s -f -a %s -d %s\n", a.Name, fishQuote(cond+" cmd"), fishQuote(c), fishQuote(firstLine(n.descs[c])))
			}
			for _, f := range n.flags {
				opt := "-l " + fishQuote(strings.TrimPrefix(f, "--"))
				if !strings.HasPrefix(f, "--") {
					opt = "-s " + fishQuote(strings.TrimPrefix(f, "-"))
				}
				if contains(n.values, f) {
					opt += " -r"
				}
				fmt.Fprintf(&b, "complete -c %s -n %s %s -d %s\n", a.Name, fishQuote(cond), opt, fishQuote(firstLine(n.descs[f])))
			}
		}
	default:
		return "", exit.Errorf(exit.Usage, "unknown shell %q: choose bash, zsh or fish", shell)
	}
	return b.String(), nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

func fishList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fishQuote(s)
	}
	return strings.Join(q, " ")
}

// The shell side: walk the words before the cursor, skipping flags (and
// the value of a flag that takes one), descending into subcommands until
// the first other argument; then offer the flags of that command for a
// word starting with "-", nothing for a flag's value (the shell's file
// completion), else its subcommands (or files when it has none).
// walkWords is the loop both bash and zsh run (FIRST, CUR and WORDS are
// their index of the first argument, of the cursor, and the words array).
const walkWords = `  local cpath="" w i skip=0 cmds flags vflags
  for ((i = FIRST; i < CUR; i++)); do
    w=${WORDS[i]}
    if ((skip)); then skip=0; continue; fi
    FN_table "$cpath"
    case "$w" in
      --) break ;;
      -*=*) continue ;;
      -*) [[ " $vflags " == *" $w "* ]] && skip=1; continue ;;
    esac
    if [[ " $cmds " == *" $w "* ]]; then cpath="${cpath:+$cpath }$w"; else break; fi
  done
  FN_table "$cpath"
`

var bashBody = `FN() {
  local cur=${COMP_WORDS[COMP_CWORD]}
` + strings.NewReplacer("FIRST", "1", "CUR", "COMP_CWORD", "WORDS", "COMP_WORDS").Replace(walkWords) + `  COMPREPLY=()
  if ((skip)); then return; fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  elif [[ -n $cmds && $i -eq $COMP_CWORD ]]; then
    COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
  fi
}
`

var zshBody = `FN() {
` + strings.NewReplacer("FIRST", "2", "CUR", "CURRENT", "WORDS", "words").Replace(walkWords) + `  local cur=${words[CURRENT]}
  if ((skip)); then _files; return; fi
  if [[ $cur == -* ]]; then
    compadd -- ${=flags}
  elif [[ -n $cmds && $i -eq $CURRENT ]]; then
    compadd -- ${=cmds}
  else
    _files
  fi
}
`

const fishBody = `function _FN_path
    set -l cpath ''
    set -l skip 0
    set -l toks (commandline -opc)
    set -g __FN_stopped 0
    for w in $toks[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        _FN_table "$cpath"
        switch $w
            case '--'
                set -g __FN_stopped 1
                break
            case '-*=*'
                continue
            case '-*'
                if contains -- $w $__FN_vflags
                    set skip 1
                end
                continue
        end
        if contains -- $w $__FN_cmds
            set cpath (string trim -- "$cpath $w")
        else
            set -g __FN_stopped 1
            break
        end
    end
    echo $cpath
end

# _FN_at PATH [cmd]: the words before the cursor select the command PATH
# (and, with cmd, no other argument followed it)
function _FN_at
    set -l p (_FN_path)
    test "$p" = "$argv[1]"; or return 1
    test (count $argv) -lt 2; or test $__FN_stopped = 0
end
`
