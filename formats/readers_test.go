package formats

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/internal/hooks"
	"github.com/agentutils/agentutils/internal/provider"
	"github.com/agentutils/agentutils/internal/testbin"
	"github.com/agentutils/agentutils/lib/event"
	"github.com/agentutils/agentutils/lib/mcpconfig"
	"github.com/agentutils/agentutils/lib/session"
)

// The corpus against the code, as toml-test runs its corpus against a
// TOML parser: every valid/ example must pass through the Go reader or
// writer of its stream, and every invalid/ one must be refused by it —
// for a stream a command reads, with exit 2 and a message naming the line
// (stdin:N:), leaving its file untouched. The schemas (TestCorpus) and the
// code must agree; where they deliberately do not, the case is listed in
// skips with the reason.

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

// skips are the deliberate exceptions, by corpus path: the reader accepts
// what the schema refuses (an invalid/ example) or there is no Go reader.
var skips = map[string]string{
	// agent-session append assigns what a file record must have.
	"session/invalid/entry-without-id.json":     "append gives an entry without an id a fresh one",
	"session/invalid/entry-without-parent.json": "append gives an entry without a parentId the current leaf",
	// Events agent-session append does not persist are passed over, and
	// the event stream is open to new types and members (lib/event.Decode
	// keeps unknown ones); agent-chat --render draws what it knows.
	"events/invalid/compaction-end-without-success.json": "not persisted; readers take what they know of an event",
	"events/invalid/delta-without-index.json":            "not persisted; readers take what they know of an event",
	"events/invalid/error-without-code.json":             "not persisted; an error record without a code is exit 1",
	"events/invalid/suggested-other-reason.json":         "not persisted; readers take what they know of an event",
	"events/invalid/tool-end-without-iserror.json":       "not persisted; readers take what they know of an event",
	"events/invalid/unknown-type.json":                   "new event types pass (the stream grows additively)",
	// The tool protocol's receivers take what they need of a line.
	"tool-protocol/invalid/hello-without-cwd.json":      "agent-tool serve accepts a hello without cwd (the scripts in cmd/agent-tool send one)",
	"tool-protocol/invalid/result-without-iserror.json": "a result without isError decodes as a success (Go's zero value)",
	"tool-protocol/invalid/tool-name-too-long.json":     "tool name length is not checked on receipt",
	// Cassettes are ours; the recorder (internal/provider.Recorder) numbers
	// records, times chunks and redacts keys; the reader takes what replay
	// needs (method, URL, status).
	"cassette/invalid/chunk-without-time.json": "replay needs no chunk times",
	"cassette/invalid/key-not-redacted.json":   "redaction is the recorder's job",
	"cassette/invalid/not-http.json":           "the URL's scheme is not checked on replay",
	"cassette/invalid/seq-zero.json":           "replay goes by record order",
	// lib/mcpconfig reads every client's file leniently.
	"mcp-json/invalid/bad-name.json":       "read as found; agent-mcp add refuses the name (mcpconfig.Doc.Add)",
	"mcp-json/invalid/env-not-string.json": "lib/mcpconfig.Parse accepts it",
}

// noReader lists the formats written by agentutils that no Go code reads
// back: their valid/ examples are checked against the schema only.
var noReader = map[string]string{
	"claude-stream": "written by lib/claudestream for Claude Code's readers; nothing of ours reads it",
	"grep-json":     "agent-grep writes rg's JSON; nothing of ours reads it",
	"commit-lint":   "agent-commit lint writes it; nothing of ours reads it",
	"commit-split":  "read by agent-commit split PLAN.json, which needs a git repository: not run here",
	"hooks":         "written by internal/hooks for hook scripts; their answers are read leniently (an answer that is not JSON is ignored)",
}

// A reader takes one corpus file (its bytes) and says whether it was
// accepted; for an invalid example it returns the refusal.
type reader func(t *testing.T, name string, data []byte) error

var readers = map[string]reader{
	"session":       appendCmd,
	"events":        appendCmd,
	"tool-protocol": lines(func(b []byte) error { _, err := event.DecodeTool(b); return err }),
	"session-index": func(t *testing.T, name string, data []byte) error {
		_, err := session.ParseIndex(data)
		return err
	},
	"cassette": func(t *testing.T, name string, data []byte) error {
		_, err := provider.ReadCassette(name, data)
		return err
	},
	"mcp-json": func(t *testing.T, name string, data []byte) error {
		_, err := mcpconfig.Parse(mcpconfig.Location{Source: "native", Format: "native", Path: name}, data, func(string) string { return "" })
		return err
	},
}

