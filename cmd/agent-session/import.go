package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agentutils/agentutils/internal/app"
	"github.com/agentutils/agentutils/internal/recordlimit"
	"github.com/agentutils/agentutils/internal/sessionstore"
	"github.com/agentutils/agentutils/lib/dirs"
	"github.com/agentutils/agentutils/lib/exit"
	"github.com/agentutils/agentutils/lib/session"
	"github.com/agentutils/agentutils/lib/transcript"
)

func importCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "convert a Claude Code, Codex, Gemini CLI or opencode transcript into a session file",
		ArgsUsage: "FILE",
		Description: `Reads a Claude Code project transcript (~/.claude/projects/<dir>/<uuid>.jsonl), a Codex
rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl), a Gemini CLI chat recording
(~/.gemini/tmp/<project>/chats/session-*.jsonl, or the older .json) or /chat save checkpoint
(~/.gemini/tmp/<project>/checkpoint-<tag>.json), or an opencode session (its storage's
session/<project>/<id>.json, with the message/ and part/ directories beside, or the output of
opencode export); gzipped files too. The format is detected from the content unless --from
says. It writes a version 3 session into the sessions directory of its cwd (or -o FILE) and
prints {"file","id"}, with "agents" when sub-agents were imported.

Kept as messages: prompts (queued ones too), assistant text, thinking, tool calls and their
results, images. Claude Code's lines of one API message become one assistant message (its usage
counted once) and tool results follow it; a compaction becomes a compaction entry. Codex's items
of one response become one assistant message; apply_patch input, list and object outputs and
input images are kept; a tool search is a tool_search call and result, a web search a web_search
call (its action) whose result is its web_search_end event's results. Gemini CLI's messages are read in their last version (a message is written
again as its calls and tokens come); a rewind keeps what it took back on a branch of its own; a
checkpoint has no model nor usage, and its calls without ids are paired with their responses by
name and order. The session's cwd is the directory .project_root beside chats/ names (0.5x),
else the directory import runs in (older versions record only a hash of the project). opencode's model responses (step-start to step-finish) become one
assistant message each, with that step's tokens and cost; a compaction's summary becomes a
compaction entry.

Sub-agents: Claude Code sidechain records, the <uuid>/subagents/agent-*.jsonl files beside the
transcript, and Gemini CLI's chats/<session id>/*.jsonl become session files of their own, laid
out as the task tool writes a sub-agent's: in a directory named after the main file (s/<agent>.jsonl
for -o s.jsonl), the header naming the main file (parentSession) and the Task call whose prompt
the sub-agent got (parentToolCallId), that call's result naming the file (details.session); a
sub-agent no Task call matches is reported. A sub-agent's file given alone imports as a session.

oh-my-pi's session files are pi's, but for images kept as blob references (blob:sha256:…) in its
agent directory's store (~/.omp/agent/blobs): import copies the blobs a session names from there
into agentutils' store and the file into the sessions directory. A pi session file without
references needs no import: open it.

Kept as custom entries (in the file, not sent to the model): Claude Code's summary, system and
attachment records and record types it does not know; Codex's instructions, developer messages,
session_meta, compacted, agent_message, image_generation_call
and item types it does not know; Gemini CLI's metadata, info, error and warning messages, rewinds
and metadata updates; opencode's compaction and subtask parts. Not imported, and reported on
stderr with a count per kind: Claude Code's progress, file-history-snapshot, queue-operation and
api-request* records (copies of the requests sent), Codex's event_msg and turn_context records
(their token counts, model and cwd are read), opencode's step-start, step-finish (their usage
is read), snapshot, patch and retry parts. Lines that are not JSON are reported with their line
numbers.

Examples:
   agent-session import ~/.claude/projects/-home-me-app/5b1c2d3e-8f4a-4c1b-9d2e-7a6b5c4d3e2f.jsonl
   agent-session import --from codex rollout-2026-11-02T10-00-00-5b1c2d3e-8f4a-4c1b-9d2e-7a6b5c4d3e2f.jsonl -o codex.jsonl
   agent-session import ~/.gemini/tmp/*/chats/session-2026-11-02T10-00-5b1c2d3e.jsonl
   agent-session import ~/.local/share/opencode/storage/session/*/ses_5b1c2d3e8ffeA1b2C3d4E5f6G7.json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Value: "auto", Usage: "`FORMAT` of the input: auto, claude, codex, gemini or opencode"},
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
	data, err := readGunzipped(path)
	if err != nil {
		return err
	}
	format := c.String("from")
	if format == "auto" {
		format = detectTranscript(data)
	}
	opt := transcript.Options{NewID: func() string { return sessionstore.NewEntryID(nil) }, Now: env.Now(), Cwd: env.Dir}
	switch format {
	case "claude", "codex", "gemini", "opencode":
	case "pi":
		return importBlobSession(c, env, path, data)
	default:
		return exit.Errorf(exit.Usage, "%s: not a Claude Code, Codex, Gemini CLI or opencode transcript (use --from to say which)", path)
	}
	res, err := convertTranscript(format, path, data, opt)
	if errors.Is(err, errStorage) {
		return err
	}
	report(c, path, res)
	if err != nil {
		return exit.Wrap(exit.Usage, fmt.Errorf("%s: %v", path, err))
	}
	sessions := res.Sessions
	var subs []transcript.Session
	switch format {
	case "claude":
		subs, err = importSubagents(c, path, opt)
	case "gemini":
		subs, err = importGeminiSubagents(c, path, sessions[0].Header.ID, opt)
	}
	if err != nil {
		return err
	}
	all := append(sessions, subs...)
	if format == "claude" && len(all) > 1 {
		for _, a := range transcript.LinkSubagents(all[0], all[1:]) {
			app.Warnf(c, "%s: sub-agent %s: no Task call of the main session has its prompt (imported without parentToolCallId)", path, a)
		}
	}
	return writeImported(c, env, all)
}

var blobRef = regexp.MustCompile(`"blob:sha256:([0-9a-f]{64})"`)

// importBlobSession imports a pi or oh-my-pi session file whose images are
// blob references (oh-my-pi's): the blobs it names are copied from the
// blob store of its agent directory (<agent dir>/blobs beside
// <agent dir>/sessions/<dir>/FILE) into ours, and the file beside our
// sessions. A session without references opens as it is.
func importBlobSession(c *cli.Context, env *app.Env, path string, data []byte) error {
	refs := blobRef.FindAllSubmatch(data, -1)
	if len(refs) == 0 {
		return exit.Errorf(exit.Usage, "%s is already a session file: open it directly", path)
	}
	lines := splitLines(data)
	var h session.Header
	if err := json.Unmarshal(lines[0], &h); err != nil {
		return exit.Errorf(exit.Usage, "%s:1: %v", path, err)
	}
	src := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(absPath(env, path)))), "blobs")
	dst := dirs.Resolve(env.Getenv).Blobs()
	copied := map[string]bool{}
	for _, m := range refs {
		hash := string(m[1])
		if copied[hash] {
			continue
		}
		copied[hash] = true
		if _, err := os.Stat(filepath.Join(dst, hash)); err == nil {
			continue
		}
		blob, err := os.ReadFile(filepath.Join(src, hash))
		if err != nil {
			app.Warnf(c, "%s: blob %s: %v (left as a reference)", path, hash[:12], err)
			continue
		}
		if session.BlobHash(blob) != hash {
			app.Warnf(c, "%s: blob %s: its content does not match its name (left as a reference)", path, hash[:12])
			continue
		}
		if err := sessionstore.WriteFileAtomic(filepath.Join(dst, hash), blob); err != nil {
			return err
		}
	}
	var entries [][]byte
	for _, l := range lines[1:] {
		if len(bytes.TrimSpace(l)) > 0 {
			entries = append(entries, l)
		}
	}
	return writeImported(c, env, []transcript.Session{{Header: h, Entries: entries}})
}

// errStorage marks an opencode session whose storage files could not be
// read (the conversion did not start).
var errStorage = errors.New("opencode storage")

// convertTranscript converts a transcript of a format lib/transcript
// reads: Claude Code's, Codex's, Gemini CLI's (its cwd from .project_root
// when there is one) or opencode's (its storage's files read beside).
func convertTranscript(format, path string, data []byte, opt transcript.Options) (transcript.Result, error) {
	switch format {
	case "claude":
		return transcript.FromClaude(splitLines(data), opt)
	case "gemini":
		if root := geminiProjectRoot(path); root != "" {
			opt.Cwd = root
		}
		return transcript.FromGemini(data, opt)
	case "opencode":
		s, err := readOpencode(path, data)
		if err != nil {
			return transcript.Result{}, fmt.Errorf("%w: %w", errStorage, err)
		}
		return transcript.FromOpencode(s, opt)
	}
	return transcript.FromCodex(splitLines(data), opt)
}

// detectTranscript names the format of a transcript: by its first line,
// or, for the formats that are one JSON document, by the whole.
func detectTranscript(data []byte) string {
	if transcript.IsGemini(data) {
		return "gemini"
	}
	if transcript.IsOpencode(data) != "" {
		return "opencode"
	}
	for _, ln := range splitLines(data) {
		if len(bytes.TrimSpace(ln)) > 0 {
			return transcript.Detect(ln)
		}
	}
	return ""
}

func splitLines(data []byte) [][]byte {
	return bytes.Split(bytes.TrimRight(data, "\n"), []byte{'\n'})
}

// readOpencode reads an opencode session: an export (the file itself), or
// a session info file of opencode's storage, whose messages and parts are
// in message/<session id>/ and part/<message id>/ under the storage
// directory, in the order of their ids (opencode's ids ascend).
func readOpencode(path string, data []byte) (transcript.OpencodeSession, error) {
	var s transcript.OpencodeSession
	if transcript.IsOpencode(data) == "export" {
		if err := json.Unmarshal(data, &s); err != nil {
			return s, exit.Errorf(exit.Usage, "%s: %v", path, err)
		}
		return s, nil
	}
	var info struct{ ID string }
	json.Unmarshal(data, &info)
	s.Info = data
	root := filepath.Dir(filepath.Dir(filepath.Dir(path))) // storage/session/<project>/<id>.json
	msgs, err := readJSONDir(filepath.Join(root, "message", info.ID))
	if err != nil {
		return s, err
	}
	// early versions kept parts flat, part/<part id>.json, naming their message
	flat, err := readJSONDir(filepath.Join(root, "part"))
	if err != nil {
		return s, err
	}
	byMessage := map[string][]json.RawMessage{}
	for _, p := range flat {
		var v struct {
			MessageID string `json:"messageID"`
		}
		json.Unmarshal(p, &v)
		byMessage[v.MessageID] = append(byMessage[v.MessageID], p)
	}
	for _, m := range msgs {
		var mi struct{ ID string }
		json.Unmarshal(m, &mi)
		parts, err := readJSONDir(filepath.Join(root, "part", mi.ID))
		if err != nil {
			return s, err
		}
		s.Messages = append(s.Messages, transcript.OpencodeMessage{Info: m, Parts: append(byMessage[mi.ID], parts...)})
	}
	return s, nil
}

// readJSONDir reads the .json files of a directory in name order; a
// missing directory holds none.
func readJSONDir(dir string) ([]json.RawMessage, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []json.RawMessage
	for _, f := range files {
		data, err := readGunzipped(f)
		if err != nil {
			return nil, err
		}
		if !json.Valid(data) {
			return nil, exit.Errorf(exit.Usage, "%s: not JSON", f)
		}
		out = append(out, data)
	}
	return out, nil
}

// geminiProjectRoot is the project directory of a Gemini CLI recording:
// what .project_root beside its chats/ directory says (0.5x and later), else
// "".
func geminiProjectRoot(path string) string {
	for dir := filepath.Dir(path); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if filepath.Base(dir) == "chats" {
			data, err := os.ReadFile(filepath.Join(filepath.Dir(dir), ".project_root"))
			if err != nil {
				return ""
			}
			return strings.TrimSpace(string(data))
		}
	}
	return ""
}

// importGeminiSubagents imports the chat recordings of a Gemini CLI
// session's sub-agents: chats/<session id>/*.jsonl beside it.
func importGeminiSubagents(c *cli.Context, path, id string, opt transcript.Options) ([]transcript.Session, error) {
	if id == "" {
		return nil, nil
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), id, "*.jsonl"))
	sort.Strings(files)
	var sessions []transcript.Session
	for _, f := range files {
		data, err := readGunzipped(f)
		if err != nil {
			return nil, err
		}
		r, err := transcript.FromGemini(data, opt)
		report(c, f, r)
		if err != nil {
			app.Warnf(c, "%s: skipped: %v", f, err)
			continue
		}
		s := r.Sessions[0]
		s.Agent = strings.TrimSuffix(filepath.Base(f), ".jsonl")
		sessions = append(sessions, s)
	}
	return sessions, nil
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
	return splitLines(data), nil
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
	// sub-agents' files as the task tool lays them out: in a directory
	// beside the main one, named after it
	files := make([]string, len(sessions))
	files[0] = main
	subDir := strings.TrimSuffix(main, ".jsonl")
	for i, s := range sessions[1:] {
		if c.String("output") != "" {
			files[i+1] = filepath.Join(subDir, s.Agent+".jsonl")
		} else {
			files[i+1] = filepath.Join(subDir, session.FileTimestamp(env.Now())+"_"+s.Header.ID+".jsonl")
		}
		if call := s.Header.ParentToolCallID; call != "" {
			transcript.NoteSubagent(sessions[0].Entries, call, files[i+1], s.Header.ID, s.Agent)
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
