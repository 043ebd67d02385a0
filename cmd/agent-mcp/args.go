package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
)

// permute moves the flags of a subcommand in front of its arguments, so
// `agent-mcp call s t '{}' --text` works (urfave/cli v2 stops parsing flags
// at the first argument). Everything after "--" stays an argument.
func permute(args []string) []string {
	if len(args) < 2 {
		return args
	}
	a := newApp(&app.Env{Getenv: func(string) string { return "" }})
	out := []string{args[0]}
	i := 1
	// Global flags and the (nested) subcommand names.
	cmds := a.Commands
	var cmd *cli.Command
	for i < len(args) {
		t := args[i]
		if strings.HasPrefix(t, "-") {
			out = append(out, t)
			i++
			continue
		}
		var next *cli.Command
		for _, c := range cmds {
			if c.HasName(t) {
				next = c
			}
		}
		if next == nil {
			break
		}
		out = append(out, t)
		cmd, cmds = next, next.Subcommands
		i++
		if len(cmds) == 0 {
			break
		}
	}
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, pos []string
	for ; i < len(args); i++ {
		t := args[i]
		switch {
		case t == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case t == "-" || !strings.HasPrefix(t, "-"):
			pos = append(pos, t)
		default:
			flags = append(flags, t)
			name := strings.TrimLeft(t, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		}
	}
	out = append(out, flags...)
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}
