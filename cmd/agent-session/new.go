package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/session"
)

func newCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "new",
		Usage: `create a session file (header written) and print {"file","id"}`,
		Description: `Creates <sessions>/--<encoded cwd>--/<timestamp>_<id>.jsonl with its header.

Examples:
   S=$(agent-session new | jq -r .file)
   agent-session new --title "refactor parser" --cwd ~/src/app
   agent-session new --parent "$S" --parent-tool-call toolu_01 --session-dir "${S%.jsonl}"
   agent-session new --open | jq -r .file       # the stream agent-chat reads: its header names the file`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "cwd", Usage: "the project `DIR` recorded in the header (default: the working directory)"},
			&cli.StringFlag{Name: "session-dir", Usage: "create the file in `DIR` instead of the default directory for the cwd"},
			&cli.StringFlag{Name: "parent", Usage: "record `SESSION` (an id or a file) as the parent session"},
			&cli.StringFlag{Name: "parent-tool-call", Usage: "record tool call `ID` of the parent session as the call that started this one (a sub-agent's session)"},
			&cli.StringFlag{Name: "title", Usage: "the session's `NAME`"},
			&cli.BoolFlag{Name: "zst", Usage: "create a zstd-compressed .jsonl.zst file"},
			&cli.BoolFlag{Name: "open", Usage: "print the new session's stream, as agent-session open prints it (its header names the file), instead of {\"file\",\"id\"}"},
		},
		Action: func(c *cli.Context) error {
			cwd := cwdFlag(c, env)
			dir := sessionsDirFor(env, cwd)
			if c.IsSet("session-dir") {
				dir = absPath(env, c.String("session-dir"))
			}
			extra := map[string]string{"parentSession": c.String("parent"), "parentToolCallId": c.String("parent-tool-call"), "title": c.String("title")}
			file, id, err := createSession(env, dir, cwd, extra, nil, c.Bool("zst"))
			if err != nil {
				return err
			}
			if c.Bool("open") { // one process less before agent-chat: nothing to compact yet
				return sessionstore.Open(sessionstore.OpenOptions{Path: file, Out: env.Stdout, Now: env.Now, Dir: env.Dir,
					Warn: func(m string) { app.Warnf(c, "%s", m) }})
			}
			return printJSON(c, map[string]string{"file": file, "id": id})
		},
	}
}

// createSession writes a new session file (header + entries) in dir and
// returns its path and id. extra holds optional header fields (empty ones
// are left out).
func createSession(env *app.Env, dir, cwd string, extra map[string]string, entries [][]byte, zst bool) (string, string, error) {
	id := newSessionID(env)
	now := env.Now()
	obj, err := session.ParseObject(session.NewHeader(id, session.FormatTime(now), cwd))
	if err != nil {
		return "", "", err
	}
	for _, k := range []string{"title", "parentSession", "parentToolCallId"} {
		if v := extra[k]; v != "" {
			obj.Set(k, mustJSON(v))
		}
	}
	content := append(obj.Bytes(), '\n')
	for _, e := range entries {
		content = append(append(content, e...), '\n')
	}
	name := session.FileTimestamp(now) + "_" + id + ".jsonl"
	if zst {
		name += ".zst"
	}
	file := filepath.Join(dir, name)
	if _, err := os.Stat(file); err == nil {
		return "", "", fmt.Errorf("%s already exists", file)
	}
	if err := sessionstore.WriteFileAtomic(file, content); err != nil {
		return "", "", err
	}
	return file, id, nil
}

// printJSON writes one compact JSON line.
func printJSON(c *cli.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.App.Writer, "%s\n", b)
	return err
}
