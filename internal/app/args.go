package app

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed moves flags that follow positional arguments in front of
// them, so 'agent-session append s.jsonl --tee' means what it says
// (urfave/cli/v2 stops at the first positional argument). A "--" ends the
// flags; "-" is a positional argument (stdin); a flag's value is kept with
// it when the flag takes one.
func interspersed(a *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	rest := args[1:]
	flags := a.Flags
	// Walk down the command path: leading flags stay, command names select.
	cmds := a.Commands
	for len(rest) > 0 {
		tok := rest[0]
		if strings.HasPrefix(tok, "-") && tok != "-" {
			if moved, ok := commandFlagsFirst(flags, cmds, rest); ok {
				rest = moved
				continue
			}
			break
		}
		next := commandNamed(cmds, tok)
		if next == nil {
			break
		}
		out = append(out, tok)
		rest = rest[1:]
		flags, cmds = next.Flags, next.Subcommands
	}
	var fl, pos []string
	for i := 0; i < len(rest); i++ {
		tok := rest[i]
		if tok == "--" {
			pos = append(pos, rest[i+1:]...)
			break
		}
		if !strings.HasPrefix(tok, "-") || tok == "-" {
			pos = append(pos, tok)
			continue
		}
		if !strings.HasPrefix(tok, "--") && len(tok) > 2 && tok[2] != '=' {
			// -C3, -nC1, -Ff FILE: one-letter flags together, the first
			// that takes a value taking the rest (or the next argument),
			// as rg and grep read them
			if split, used, ok := cluster(flags, tok, rest[i+1:]); ok {
				fl = append(fl, split...)
				i += used
				continue
			}
		}
		name := strings.TrimLeft(tok, "-")
		if !strings.Contains(name, "=") && takesValue(flags, name) && i+1 < len(rest) {
			// the value attached, so that one starting with '-' is never
			// read as flags (-e -foo, -r -n)
			i++
			fl = append(fl, tok+"="+rest[i])
			continue
		}
		fl = append(fl, tok)
	}
	if len(fl) == 0 {
		return args
	}
	if len(pos) > 0 {
		// Positionals after "--" so one that starts with '-' is not a flag
		// (a "--" of the user's own ends up here, once).
		return append(append(append(out, fl...), "--"), pos...)
	}
	return append(out, fl...)
}

// commandNamed is the one of cs named name, or nil.
func commandNamed(cs []*cli.Command, name string) *cli.Command {
	for _, c := range cs {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// commandFlagsFirst puts a subcommand's flags typed before its name after
// it ('agent-mcp --trust list' is 'agent-mcp list --trust'): the leading
// flags that this level (flags) does not define, each one the command
// that follows them does. ok is false when rest is not that shape.
func commandFlagsFirst(flags []cli.Flag, cmds []*cli.Command, rest []string) ([]string, bool) {
	i := 0
	for i < len(rest) && strings.HasPrefix(rest[i], "-") && rest[i] != "-" && rest[i] != "--" {
		name, _, eq := strings.Cut(strings.TrimLeft(rest[i], "-"), "=")
		if hasFlag(flags, name) {
			return nil, false
		}
		i++
		if !eq && slices.ContainsFunc(cmds, func(c *cli.Command) bool { return takesValue(c.Flags, name) }) {
			i++ // its value
		}
	}
	if i == 0 || i >= len(rest) {
		return nil, false
	}
	next := commandNamed(cmds, rest[i])
	if next == nil {
		return nil, false
	}
	for _, tok := range rest[:i] {
		if name, _, _ := strings.Cut(strings.TrimLeft(tok, "-"), "="); strings.HasPrefix(tok, "-") && !hasFlag(next.Flags, name) {
			return nil, false
		}
	}
	return append(append([]string{rest[i]}, rest[:i]...), rest[i+1:]...), true
}

// dashDashFirst reports whether args (args[0] is the program) have a "--"
// before their first positional argument (values of a's flags skipped).
func dashDashFirst(a *cli.App, args []string) bool {
	for i := 1; i < len(args); i++ {
		tok := args[i]
		if tok == "--" {
			return true
		}
		if !strings.HasPrefix(tok, "-") || tok == "-" {
			return false
		}
		name := strings.TrimLeft(tok, "-")
		if !strings.Contains(name, "=") && takesValue(a.Flags, name) && (strings.HasPrefix(tok, "--") || len(name) == 1) {
			i++
		}
	}
	return false
}

func takesValue(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return TakesValue(f)
			}
		}
	}
	return false
}

// cluster splits a token of one-letter flags (-nC1) into one token each,
// a value attached to the flag that takes it; used is how many of the
// arguments after it became a value. ok is false when a letter is not a
// flag.
func cluster(flags []cli.Flag, tok string, next []string) (split []string, used int, ok bool) {
	for j := 1; j < len(tok); j++ {
		name := tok[j : j+1]
		if !hasFlag(flags, name) {
			return nil, 0, false
		}
		if !takesValue(flags, name) {
			split = append(split, "-"+name)
			continue
		}
		switch {
		case j+1 < len(tok):
			split = append(split, "-"+name+"="+tok[j+1:])
		case len(next) > 0:
			split, used = append(split, "-"+name+"="+next[0]), 1
		default:
			split = append(split, "-"+name)
		}
		return split, used, true
	}
	return split, 0, true
}

func hasFlag(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
