package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/recordlimit"
	"github.com/agentutils/agentutils/internal/sessionstore"
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
rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl; gzipped files too), detected from its
content unless --from says, and writes a version 3 session into the sessions directory of its
cwd (or -o FILE). Prints {"file","id"}, with "agents" when sub-agents were imported.

Kept as messages: prompts (queued ones too), assistant text, thinking, tool calls and their
results, images. Claude Code's lines of one API message become one assistant message (its usage
counted once) and tool results follow it; a compaction becomes a compaction entry. Codex's items
of one response become one assistant message; apply_patch input, list and object outputs and
input images are kept.

Sub-agents: Claude Code sidechain records, and the <uuid>/subagents/agent-*.jsonl files beside
the transcript, become session files of their own whose header names the main one
(parentSession): s.<agent>.jsonl beside -o s.jsonl, or in the sessions directory. A sub-agent's
file given alone imports as a session.

Kept as custom entries (in the file, not sent to the model): Claude Code's summary, system and
attachment records and record types it does not know; Codex's instructions, developer messages,
session_meta, compacted, web_search_call, tool_search_*, agent_message, image_generation_call
and item types it does not know. Not imported, and reported on stderr with a count per kind:
Claude Code's progress, file-history-snapshot, queue-operation and api-request* records (copies
of the requests sent), Codex's event_msg and turn_context records (their token counts, model and
cwd are read). Lines that are not JSON are reported with their line numbers.

Examples:
   agent-session import ~/.claude/projects/-home-me-app/5b1c2d3e-8f4a-4c1b-9d2e-7a6b5c4d3e2f.jsonl
   agent-session import --from codex rollout-2026-11-02T10-00-00-5b1c2d3e-8f4a-4c1b-9d2e-7a6b5c4d3e2f.jsonl -o codex.jsonl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Value: "auto", Usage: "`FORMAT` of the input: auto, claude or codex"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the session to `FILE` (default: the sessions directory)"},
		},
		Action: func(c *cli.Context) error { return runImport(c, env) },
	}
}

func runImport(c *cli.Context, env *app.Env) error {
	path, err := needPath(c, env, "FILE")
	if err != nil {
		return err
	}
	lines, err := readTranscript(path)
	if err != nil {
		return err
	}
	format := c.String("from")
	if format == "auto" {
		for _, ln := range lines {
			if len(bytes.TrimSpace(ln)) > 0 {
				format = transcript.Detect(ln)
				break
			}
		}
	}
	opt := transcript.Options{NewID: func() string { return sessionstore.NewEntryID(nil) }, Now: env.Now(), Cwd: env.Dir}
	var res transcript.Result
	switch format {
	case "claude":
		res, err = transcript.FromClaude(lines, opt)
	case "codex":
		res, err = transcript.FromCodex(lines, opt)
	case "pi":
		return exit.Errorf(exit.Usage, "%s is already a session file: open it directly", path)
	default:
		return exit.Errorf(exit.Usage, "%s: not a Claude Code or Codex transcript (use --from claude|codex to say which)", path)
	}
	report(c, path, res)
	if err != nil {
		return exit.Wrap(exit.Usage, fmt.Errorf("%s: %v", path, err))
	}
	sessions := res.Sessions
	if format == "claude" {
		subs, err := importSubagents(c, path, opt)
		if err != nil {
			return err
		}
		sessions = append(sessions, subs...)
	}
	return writeImported(c, env, sessions)
}

// importSubagents imports Claude Code 2.x's sub-agent files beside the
// transcript: <dir>/<uuid>/subagents/agent-*.jsonl.
func importSubagents(c *cli.Context, path string, opt transcript.Options) ([]transcript.Session, error) {
	var sessions []transcript.Session
	files, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents", "agent-*.jsonl"))
	sort.Strings(files)
	for _, f := range files {
		sub, err := readTranscript(f)
		if err != nil {
			return nil, err
		}
		r, err := transcript.FromClaude(sub, opt)
		report(c, f, r)
		if err != nil {
			app.Warnf(c, "%s: skipped: %v", f, err)
			continue
		}
		for _, s := range r.Sessions {
			if s.Agent == "" {
				s.Agent = strings.TrimPrefix(strings.TrimSuffix(filepath.Base(f), ".jsonl"), "agent-")
			}
			sessions = append(sessions, s)
		}
	}
	return sessions, nil
}

