package transcript

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentutils/agentutils/lib/session"
)

// corpusDir holds real transcripts (../shared/corpus from the repository
// root, never copied into it, or $AGENTUTILS_CORPUS); `make interop` runs
// TestCorpus over them.
var corpusDir = func() string {
	if d := os.Getenv("AGENTUTILS_CORPUS"); d != "" {
		return filepath.Join(d, "transcripts")
	}
	return "../../../shared/corpus/transcripts"
}()

// tally is what a transcript holds, counted in the source and in the
// imported sessions.
type tally struct {
	Prompts, Texts, Calls, Results, Images, PatchBytes int
}

// readCorpusFile reads a transcript's lines, gunzipping .gz files.
func readCorpusFile(t testing.TB, path string) [][]byte {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return bytes.Split(bytes.TrimRight(data, "\n"), []byte{'\n'})
}

// TestCorpus imports every Claude Code and Codex transcript of the corpus
// and compares what the source holds with what the sessions hold: user
// prompts, assistant texts, tool calls, results, images, apply_patch text;
// every call with a result in the source is followed by it on the active
// path; usage is counted once per API message. pi files must open.
func TestCorpus(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skip("../shared/corpus is absent")
	}
	var files []string
	for _, d := range []string{"claude", "codex", "pi"} {
		m, _ := filepath.Glob(filepath.Join(corpusDir, d, "*.jsonl*"))
		files = append(files, m...)
	}
	ok := 0
	var over []string
	for _, f := range files {
		name := filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
		lossless := t.Run(name, func(t *testing.T) {
			lines := readCorpusFile(t, f)
			format := filepath.Base(filepath.Dir(f))
			if format == "pi" {
				openPi(t, lines)
				return
			}
			got, src := checkLossless(t, format, lines)
			if format == "claude" && src > 0 {
				over = append(over, fmt.Sprintf("%s %.2f", name, float64(got)/float64(src)))
			}
		})
		if lossless {
			ok++
		}
	}
	t.Logf("output tokens imported/source: %s", strings.Join(over, ", "))
	t.Logf("%d/%d transcripts without loss", ok, len(files))
}

// checkLossless imports a transcript and fails t when anything of the
// source is missing from the sessions. It returns the output tokens stats
// adds up and the source's, counted once per API message (Claude Code).
func checkLossless(t *testing.T, format string, lines [][]byte) (got, src int) {
	var want tally
	var results map[string]bool
	if format == "claude" {
		want, results, src = countClaude(lines)
	} else {
		want, results = countCodex(lines)
	}
	res, err := convert(format, lines)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	got = compareCounts(t, res, want, results, format == "codex")
	if format == "claude" && got != src {
		t.Errorf("output tokens: source %d (once per API message), imported %d", src, got)
	}
	return got, src
}

// compareCounts fails t when the sessions do not hold what the source
// does, or a call with a result in the source is not followed by it on
// the active path; it returns the output tokens stats adds up.
func compareCounts(t *testing.T, res Result, want tally, results map[string]bool, patches bool) int {
	t.Helper()
	have, unpaired, got := countImported(t, res, results, patches)
	if have != want {
		t.Errorf("source %+v\nimported %+v", want, have)
	}
	if unpaired > 0 {
		t.Errorf("%d tool calls with a result in the source are not followed by it on the active path", unpaired)
	}
	return got
}

func convert(format string, lines [][]byte) (Result, error) {
	n := 0
	opt := Options{NewID: func() string { n++; return fmt.Sprintf("e%07d", n) }, Now: time.Unix(0, 0), Cwd: "/w"}
	if format == "claude" {
		return FromClaude(lines, opt)
	}
	return FromCodex(lines, opt)
}

func openPi(t *testing.T, lines [][]byte) {
	r := session.NewReader(bytes.NewReader(bytes.Join(lines, []byte{'\n'})))
	var recs []session.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if len(recs) < 2 {
		t.Fatalf("%d records", len(recs))
	}
	header, entries, _, err := session.Migrate(recs[0].Raw, recs[1:], func() string { return fmt.Sprint(time.Now().UnixNano()) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := session.ParseHeader(header); err != nil {
		t.Fatal(err)
	}
	if ctx, err := session.BuildContext(entries, nil); err != nil || len(ctx.Messages) == 0 {
		t.Fatalf("context: %d messages, %v", len(ctx.Messages), err)
	}
}

// block is a content block of either side.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	Arguments json.RawMessage `json:"arguments"`
}

func blocksOf(raw json.RawMessage) ([]block, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Type: "text", Text: s}}, true
	}
	var bs []block
	json.Unmarshal(raw, &bs)
	return bs, false
}

