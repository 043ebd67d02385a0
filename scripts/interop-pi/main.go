// Command interop-pi compares the messages pi itself sends (npm
// @mariozechner/pi-coding-agent@0.73.1) with the ones agent-chat sends, for
// the same session file and prompt, both against one fake provider
// (internal/fakellm, in-process, keeping each request): every pi file of
// ../shared/corpus/transcripts/pi (skipped when absent), the session
// corpus of formats/session/valid, and a session agentutils writes itself
// (an image, a tool call). Messages are compared after the system prompt
// (the two agents' own) in the provider's JSON, normalised only where the
// wire allows two spellings (content as a string or as one text part).
// Prints per file the messages each sent by role. Skips with a message
// when npm is not available.
//
//	go run ./scripts/interop-pi
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentutils/agentutils/internal/fakellm"
	"github.com/agentutils/agentutils/lib/render/show"
	"github.com/agentutils/agentutils/scripts/internal/interop"
)

const version = "0.73.1"

func main() { os.Exit(interop.Main("interop-pi", run)) }

// comparison is one comparison run's state.
type comparison struct {
	*interop.T
	pi, work string
	srv      *fakellm.Server
	seen     int      // requests the provider had before the current agent's
	piMsgs   []string // what pi sent in the last comparison
	same, n  int
}

func run(t *interop.T) error {
	npm := interop.NPM(interop.Cache("pi-" + version))
	if !npm.Has("pi") {
		if err := npm.Install("@mariozechner/pi-coding-agent@" + version); err != nil {
			return interop.Skip("pi %s could not be installed: %v", version, err)
		}
	}
	if !interop.Run(exec.Command(npm.Bin("pi"), "--version")).OK() {
		node := interop.Run(exec.Command("node", "--version")).Stdout
		return interop.Skip("pi %s does not run on node %s", version, strings.TrimSpace(node))
	}
	c := &comparison{T: t, pi: npm.Bin("pi"), work: filepath.Join(t.Dir, "work")}
	c.srv = t.FakeProvider("", "testdata/sse/openai/text.sse")
	if err := c.configure(); err != nil {
		return err
	}
	if corpus, ok := t.Corpus("transcripts/pi"); ok {
		files, _ := filepath.Glob(filepath.Join(corpus, "*.jsonl"))
		gz, _ := filepath.Glob(filepath.Join(corpus, "*.jsonl.gz"))
		for _, f := range append(files, gz...) {
			src := filepath.Join(t.Dir, "src.jsonl")
			if err := unpack(f, src); err != nil {
				t.Fail("corpus/"+filepath.Base(f), err.Error())
				continue
			}
			c.compare("corpus/"+filepath.Base(f), src)
		}
	} else {
		t.SkipCheck("the pi corpus (../shared/corpus/transcripts/pi)", "absent")
	}
	valid, _ := filepath.Glob("formats/session/valid/*.jsonl")
	for _, f := range valid {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(`"type":"session"`)) {
			c.compare(f, f)
		}
	}
	if err := c.written(); err != nil {
		t.Fail("written by agent-chat + append", err.Error())
	}
	if err := c.task(); err != nil {
		t.Fail("a task call's two files", err.Error())
	}
	c.modelChange()
	t.Note("pi %s and agent-chat sent the same messages for %d of %d session files", version, c.same, c.n)
	return nil
}

