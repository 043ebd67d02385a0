package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/dirs"
)

func continueCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "continue",
		Usage: "print the path of the session to continue in this directory, creating one if none",
		Description: `Picks this terminal's last session when it belongs to this directory, else the most
recently modified session of the directory, else creates a new one; prints its path.

Example:
   S=$(agent-session continue)
   agent-session open "$S" | agent-chat "go on" | agent-session append "$S"`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "cwd", Usage: "continue in `DIR` (default: the working directory)"},
			&cli.BoolFlag{Name: "json", Usage: `print {"file","id","created"} instead of the path`},
			&cli.BoolFlag{Name: "new", Usage: "always start a new session"},
		},
		Action: func(c *cli.Context) error {
			cwd := cwdFlag(c, env)
			file, created := "", false
			if !c.Bool("new") {
				file = fromBreadcrumb(env, cwd)
				if file == "" {
					infos, err := scanSessions(c, sessionDirsFor(env, cwd), false)
					if err != nil {
						return err
					}
					if len(infos) > 0 {
						file = infos[0].Path
					}
				}
			}
			if file == "" {
				f, _, err := createSession(env, sessionsDirFor(env, cwd), cwd, nil, nil, false)
				if err != nil {
					return err
				}
				file, created = f, true
			}
			writeBreadcrumb(env, cwd, file)
			if c.Bool("json") {
				l, err := sessionstore.Load(file)
				id := ""
				if err == nil {
					id = l.Hdr.ID
				}
				return printJSON(c, map[string]any{"file": file, "id": id, "created": created})
			}
			_, err := c.App.Writer.Write([]byte(file + "\n"))
			return err
		},
	}
}

// terminalID names the terminal this command runs in: the tty of stdin or
// stderr (a pipeline's stdin is not one), else a terminal emulator's window id.
func terminalID(env *app.Env) string {
	for _, fd := range []string{"0", "2"} {
		if t, err := os.Readlink("/proc/self/fd/" + fd); err == nil && strings.HasPrefix(t, "/dev/") && (strings.HasPrefix(t, "/dev/pts/") || strings.HasPrefix(t, "/dev/tty")) {
			return strings.ReplaceAll(strings.TrimPrefix(t, "/dev/"), "/", "-")
		}
	}
	for _, v := range []struct{ env, prefix string }{
		{"KITTY_WINDOW_ID", "kitty-"}, {"TMUX_PANE", "tmux-"}, {"TERM_SESSION_ID", "apple-"}, {"WT_SESSION", "wt-"},
	} {
		if s := env.Getenv(v.env); s != "" {
			return v.prefix + s
		}
	}
	return ""
}

func breadcrumbPath(env *app.Env) string {
	id := terminalID(env)
	if id == "" {
		return ""
	}
	return filepath.Join(dirs.Resolve(env.Getenv).Data, "terminal-sessions", id)
}

// fromBreadcrumb returns the terminal's last session when it is for cwd and still exists.
func fromBreadcrumb(env *app.Env, cwd string) string {
	p := breadcrumbPath(env)
	if p == "" {
		return ""
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	lines := strings.SplitN(strings.TrimSpace(string(b)), "\n", 2)
	if len(lines) != 2 || filepath.Clean(lines[0]) != filepath.Clean(cwd) {
		return ""
	}
	if _, err := os.Stat(lines[1]); err != nil {
		return ""
	}
	return lines[1]
}

// writeBreadcrumb remembers the session for this terminal (best effort).
func writeBreadcrumb(env *app.Env, cwd, file string) {
	if p := breadcrumbPath(env); p != "" {
		sessionstore.WriteFileAtomic(p, []byte(cwd+"\n"+file+"\n"))
	}
}