// countClaude counts a Claude Code transcript: every user and assistant
// record, sidechains included, and queued prompts. It returns the ids of
// calls that have a result, and the output tokens counted once per API
// message (the last line of a message holds its final usage).
func countClaude(lines [][]byte) (tally, map[string]bool, int) {
	var c tally
	results := map[string]bool{}
	final := map[string]int{}
	var order []string
	for i, line := range lines {
		var r struct {
			Type       string          `json:"type"`
			Attachment json.RawMessage `json:"attachment"`
			Message    struct {
				ID      string          `json:"id"`
				Content json.RawMessage `json:"content"`
				Usage   *struct {
					Output int `json:"output_tokens"`
				} `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &r) != nil {
			continue
		}
		switch r.Type {
		case "user":
			bs, _ := blocksOf(r.Message.Content)
			for _, b := range bs {
				switch b.Type {
				case "text":
					c.Prompts++
				case "image":
					c.Images++
				case "tool_result":
					c.Results++
					results[b.ToolUseID] = true
					inner, _ := blocksOf(b.Content)
					for _, ib := range inner {
						if ib.Type == "image" {
							c.Images++
						}
					}
				}
			}
		case "assistant":
			bs, _ := blocksOf(r.Message.Content)
			for _, b := range bs {
				switch b.Type {
				case "text":
					c.Texts++
				case "tool_use", "server_tool_use":
					c.Calls++
				}
			}
			if u := r.Message.Usage; u != nil {
				key := r.Message.ID
				if key == "" {
					key = fmt.Sprint("line", i)
				}
				if _, seen := final[key]; !seen {
					order = append(order, key)
				}
				final[key] = u.Output
			}
		case "attachment":
			var a struct {
				Type   string          `json:"type"`
				Prompt json.RawMessage `json:"prompt"`
			}
			json.Unmarshal(r.Attachment, &a)
			if a.Type == "queued_command" && len(a.Prompt) > 0 {
				bs, _ := blocksOf(a.Prompt)
				for _, b := range bs {
					switch b.Type {
					case "text":
						c.Prompts++
					case "image":
						c.Images++
					}
				}
			}
		}
	}
	tokens := 0
	for _, k := range order {
		tokens += final[k]
	}
	return c, results, tokens
}

// countCodex counts a Codex rollout's response items (wrapped or, in the
// early format, bare), leaving out the instructions Codex writes as user
// messages.
func countCodex(lines [][]byte) (tally, map[string]bool) {
	var c tally
	results := map[string]bool{}
	calls := map[string]int{} // call id → calls with it: one shared (a trimmed fixture's) pairs with none
	defer func() {
		for id, n := range calls {
			if n > 1 {
				delete(results, id)
			}
		}
	}()
	for _, line := range lines {
		var v struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(line, &v) != nil {
			continue
		}
		item := v.Payload
		if v.Type != "response_item" {
			if len(v.Payload) > 0 || v.Type == "" {
				continue
			}
			item = line
		}
		var it struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			CallID  string          `json:"call_id"`
			Input   string          `json:"input"`
			Args    string          `json:"arguments"`
			Content json.RawMessage `json:"content"`
			Output  json.RawMessage `json:"output"`
		}
		json.Unmarshal(item, &it)
		var parts []struct{ Type, Text string }
		switch it.Type {
		case "message":
			json.Unmarshal(it.Content, &parts)
			if it.Role == "user" && len(parts) > 0 && IsCodexInstructions(parts[0].Text) {
				continue
			}
			for _, p := range parts {
				switch {
				case it.Role == "user" && p.Type == "input_text":
					c.Prompts++
				case it.Role == "user" && p.Type == "input_image":
					c.Images++
				case it.Role == "assistant" && strings.HasSuffix(p.Type, "text"):
					c.Texts++
				}
			}
		case "web_search_call":
			c.Calls++
			c.Results++
		case "tool_search_call":
			c.Calls++
			calls[it.CallID]++
		case "tool_search_output":
			c.Results++
			results[it.CallID] = true
		case "function_call", "custom_tool_call", "local_shell_call":
			c.Calls++
			calls[it.CallID]++
			c.PatchBytes += len(it.Input)
			if a := strings.TrimSpace(it.Args); a != "" && (!strings.HasPrefix(a, "{") || !json.Valid([]byte(a))) {
				c.PatchBytes += len(it.Args) // free text is kept as {"input": …}
			}
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			c.Results++
			results[it.CallID] = true
			if json.Unmarshal(it.Output, &parts) != nil {
				var one struct{ Type, Text string }
				json.Unmarshal(it.Output, &one)
				parts = []struct{ Type, Text string }{one}
			}
			for _, p := range parts {
				if p.Type == "input_image" {
					c.Images++
				}
			}
		}
	}
	return c, results
}

// countImported counts the sessions' messages, the calls on each active
// path whose source result does not follow them, and the output tokens
// stats would add up.
func countImported(t *testing.T, res Result, hasResult map[string]bool, patches bool) (tally, int, int) {
	var c tally
	unpaired, tokens := 0, 0
	image := func(b block) bool {
		return b.Type == "image" || (b.Type == "text" && strings.HasPrefix(b.Text, "[image not in the transcript"))
	}
	for _, s := range res.Sessions {
		var recs []session.Record
		for _, e := range s.Entries {
			rec, err := session.ParseRecord(e)
			if err != nil {
				t.Fatalf("entry %s: %v", e, err)
			}
			recs = append(recs, rec)
			var v struct {
				Type    string `json:"type"`
				Summary string `json:"summary"`
				Message struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			json.Unmarshal(e, &v)
			if v.Type == "compaction" && v.Summary != "" {
				c.Prompts++
			}
			bs, _ := blocksOf(v.Message.Content)
			switch v.Message.Role {
			case "user":
				for _, b := range bs {
					if image(b) {
						c.Images++
					} else if b.Type == "text" {
						c.Prompts++
					}
				}
			case "assistant":
				for _, b := range bs {
					switch b.Type {
					case "text":
						c.Texts++
					case "toolCall":
						c.Calls++
						var a struct{ Input string }
						json.Unmarshal(b.Arguments, &a)
						if patches {
							c.PatchBytes += len(a.Input)
						}
					}
				}
			case "toolResult":
				c.Results++
				for _, b := range bs {
					if image(b) {
						c.Images++
					}
				}
			}
		}
		tokens += int(session.Totals(recs).Output)
		ctx, err := session.BuildContext(recs, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range ctx.Messages {
			var msg struct {
				Role       string  `json:"role"`
				Content    []block `json:"content"`
				ToolCallID string  `json:"toolCallId"`
			}
			json.Unmarshal(m, &msg)
			if msg.Role != "assistant" {
				continue
			}
			follows := map[string]bool{}
			for _, next := range ctx.Messages[i+1:] {
				var r struct{ Role, ToolCallID string }
				json.Unmarshal(next, &r)
				if r.Role != "toolResult" {
					break
				}
				follows[r.ToolCallID] = true
			}
			for _, b := range msg.Content {
				if b.Type == "toolCall" && hasResult[b.ID] && !follows[b.ID] {
					unpaired++
				}
			}
		}
	}
	return c, unpaired, tokens
}

// TestGenerated runs the corpus check over the transcripts under the
// directory $AGENTUTILS_GENERATED_TRANSCRIPTS (scripts/interop-import has
// the newest Claude Code, Codex, Gemini CLI and opencode write them against
// a fake model server; opencode's as `opencode export` prints them);
// skipped when it is not set.
func TestGenerated(t *testing.T) {
	dir := os.Getenv("AGENTUTILS_GENERATED_TRANSCRIPTS")
	if dir == "" {
		t.Skip("AGENTUTILS_GENERATED_TRANSCRIPTS not set")
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		// (Claude Code 2.1's subagents/agent-ID.meta.json is a sub-agent's
		// metadata sidecar, {agentType, …}, not a transcript)
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json")) && !strings.HasSuffix(p, ".meta.json") {
			files = append(files, p)
		}
		return nil
	})
	ok := 0
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		if t.Run(rel, func(t *testing.T) {
			data := bytes.Join(readCorpusFile(t, f), []byte{'\n'})
			switch {
			case IsGemini(data):
				checkGemini(t, data)
				return
			case IsOpencode(data) == "export":
				var s OpencodeSession
				if err := json.Unmarshal(data, &s); err != nil {
					t.Fatal(err)
				}
				checkOpencode(t, s)
				return
			}
			lines := readCorpusFile(t, f)
			format := ""
			for _, l := range lines {
				if len(bytes.TrimSpace(l)) > 0 {
					format = Detect(l)
					break
				}
			}
			if format != "claude" && format != "codex" {
				t.Fatalf("not a transcript (%q)", format)
			}
			checkLossless(t, format, lines)
		}) {
			ok++
		}
	}
	t.Logf("%d/%d generated transcripts without loss", ok, len(files))
}