// configure points pi and agent-chat at the fake provider, with a context
// window no file reaches, so neither compacts before sending.
func (c *comparison) configure() error {
	piDir, home := filepath.Join(c.Dir, "pi-agent"), filepath.Join(c.Dir, "home")
	os.Setenv("PI_CODING_AGENT_DIR", piDir)
	os.Setenv("AGENTUTILS_HOME", home)
	os.Setenv("FAKE_KEY", "fake")
	for _, d := range []string{piDir, home, c.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	models := fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"openai-completions","apiKey":"FAKE","compat":{"supportsDeveloperRole":false,"supportsReasoningEffort":false},"models":[{"id":"test-model","contextWindow":100000000,"maxTokens":8192,"input":["text","image"]}]}}}`, c.srv.URL)
	toml := fmt.Sprintf("[providers.fake]\nbaseUrl = %q\napi = \"openai-completions\"\napiKey = \"FAKE_KEY\"\n[[providers.fake.models]]\nid = \"test-model\"\ncontextWindow = 100000000\ninput = [\"text\", \"image\"]\n", c.srv.URL)
	if err := os.WriteFile(filepath.Join(piDir, "models.json"), []byte(models), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(home, "models.toml"), []byte(toml), 0o644)
}

// unpack copies a session file, gunzipping a .gz one.
func unpack(src, dst string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(src, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			return err
		}
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// take is the messages of the first request the provider received since
// the last take.
func (c *comparison) take() ([]string, error) {
	reqs := c.srv.Requests()
	defer func() { c.seen = len(reqs) }()
	for _, r := range reqs[c.seen:] {
		if r.Method == "POST" {
			return messages(r.Body)
		}
	}
	return nil, fmt.Errorf("no request")
}

// compare has pi and agent-chat each continue a copy of the session src
// (its header naming the work directory: pi refuses a session whose cwd is
// missing) with "go on", and compares the messages they sent.
func (c *comparison) compare(name, src string) {
	c.n++
	b, err := os.ReadFile(src)
	if err != nil {
		c.Fail(name, err.Error())
		return
	}
	header, rest, _ := bytes.Cut(b, []byte("\n"))
	var h map[string]json.RawMessage
	if err := json.Unmarshal(header, &h); err != nil {
		c.Fail(name, "header: "+err.Error())
		return
	}
	h["cwd"], _ = json.Marshal(c.work)
	header, _ = json.Marshal(h)
	session := append(append(header, '\n'), rest...)
	piFile, ours := filepath.Join(c.Dir, "pi.jsonl"), filepath.Join(c.Dir, "ours.jsonl")
	os.WriteFile(piFile, session, 0o644)
	os.WriteFile(ours, session, 0o644)
	c.seen = len(c.srv.Requests())
	r := interop.Run(interop.Cmd(c.work, nil, c.pi, "-p", "--provider", "fake", "--model", "test-model", "--session", piFile, "go on"))
	piMsgs, err := c.take()
	if err != nil {
		c.Fail(name, "pi sent no request: "+show.Clip(r.Stderr, 300))
		return
	}
	c.piMsgs = piMsgs
	r = interop.Sh(c.work, fmt.Sprintf("agent-session open %q 2>/dev/null | agent-chat --model fake/test-model --no-context-files 'go on' >/dev/null", ours))
	ourMsgs, err := c.take()
	if err != nil {
		c.Fail(name, "agent-chat sent no request: "+show.Clip(r.Stderr, 300))
		return
	}
	var noMention []string
	for _, m := range ourMsgs {
		if !isFileMention(m) {
			noMention = append(noMention, m)
		}
	}
	switch {
	case slices.Equal(piMsgs, ourMsgs):
		c.same++
		c.OK("%s: %s", name, roles(piMsgs))
	case slices.Equal(piMsgs, noMention):
		c.same++
		c.OK("%s: %s (and our fileMention message, which pi 0.73 drops)", name, roles(piMsgs))
	default:
		i, p, o := firstDiff(piMsgs, ourMsgs, 200)
		c.Fail(name, fmt.Sprintf("pi sent %s, agent-chat %s; message %d differs:\n          pi:   %s\n          ours: %s",
			roles(piMsgs), roles(ourMsgs), i+1, p, o))
	}
}

// written compares the two on a session agentutils writes: a prompt with
// an image, then agent-chat's answer on top; pi must send the image as
// image data.
func (c *comparison) written() error {
	s := filepath.Join(c.Dir, "written.jsonl")
	sse, err := os.ReadFile("testdata/sse/openai/text.sse")
	if err != nil {
		return err
	}
	prompt := fmt.Sprintf(`{"type":"message_end","message":{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image","data":%q,"mimeType":"image/png"}],"timestamp":1}}`+"\n",
		base64.StdEncoding.EncodeToString(sse))
	app := exec.Command("agent-session", "append", s)
	app.Stdin = strings.NewReader(prompt)
	if r := interop.Run(app); !r.OK() {
		return fmt.Errorf("agent-session append: %s", r.Why())
	}
	line := fmt.Sprintf("agent-session open %q | agent-chat --model fake/test-model --no-context-files --continue | agent-session append %q", s, s)
	if r := interop.Sh(c.work, line); !r.OK() {
		return fmt.Errorf("agent-chat's answer: %s", r.Why())
	}
	c.compare("written by agent-chat + append", s)
	c.Check("pi sends our inline image as image data", strings.Contains(strings.Join(c.piMsgs, "\n"), `"url":"data:image/png;base64,`), "no image_url part")
	return nil
}

// task compares the two on the files of a task call as the task tool
// writes them (a second fake provider, in agent mode, makes the call): pi
// opens the parent and the sub-agent's session.
func (c *comparison) task() error {
	agentDir := filepath.Join(c.Dir, "agentfake")
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		return err
	}
	srv := c.FakeProvider(agentDir)
	models := filepath.Join(c.Dir, "agent-models.toml")
	toml := fmt.Sprintf("[providers.fake]\nbaseUrl = %q\napi = \"anthropic-messages\"\napiKey = \"FAKE_KEY\"\n[[providers.fake.models]]\nid = \"test-model\"\n", srv.URL)
	if err := os.WriteFile(models, []byte(toml), 0o644); err != nil {
		return err
	}
	r := interop.Run(exec.Command("agent-session", "new", "--session-dir", filepath.Join(c.Dir, "tasks")))
	var f struct{ File string }
	if err := json.Unmarshal([]byte(r.Stdout), &f); err != nil || f.File == "" {
		return fmt.Errorf("agent-session new: %s", r.Why())
	}
	line := fmt.Sprintf("agent-session open %q | agent-chat --model fake/test-model --models-file %q --no-context-files TASK | agent-session append %q", f.File, models, f.File)
	interop.Sh(c.work, line) // its status is the fake model's business; the files are checked
	children, _ := filepath.Glob(strings.TrimSuffix(f.File, ".jsonl") + "/*.jsonl")
	if len(children) == 0 {
		return fmt.Errorf("the task tool wrote no sub-agent session")
	}
	if b, _ := os.ReadFile(children[0]); !bytes.Contains(b, []byte(`"parentToolCallId"`)) {
		return fmt.Errorf("%s has no parentToolCallId", children[0])
	}
	c.compare("a task call's parent, written by agent-chat", f.File)
	c.compare("its sub-agent's session", children[0])
	return nil
}