// readTranscript reads a transcript's lines, gunzipping a gzipped one.
func readTranscript(path string) ([][]byte, error) {
	data, err := readGunzipped(path)
	if err != nil {
		return nil, err
	}
	return bytes.Split(bytes.TrimRight(data, "\n"), []byte{'\n'}), nil
}

// readGunzipped reads a file whole, decompressed when it is gzip, each
// line within the record limit.
func readGunzipped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, exit.Wrap(exit.Usage, err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, exit.Errorf(exit.Usage, "%s: is a directory, not a transcript file", path)
	}
	data, err := recordlimit.ReadAll(f, path, sessionstore.MaxRecord)
	f.Close()
	if err != nil {
		return nil, err
	}
	return gunzipped(data, path)
}

// gunzipped is data decompressed when it is gzip (by its magic bytes, as
// transcripts and archived sessions are often kept), else data itself.
func gunzipped(data []byte, path string) ([]byte, error) {
	if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err == nil {
		data, err = recordlimit.ReadAll(zr, path, sessionstore.MaxRecord)
	}
	if err != nil {
		if exit.Code(err) == exit.Usage {
			return nil, err
		}
		return nil, exit.Errorf(exit.Usage, "%s: %v", path, err)
	}
	return data, nil
}

// report tells on stderr what was not imported: one line per kind.
func report(c *cli.Context, path string, res transcript.Result) {
	for _, p := range res.Problems {
		app.Warnf(c, "%s:%d: skipped: %v", path, p.Line, p.Err)
	}
	for _, t := range res.Skipped {
		why := ""
		if t.Why != "" {
			why = ": " + t.Why
		}
		app.Warnf(c, "%s: not imported: %d %s (first on line %d)%s", path, t.Count, t.Kind, t.First, why)
	}
	if len(res.Custom) > 0 {
		var kinds []string
		for _, t := range res.Custom {
			kinds = append(kinds, fmt.Sprintf("%d %s", t.Count, t.Kind))
		}
		app.Warnf(c, "%s: kept as custom entries (not sent to the model): %s", path, strings.Join(kinds, ", "))
	}
}

// writeImported writes the main session and its sub-agents' sessions; none
// is written when any of the files exists already.
func writeImported(c *cli.Context, env *app.Env, sessions []transcript.Session) error {
	main := absPath(env, c.String("output"))
	if main == "" {
		h := sessions[0].Header
		main = sessionsDirFor(env, orDefault(h.Cwd, env.Dir)) + "/" + session.FileTimestamp(env.Now()) + "_" + h.ID + ".jsonl"
	}
	files := make([]string, len(sessions))
	files[0] = main
	for i, s := range sessions[1:] {
		if c.String("output") != "" {
			files[i+1] = strings.TrimSuffix(main, ".jsonl") + "." + s.Agent + ".jsonl"
		} else {
			files[i+1] = filepath.Join(filepath.Dir(main), session.FileTimestamp(env.Now())+"_"+s.Header.ID+".jsonl")
		}
	}
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			return exit.Errorf(exit.Usage, "%s already exists", f)
		}
	}
	type written struct {
		File  string `json:"file"`
		ID    string `json:"id"`
		Agent string `json:"agent,omitempty"`
	}
	var agents []written
	for i, s := range sessions {
		h := s.Header
		if i > 0 {
			h.ParentSession = main
			agents = append(agents, written{files[i], h.ID, s.Agent})
		}
		hb, err := json.Marshal(h)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		session.WriteRecord(&buf, hb)
		for _, e := range s.Entries {
			if err := session.WriteRecord(&buf, e); err != nil {
				return err
			}
		}
		if err := sessionstore.WriteFileAtomic(files[i], buf.Bytes()); err != nil {
			return err
		}
	}
	return printJSON(c, struct {
		File   string    `json:"file"`
		ID     string    `json:"id"`
		Agents []written `json:"agents,omitempty"`
	}{main, sessions[0].Header.ID, agents})
}
