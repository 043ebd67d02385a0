package app

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/lib/exit"
)

func completionCommand(a *cli.App) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "bash|zsh|fish",
		Description: "Load it in your shell, for example:\n\n" +
			"   source <(" + a.Name + " completion bash)\n" +
			"   " + a.Name + " completion fish > ~/.config/fish/completions/" + a.Name + ".fish",
		Action: func(c *cli.Context) error {
			shell := c.Args().First()
			var s string
			switch shell {
			case "bash":
				s = strings.ReplaceAll(bashCompletion, "PROG", a.Name)
			case "zsh":
				s = strings.ReplaceAll(zshCompletion, "PROG", a.Name)
			case "fish":
				f, err := a.ToFishCompletion()
				if err != nil {
					return err
				}
				s = f
			default:
				return exit.Errorf(exit.Usage, "%w %q: choose bash, zsh or fish", errUnknownShell, shell)
			}
			_, err := fmt.Fprint(c.App.Writer, s)
			return err
		},
	}
}

func manCommand(a *cli.App) *cli.Command {
	return &cli.Command{
		Name:        "man",
		Usage:       "print the man page (roff) of " + a.Name,
		Description: "For example: " + a.Name + " man | man -l -",
		Action: func(c *cli.Context) error {
			_, err := fmt.Fprint(c.App.Writer, Man(a))
			return err
		},
	}
}

const bashCompletion = `# bash completion for PROG (source this file)
_PROG_complete() {
  local cur words
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  words=("${COMP_WORDS[@]:0:$COMP_CWORD}")
  local opts
  if [[ "$cur" == -* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
}
complete -o bashdefault -o default -F _PROG_complete PROG
`

const zshCompletion = `#compdef PROG
_PROG() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == -* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _PROG PROG
`