// lines applies a one-line decoder to every non-empty line of a file.
func lines(dec func([]byte) error) reader {
	return func(t *testing.T, name string, data []byte) error {
		for n, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			if err := dec(l); err != nil {
				return &lineErr{n + 1, err}
			}
		}
		return nil
	}
}

type lineErr struct {
	line int
	err  error
}

func (e *lineErr) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }

// appendCmd feeds the file to agent-session append, onto a session that
// already holds an entry: accepted is exit 0 (and the result opens without
// a warning); refused must be exit 2 naming stdin's line, the file
// byte-identical.
func appendCmd(t *testing.T, name string, data []byte) error {
	bin, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := filepath.Join(dir, "s.jsonl")
	before := []byte(`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n" +
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}` + "\n")
	if err := os.WriteFile(s, before, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "agent-session"), "append", s)
	cmd.Stdin = bytes.NewReader(data)
	cmd.Env = append(os.Environ(), "AGENTUTILS_HOME="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	after, _ := os.ReadFile(s)
	if err == nil {
		open := exec.Command(filepath.Join(bin, "agent-session"), "open", "--all", s)
		open.Env = cmd.Env
		out, oerr := open.CombinedOutput()
		if oerr != nil || bytes.Contains(out, []byte("agent-session:")) {
			t.Errorf("%s: appended, but the file does not open cleanly: %v\n%s", name, oerr, out)
		}
		return nil
	}
	code := -1
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	msg := strings.TrimSpace(stderr.String())
	if code != 2 {
		t.Errorf("%s: refused with exit %d, want 2: %s", name, code, msg)
	}
	if !strings.Contains(msg, "stdin:") || !strings.ContainsAny(msg, "0123456789") {
		t.Errorf("%s: the refusal names no line: %s", name, msg)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("%s: refused, but the file changed:\n%s", name, after)
	}
	return &refusal{msg}
}

type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

func TestCorpusThroughCode(t *testing.T) {
	for _, dir := range dirs(t) {
		t.Run(dir, func(t *testing.T) {
			rd := readers[dir]
			if rd == nil {
				if noReader[dir] == "" {
					t.Fatalf("formats/%s has no Go reader in readers and no reason in noReader", dir)
				}
				t.Skip(noReader[dir])
			}
			for _, want := range []bool{true, false} {
				sub := "valid"
				if !want {
					sub = "invalid"
				}
				files, _ := filepath.Glob(filepath.Join(dir, sub, "*.json*"))
				for _, f := range files {
					key := filepath.ToSlash(f)
					data, err := os.ReadFile(f)
					if err != nil {
						t.Fatal(err)
					}
					// Each line of an invalid .jsonl breaks a rule on its own.
					var cases [][]byte
					if !want && strings.HasSuffix(f, ".jsonl") {
						for _, l := range bytes.Split(data, []byte("\n")) {
							if len(bytes.TrimSpace(l)) > 0 {
								cases = append(cases, append(l, '\n'))
							}
						}
					} else {
						cases = [][]byte{data}
					}
					for _, c := range cases {
						err := rd(t, key, c)
						switch reason, skipped := skips[key]; {
						case want && err != nil:
							t.Errorf("%s: valid, but refused: %v", key, err)
						case !want && err == nil && !skipped:
							t.Errorf("%s: invalid, but accepted", key)
						case !want && err != nil && skipped:
							t.Errorf("%s: refused now; drop it from skips (%s)", key, reason)
						}
					}
				}
			}
		})
	}
	for k := range skips {
		if _, err := os.Stat(k); err != nil {
			t.Errorf("skips names %s, which is not in the corpus", k)
		}
	}
}

// TestHookSettingsThroughCode runs the hooks corpus's settings files
// through the reader of settings files (internal/hooks.LoadSettings):
// a valid one loads, with every handler of a type we run; an invalid one
// is refused, naming the file.
func TestHookSettingsThroughCode(t *testing.T) {
	for _, want := range []bool{true, false} {
		sub := "valid"
		if !want {
			sub = "invalid"
		}
		files, _ := filepath.Glob(filepath.Join("hooks", sub, "settings", "*.json"))
		if len(files) == 0 {
			t.Fatalf("no hooks/%s/settings examples", sub)
		}
		for _, f := range files {
			hs, _, err := hooks.LoadSettings(f)
			switch {
			case want && err != nil:
				t.Errorf("%s: valid, but refused: %v", f, err)
			case want && len(hs) == 0:
				t.Errorf("%s: valid, but no hook read", f)
			case !want && err == nil:
				t.Errorf("%s: invalid, but accepted", f)
			case !want && !strings.Contains(err.Error(), f):
				t.Errorf("%s: refused without naming the file: %v", f, err)
			}
		}
	}
}
