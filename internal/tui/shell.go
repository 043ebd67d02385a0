package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentutils/agentutils/internal/pipeline"
)

// shellDone is the end of a !CMD.
type shellDone struct {
	sh      pipeline.Shell
	exclude bool
	err     error
}

// shell runs !CMD with the bash tool (in the sandbox, confined to the
// working directory) and records it in the session, so that the model
// sees its output with the next prompt; !!CMD is recorded out of the
// model's context.
func (m *Model) shell(text string) tea.Cmd {
	exclude := strings.HasPrefix(text, "!!")
	command := strings.TrimSpace(strings.TrimLeft(text, "!"))
	if command == "" {
		m.print(red.Render("!: a command to run, as in !git status (!!: kept out of the model's context)"))
		return nil
	}
	m.print(accent.Render("! ") + bold.Render(command))
	m.phase, m.busyFor = busy, "running "+clip(command, 40)
	a := m.a
	file, sandbox, now := a.File, a.Sandbox, m.now()
	return func() tea.Msg {
		ctx := context.Background()
		sh, err := a.Stages.RunShell(ctx, command, sandbox)
		if err == nil {
			err = a.Stages.AppendShell(ctx, file, sh, exclude, now)
		}
		return shellDone{sh: sh, exclude: exclude, err: err}
	}
}

func (m *Model) shellDone(d shellDone) tea.Cmd {
	m.phase, m.busyFor = idle, ""
	if d.err != nil {
		m.fail("!", d.err)
		return m.next()
	}
	lines := strings.Split(d.sh.Output, "\n")
	if len(lines) > 20 {
		m.print(dim.Render(fmt.Sprintf("  … %d more lines", len(lines)-20)))
		lines = lines[len(lines)-20:]
	}
	if d.sh.Output != "" {
		for i, l := range lines {
			lines[i] = "  " + clip(strings.ReplaceAll(l, "\t", "    "), m.width-2)
		}
		m.print(strings.Join(lines, "\n"))
	}
	foot := "  in the model's context with the next prompt"
	if d.exclude {
		foot = "  kept out of the model's context"
	}
	if d.sh.ExitCode != 0 {
		foot = fmt.Sprintf("  exit %d ·%s", d.sh.ExitCode, foot[1:])
	}
	m.print(dim.Render(foot))
	return m.next()
}
