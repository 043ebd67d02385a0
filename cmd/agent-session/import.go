package main

import (
	"bufio"
	"bytes"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
	"github.com/agentutils/agentutils/lib/transcript"
)

func importCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "convert a Claude Code or Codex transcript into a session file",
		ArgsUsage: "FILE",
		Description: `Reads a Claude Code project transcript (~/.claude/projects/<dir>/<uuid>.jsonl) or a Codex
rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl), detected from its content unless --from
says, and writes a version 3 session into the sessions directory of its cwd (or -o FILE). Prints
{"file","id"}. Lines that cannot be converted are reported on stderr with their line numbers.

Examples:
   agent-session import ~/.claude/projects/-home-me-app/5b1c….jsonl
   agent-session import --from codex rollout-2026-11-02T10-00-00-….jsonl -o s.jsonl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Value: "auto", Usage: "`FORMAT` of the input: auto, claude or codex"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the session to `FILE` (default: the sessions directory)"},
		},
		Action: func(c *cli.Context) error {
			path, err := needPath(c, env, "FILE")
			if err != nil {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				return exit.Wrap(exit.Usage, err)
			}
			data, err := io.ReadAll(boundLines(f, path))
			f.Close()
			if err != nil {
				return exit.Wrap(exit.Usage, err)
			}
			lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte{'\n'})
			format := c.String("from")
			if format == "auto" {
				for _, ln := range lines {
					if len(bytes.TrimSpace(ln)) > 0 {
						format = transcript.Detect(ln)
						break
					}
				}
			}
			opt := transcript.Options{NewID: func() string { return newEntryID(nil) }, Now: env.Now(), Cwd: env.Dir}
			var header []byte
			var entries [][]byte
			var problems []transcript.Problem
			switch format {
			case "claude":
				header, entries, problems, err = transcript.FromClaude(lines, opt)
			case "codex":
				header, entries, problems, err = transcript.FromCodex(lines, opt)
			case "pi":
				return exit.Errorf(exit.Usage, "%s is already a session file: open it directly", path)
			default:
				return exit.Errorf(exit.Usage, "%s: not a Claude Code or Codex transcript (use --from claude|codex to say which)", path)
			}
			for _, p := range problems {
				app.Warnf(c, "%s:%d: skipped: %v", path, p.Line, p.Err)
			}
			if err != nil {
				return exit.Wrap(exit.Usage, err)
			}
			h, err := session.ParseHeader(header)
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			w := bufio.NewWriter(&buf)
			session.WriteRecord(w, header)
			for _, e := range entries {
				if err := session.WriteRecord(w, e); err != nil {
					return err
				}
			}
			w.Flush()
			out := absPath(env, c.String("output"))
			if out == "" {
				out = sessionsDirFor(env, orDefault(h.Cwd, env.Dir)) + "/" + session.FileTimestamp(env.Now()) + "_" + h.ID + ".jsonl"
			}
			if _, err := os.Stat(out); err == nil {
				return exit.Errorf(exit.Usage, "%s already exists", out)
			}
			if err := writeFileAtomic(out, buf.Bytes()); err != nil {
				return err
			}
			return printJSON(c, map[string]string{"file": out, "id": h.ID})
		},
	}
}
