package app

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/lib/exit"
)

// Man renders the section-1 man page of an application from its command
// definitions: name, synopsis, description (examples kept as laid out),
// options, each command with its own usage, description and options, and
// the exit-status table. The output has no date, so committed pages are
// stable. It is our own roff rather than urfave/cli's ToMan: that one goes
// through a markdown renderer (blackfriday, md2man) linked into every
// binary and run at start-up, and it leaves out the commands' descriptions.
// Measured when it replaced ToMan (with the urfave_cli_no_docs build tag):
// 0.3–0.4 MB less resident per process, `agent-session --version` 3.6 →
// 2.8 ms.
func Man(a *cli.App) string {
	var m manWriter
	m.line(".TH " + roffText(strings.ToUpper(a.Name)) + " 1")
	m.line(".nh")
	m.line(".SH NAME")
	m.line(roffText(a.Name) + ` \- ` + roffText(a.Usage))
	m.line(".SH SYNOPSIS")
	m.synopsis(a.Name, a.VisibleFlags(), a.ArgsUsage, ownCommands(a.VisibleCommands()))
	if a.Description != "" {
		m.line(".SH DESCRIPTION")
		m.prose(a.Description)
	}
	if fs := a.VisibleFlags(); len(fs) > 0 {
		m.line(".SH OPTIONS")
		m.flags(fs)
	}
	if cmds := ownCommands(a.VisibleCommands()); len(cmds) > 0 {
		m.line(".SH COMMANDS")
		m.commands(a.Name, cmds)
	}
	m.line(".SH EXIT STATUS")
	for _, r := range exit.Table {
		m.line(".TP")
		m.line(fmt.Sprintf(`\fB%d\fR`, r.Code))
		m.line(roffText(r.Meaning))
	}
	m.line(".PP")
	m.line("Any other status must be treated as a failure.")
	return m.b.String()
}

type manWriter struct{ b strings.Builder }

func (m *manWriter) line(s string) {
	m.b.WriteString(s)
	m.b.WriteByte('\n')
}

func (m *manWriter) synopsis(path string, flags []cli.Flag, args string, cmds []*cli.Command) {
	s := `\fB` + roffText(path) + `\fR`
	if len(flags) > 0 {
		s += ` [\fIOPTIONS\fR]`
	}
	switch {
	case len(cmds) > 0:
		s += ` \fICOMMAND\fR [\fIARGS\fR]`
	case args != "":
		s += " " + roffText(args)
	}
	m.line(s)
}

func (m *manWriter) commands(parent string, cmds []*cli.Command) {
	for _, c := range cmds {
		path := parent + " " + c.Name
		m.line(`.SS "` + roffText(strings.Join(c.Names(), ", ")) + `"`)
		m.synopsis(path, c.VisibleFlags(), c.ArgsUsage, ownCommands(c.VisibleCommands()))
		m.line(".PP")
		m.line(roffText(c.Usage) + ".")
		if c.Description != "" {
			m.prose(c.Description)
		}
		if fs := c.VisibleFlags(); len(fs) > 0 {
			m.line(".PP")
			m.line("Options:")
			m.flags(fs)
		}
		m.commands(path, ownCommands(c.VisibleCommands()))
	}
}

// prose writes a description: paragraphs filled, and lines indented by
// spaces (the examples) kept as they are.
func (m *manWriter) prose(text string) {
	inExample, para := false, false
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		example := strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")
		switch {
		case strings.TrimSpace(l) == "":
			if inExample {
				m.line(".EE")
				inExample = false
			}
			para = false
		case example:
			if !inExample {
				m.line(".PP")
				m.line(".EX")
				inExample = true
			}
			m.line(roffText(l))
		default:
			if inExample {
				m.line(".EE")
				inExample, para = false, false
			}
			if !para {
				m.line(".PP")
				para = true
			}
			m.line(roffText(l))
		}
	}
	if inExample {
		m.line(".EE")
	}
}

// flags writes each flag as a tagged paragraph, in the words of its --help
// line (urfave/cli's FlagStringer: names and placeholder, tab, usage).
func (m *manWriter) flags(fs []cli.Flag) {
	for _, f := range fs {
		names, usage, _ := strings.Cut(f.String(), "\t")
		if i := strings.Index(names, " [ "); i >= 0 { // a repeatable flag's hint
			names = names[:i]
			if !strings.Contains(usage, "repeat") {
				usage += " (may be repeated)"
			}
		}
		usage = strings.TrimSuffix(usage, " (default: false)")
		m.line(".TP")
		m.line(`\fB` + roffText(names) + `\fR`)
		m.line(roffText(usage))
	}
}

// ownCommands leaves out the commands every command has (help, man,
// completion), which need no page of their own.
func ownCommands(cmds []*cli.Command) []*cli.Command {
	var out []*cli.Command
	for _, c := range cmds {
		if c.Name != "help" && c.Name != "man" && c.Name != "completion" {
			out = append(out, c)
		}
	}
	return out
}

// roffText escapes text for roff: backslashes, hyphens (so option names
// copy and paste as typed), a leading dot or quote that would be read as a
// request, and characters beyond ASCII as \[uXXXX] (troff reads bytes).
func roffText(s string) string {
	var b strings.Builder
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		b.WriteString(`\&`)
	}
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r > 0x7f:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
