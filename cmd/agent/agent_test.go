package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"

	"github.com/agentutils/agentutils/internal/fakellm"
	"github.com/agentutils/agentutils/internal/testbin"
)

// The front-end is tested as a person uses it: the real binaries, agent in
// a pseudo-terminal, keys written to it and the screen read back (escape
// sequences stripped), the model played by internal/fakellm. Nothing waits
// for a time: each step waits (generously) for text to appear.

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

const waitLimit = 60 * time.Second

type screen struct {
	t       *testing.T
	pty     *os.File
	cmd     *exec.Cmd
	mu      sync.Mutex
	raw     bytes.Buffer
	mark    int // waits look after this offset of the stripped text
	scanned int // the terminal queries before this offset are answered
	done    chan struct{}
}

// fixture is a project directory, a home and a fake model server.
type fixture struct {
	t    *testing.T
	bin  string
	home string
	dir  string
	srv  *fakellm.Server
}

func newFixture(t *testing.T, steps ...fakellm.Step) *fixture {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	bin, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, bin: bin, home: t.TempDir(), dir: t.TempDir()}
	f.srv = fakellm.New(steps...)
	t.Cleanup(f.srv.Close)
	if err := os.WriteFile(filepath.Join(f.home, "models.toml"), []byte(f.srv.ModelsTOML("fake", "anthropic-messages", "test-model")), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(f.dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	return f
}

func (f *fixture) env() []string {
	return []string{
		"PATH=" + f.bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + f.home, "AGENTUTILS_HOME=" + f.home, "FAKE_KEY=sk-fake", "TERM=xterm-256color",
		"GOCOVERDIR=" + os.Getenv("GOCOVERDIR"),
	}
}

// start runs a shell command line in a pseudo-terminal (so several agent
// runs can share one terminal, as a person restarting it would).
func (f *fixture) start(script string) *screen {
	t := f.t
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir, cmd.Env = f.dir, f.env()
	p, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	s := &screen{t: t, pty: p, cmd: cmd, done: make(chan struct{})}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := p.Read(buf)
			s.mu.Lock()
			s.raw.Write(buf[:n])
			// Answer the queries a terminal answers (termenv asks for the
			// background colour and the cursor position at start), each once.
			var answer []byte
			for {
				rest := s.raw.Bytes()[s.scanned:]
				i, j := bytes.Index(rest, []byte("\x1b]11;?")), bytes.Index(rest, []byte("\x1b[6n"))
				switch {
				case i >= 0 && (j < 0 || i < j):
					answer = append(answer, "\x1b]11;rgb:0000/0000/0000\x1b\\"...)
					s.scanned += i + 6
					continue
				case j >= 0:
					answer = append(answer, "\x1b[1;1R"...)
					s.scanned += j + 4
					continue
				}
				s.scanned = max(s.scanned, s.raw.Len()-6)
				break
			}
			s.mu.Unlock()
			if len(answer) > 0 {
				p.Write(answer)
			}
			if err != nil {
				close(s.done)
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		p.Close()
		if t.Failed() {
			t.Logf("screen:\n%s", s.text())
		}
	})
	return s
}

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ansi.Strip(s.raw.String())
}

// wait waits for want to appear after the last thing waited for.
func (s *screen) wait(want string) {
	s.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		txt := s.text()
		if s.mark > len(txt) {
			s.mark = len(txt)
		}
		if i := strings.Index(txt[s.mark:], want); i >= 0 {
			s.mark += i + len(want)
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waited %v for %q", waitLimit, want)
		}
		select {
		case <-s.done:
			if !strings.Contains(s.text()[s.mark:], want) {
				s.t.Fatalf("the program ended before %q appeared", want)
			}
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (s *screen) send(keys string) {
	s.t.Helper()
	if _, err := s.pty.Write([]byte(keys)); err != nil {
		s.t.Fatal(err)
	}
}

// exited waits for the shell to end.
func (s *screen) exited() {
	s.t.Helper()
	select {
	case <-s.done:
	case <-time.After(waitLimit):
		s.t.Fatal("the program did not end")
	}
}

// sessionFiles are the session files written under the fixture's home.
func (f *fixture) sessionFiles() []string {
	m, _ := filepath.Glob(filepath.Join(f.home, "sessions", "*", "*.jsonl"))
	return m
}

func (f *fixture) sessionText() string {
	var b strings.Builder
	for _, p := range f.sessionFiles() {
		d, _ := os.ReadFile(p)
		b.Write(d)
	}
	return b.String()
}

// The model's answers, in Anthropic's streaming format.

func sse(events ...string) []byte {
	var b bytes.Buffer
	for _, e := range events {
		var v struct{ Type string }
		json.Unmarshal([]byte(e), &v)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", v.Type, e)
	}
	return b.Bytes()
}

const msgStart = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"test-model","stop_reason":null,"usage":{"input_tokens":100,"output_tokens":1}}}`

func textAnswer(words ...string) fakellm.Step {
	ev := []string{msgStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`}
	for _, w := range words {
		d, _ := json.Marshal(w)
		ev = append(ev, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(d)+`}}`)
	}
	ev = append(ev, `{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":20}}`,
		`{"type":"message_stop"}`)
	return fakellm.Step{Body: sse(ev...)}
}

// slowAnswer streams words one event at a time, slowly: a run to abort.
func slowAnswer(n int) fakellm.Step {
	w := []string{"Streaming "}
	for i := 0; i < n; i++ {
		w = append(w, fmt.Sprintf("word%d ", i))
	}
	st := textAnswer(w...)
	st.EventDelay = 200 * time.Millisecond
	return st
}

func toolAnswer(name, input string) fakellm.Step {
	return fakellm.Step{Body: sse(msgStart,
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_`+name+`","name":"`+name+`","input":{}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+mustJSON(input)+`}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":20}}`,
		`{"type":"message_stop"}`)}
}

func mustJSON(s string) string { b, _ := json.Marshal(s); return string(b) }

// lastUserText is the last user message of a request the server received.
func lastUserText(r fakellm.Request) string {
	var body struct {
		Messages []struct {
			Role    string
			Content json.RawMessage
		}
	}
	json.Unmarshal(r.Body, &body)
	for i := len(body.Messages) - 1; i >= 0; i-- {
		m := body.Messages[i]
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			return s
		}
		var blocks []struct{ Type, Text string }
		json.Unmarshal(m.Content, &blocks)
		var b strings.Builder
		for _, c := range blocks {
			b.WriteString(c.Text)
		}
		return b.String()
	}
	return ""
}

const agentCmd = "agent --model fake/test-model"

// TestEditing: ^C clears the line, a bracketed paste is one prompt with its
// tabs, alt+enter adds a line, "help" is a prompt, history walks back.
func TestEditing(t *testing.T) {
	f := newFixture(t, textAnswer("First ", "answer."), textAnswer("Second."), textAnswer("Third."))
	s := f.start(agentCmd + " --yes")
	s.wait("/help for commands")
	s.send("thrown away")
	s.send("\x03") // ^C: the line is cleared
	s.wait("^D on an empty line exits")
	s.send("\x1b[200~pasted line one, with a comma\n\tline two\x1b[201~")
	s.send("\x1b\r") // alt+enter
	s.send("typed")
	s.send("\r")
	s.wait("First answer.")
	reqs := f.srv.Requests()
	if got, want := lastUserText(reqs[len(reqs)-1]), "pasted line one, with a comma\n\tline two\ntyped"; got != want {
		t.Errorf("prompt sent: %q, want %q", got, want)
	}
	s.send("help\r")
	s.wait("Second.")
	reqs = f.srv.Requests()
	if got := lastUserText(reqs[len(reqs)-1]); got != "help" {
		t.Errorf("the prompt help went to the model as %q", got)
	}
	s.send("\x1b[A\r") // up: the last prompt again
	s.wait("Third.")
	reqs = f.srv.Requests()
	if got := lastUserText(reqs[len(reqs)-1]); got != "help" {
		t.Errorf("history: sent %q, want help", got)
	}
	s.send("\x04") // ^D on the empty line
	s.exited()
	hist, _ := os.ReadFile(filepath.Join(f.home, "agent_history"))
	if !strings.Contains(string(hist), `"pasted line one, with a comma\n\tline two\ntyped"`) {
		t.Errorf("history file:\n%s", hist)
	}
	if strings.Contains(f.sessionText(), "thrown away") {
		t.Error("the line cleared by ^C reached the session")
	}
}

// TestAbort: ^C and Esc during a run abort it; the partial answer is kept,
// marked aborted, and the agent takes the next prompt.
func TestAbort(t *testing.T) {
	f := newFixture(t, slowAnswer(200), slowAnswer(200), textAnswer("After."))
	s := f.start(agentCmd + " --yes")
	s.wait("/help for commands")
	s.send("go slowly\r")
	s.wait("word1")
	s.send("\x03")
	s.wait("aborted")
	s.wait("interrupted")
	s.send("again\r")
	s.wait("word1")
	s.send("\x1b")
	s.wait("aborted")
	s.wait("interrupted")
	s.send("last\r")
	s.wait("After.")
	s.send("/exit\r")
	s.exited()
	if n := strings.Count(f.sessionText(), `"stopReason":"aborted"`); n != 2 {
		t.Errorf("%d aborted messages in the session, want 2", n)
	}
	if !strings.Contains(f.sessionText(), "Streaming word0") {
		t.Error("the partial answer was not kept")
	}
}

// TestSlashCommands runs every command once, and resumes after /fork.
func TestSlashCommands(t *testing.T) {
	f := newFixture(t, textAnswer("Hello ", "there."), textAnswer("A summary of it all."), textAnswer("The branch left."), textAnswer("Forked answer."))
	s := f.start(agentCmd + " --yes --compact-cmd 'agent-compact --keep-recent-tokens 1'; echo restarted; " + agentCmd + " --yes")
	s.wait("/help for commands")
	s.send("/bogus\r")
	s.wait("unknown command /bogus")
	s.send("/he\t")
	s.wait("/help")
	s.send("\r")
	s.wait("the commands and keys")
	s.send("hi, see @ma\t") // tab completes the path
	s.wait("@main.go")
	s.send("\r")
	s.wait("Hello there.")
	if reqs := f.srv.Requests(); !strings.Contains(lastUserText(reqs[len(reqs)-1]), "<file path=\"main.go\">\npackage main") {
		t.Errorf("@main.go was not attached: %q", lastUserText(reqs[len(reqs)-1]))
	}
	s.send("/cost\r")
	s.wait("2 messages · input 100 · output 20")
	s.wait("$0.0006")
	s.send("/copy\r")
	s.wait("copied the last answer (12 characters)")
	s.send("/export out.html\r")
	s.wait("wrote out.html")
	if _, err := os.Stat(filepath.Join(f.dir, "out.html")); err != nil {
		t.Error(err)
	}
	s.send("/model\r")
	s.wait("Model")
	s.send("fake/test")
	s.wait("fake/test-model")
	s.send("\r")
	s.wait("Thinking level for fake/test-model")
	s.send("\x1b[B\x1b[B\x1b[B\x1b[B\r") // off, minimal, low, medium, high
	s.wait("model fake/test-model, thinking high")
	s.wait("thinking high")
	s.send("/compact keep the greeting\r")
	s.wait("compacted")
	if !strings.Contains(f.sessionText(), `"type":"compaction"`) {
		t.Error("no compaction entry after /compact")
	}
	s.send("/tree\r")
	s.wait("Check out an entry")
	s.send("\x1b[A\x1b[A\r") // up twice from the leaf
	s.wait("summarize the branch you leave?")
	s.send("\x1b[B\r") // summarize it
	s.wait("the branch left summarized")
	s.wait("the prompt is back in the editor") // the user entry checked out
	if !strings.Contains(s.text()[s.mark-400:], "> hi, see @main.go") {
		t.Errorf("the checked-out prompt is not in the editor:\n%s", s.text()[s.mark-400:])
	}
	s.send("\x03") // ^C clears it
	if !strings.Contains(f.sessionText(), `"type":"branch_summary"`) || !strings.Contains(f.sessionText(), "The branch left.") {
		t.Errorf("no branch summary after /tree:\n%s", f.sessionText())
	}
	s.send("/fork\r")
	s.wait("Fork from a prompt")
	s.send("\r") // the whole session
	s.wait("forked into ")
	forked := strings.Fields(s.text()[s.mark:])[0]
	s.send("after the fork\r")
	s.wait("Forked answer.")
	s.send("/exit\r")
	s.wait("restarted")
	s.wait("Forked answer.") // the recap of the fork
	s.wait("session " + forked)
	s.wait("/help for commands")
	s.send("/resume\r")
	s.wait("Resume a session")
	s.send("\r")
	s.wait("resumed ")
	s.send("/fork\r") // from its newest prompt: back in the editor
	s.wait("Fork from a prompt")
	s.send("\x1b[B\r")
	s.wait("the prompt is back in the editor")
	if !strings.Contains(s.text()[s.mark-400:], "> after the fork") {
		t.Errorf("the forked-from prompt is not in the editor:\n%s", s.text()[s.mark-400:])
	}
	s.send("\x03")
	s.send("/new\r")
	s.wait("new session ")
	s.send("/exit\r")
	s.exited()
}

// TestApprovals: an edit or a bash command waits for y, a (always for this
// command) or n with a reason, which the model reads.
func TestApprovals(t *testing.T) {
	bash := `{"command":"echo approved-run"}`
	f := newFixture(t,
		toolAnswer("bash", bash), textAnswer("Ran once."),
		toolAnswer("bash", bash), textAnswer("Ran always."),
		toolAnswer("bash", bash), textAnswer("Ran unasked."),
		toolAnswer("edit", `{"path":"main.go","old_text":"func main() {}","new_text":"func main() { println() }"}`), textAnswer("Denied."),
	)
	s := f.start(agentCmd)
	s.wait("/help for commands")
	s.send("run it\r")
	s.wait("Allow $ echo approved-run ?")
	s.wait("[y] yes")
	s.send("y")
	s.wait("Ran once.")
	s.send("run it again\r")
	s.wait("Allow $ echo approved-run ?")
	s.wait("[y] yes")
	s.send("a")
	s.wait("Ran always.")
	s.send("and again\r")
	s.wait("Ran unasked.")
	if strings.Count(s.text(), "Allow $ echo approved-run ?") > 2 {
		t.Error("asked again after 'always'")
	}
	if n := strings.Count(s.text(), "approved-run\n"); n < 3 {
		t.Logf("the command's output shown %d times", n)
	}
	s.send("edit main.go\r")
	s.wait("Allow edit main.go ?")
	s.wait("+func main() { println() }") // the diff
	s.wait("[y] yes")
	s.send("n")
	s.wait("why not?")
	s.send("keep it as it is\r")
	s.wait("Denied.")
	reqs := f.srv.Requests()
	if !strings.Contains(string(reqs[len(reqs)-1].Body), "keep it as it is") {
		t.Errorf("the reason did not reach the model: %s", reqs[len(reqs)-1].Body)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "main.go")); strings.Contains(string(b), "println") {
		t.Error("the denied edit was applied")
	}
	s.send("/exit\r")
	s.exited()
}

// TestApprovalsWithPermissionMode: config.toml's permissions.defaultMode
// is the mode of a pipe, where no one can approve; in agent a person
// does, so an edit it would refuse is asked and, approved, applied.
func TestApprovalsWithPermissionMode(t *testing.T) {
	f := newFixture(t,
		toolAnswer("edit", `{"path":"main.go","old_text":"func main() {}","new_text":"func main() { println() }"}`), textAnswer("Edited."),
	)
	if err := os.WriteFile(filepath.Join(f.home, "config.toml"), []byte("[permissions]\ndefaultMode = \"default\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := f.start(agentCmd)
	s.wait("/help for commands")
	s.send("edit main.go\r")
	s.wait("Allow edit main.go ?")
	s.wait("[y] yes")
	s.send("y")
	s.wait("Edited.")
	if b, _ := os.ReadFile(filepath.Join(f.dir, "main.go")); !strings.Contains(string(b), "println") {
		t.Errorf("the approved edit was not applied: %s", b)
	}
	s.send("/exit\r")
	s.exited()
}

// TestApprovalTypeAhead: keys typed before an approval appears, and while
// a prompt is in the editor, go to the editor; enter there queues the
// prompt and never answers; only y typed into an idle editor approves.
// ^C at an approval denies the call as "aborted by the user".
func TestApprovalTypeAhead(t *testing.T) {
	bash := `{"command":"echo typed-ahead > ran.txt"}`
	f := newFixture(t, toolAnswer("bash", bash), textAnswer("Ran it."), textAnswer("Queued answer."),
		toolAnswer("bash", bash), slowAnswer(200))
	s := f.start(agentCmd)
	s.wait("/help for commands")
	s.send("run it\ry") // y typed ahead, before the approval
	s.wait("Allow $ echo typed-ahead > ran.txt ?")
	s.wait("your prompt stays in the editor")
	s.send("y\r") // into the prompt; enter queues it
	s.wait("queued (1)")
	if _, err := os.Stat(filepath.Join(f.dir, "ran.txt")); err == nil {
		t.Fatal("type-ahead approved the command")
	}
	s.wait("[y] yes")
	s.send("y")
	s.wait("Ran it.")
	s.wait("Queued answer.")
	reqs := f.srv.Requests()
	if got := lastUserText(reqs[2]); got != "yy" {
		t.Errorf("the queued prompt went as %q, want the keys typed ahead", got)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "ran.txt")); err != nil {
		t.Error("the approved command did not run")
	}
	os.Remove(filepath.Join(f.dir, "ran.txt"))
	s.send("again\r")
	s.wait("[y] yes")
	s.send("\x03") // ^C: deny, then abort the run
	s.wait("interrupted")
	if !strings.Contains(f.sessionText(), "aborted by the user") || strings.Contains(f.sessionText(), "--approval-hook") {
		t.Errorf("the aborted call is not recorded as aborted by the user:\n%s", f.sessionText())
	}
	if _, err := os.Stat(filepath.Join(f.dir, "ran.txt")); err == nil {
		t.Error("the command ran after ^C")
	}
	s.send("/exit\r")
	s.exited()
}

// TestPrintJSONSchema: -p --json-schema passes the schema to agent-chat,
// which sends a prose answer back to the model; stdout gets only the
// JSON document of the answer that matches, without its code fence.
func TestPrintJSONSchema(t *testing.T) {
	f := newFixture(t, textAnswer("It is green."), textAnswer("```json\n{\"green\": true}\n```"))
	if err := os.WriteFile(filepath.Join(f.dir, "verdict.json"), []byte(`{"type":"object","properties":{"green":{"type":"boolean"}},"required":["green"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(f.bin, "agent"), "--model", "fake/test-model", "-p", "--json-schema", "verdict.json", "is the build green?")
	cmd.Dir, cmd.Env = f.dir, f.env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || out.String() != "{\"green\": true}\n" {
		t.Errorf("stdout %q, err %v, stderr %q; want only the JSON", out.String(), err, errb.String())
	}
}

// TestPrintAndNew: -p puts only the answer on stdout; a later agent
// without --model continues with the session's model, and /new keeps it;
// -s naming a directory is a usage error, said once.
func TestPrintAndNew(t *testing.T) {
	f := newFixture(t, toolAnswer("bash", `{"command":"echo tool-output"}`), textAnswer("Only ", "this."), textAnswer("Still the model."))
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(filepath.Join(f.bin, "agent"), args...)
		cmd.Dir, cmd.Env = f.dir, f.env()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return out.String(), errb.String(), code
	}
	if out, errs, code := run("--model", "fake/test-model", "--yes", "-p", "run it"); out != "Only this.\n" || code != 0 {
		t.Errorf("-p: stdout %q, exit %d, stderr %q; want only the answer", out, code, errs)
	}
	if out, errs, code := run("-s", f.dir, "-p", "hi"); code != 2 || out != "" || strings.Count(errs, "not a session file") != 1 {
		t.Errorf("-s DIR: exit %d, stdout %q, stderr %q; want exit 2 and one message", code, out, errs)
	}
	s := f.start("agent --yes")
	s.wait("/help for commands")
	s.send("/new\r")
	s.wait("new session ")
	s.send("hello\r")
	s.wait("Still the model.")
	s.send("/exit\r")
	s.exited()
}

// TestNameAndEditor: /name names the session (agent-session list shows
// it); ctrl+g edits the prompt in $EDITOR and enter sends what it left.
func TestNameAndEditor(t *testing.T) {
	f := newFixture(t, textAnswer("From the editor, seen."))
	ed := filepath.Join(f.home, "ed")
	os.WriteFile(ed, []byte("#!/bin/sh\nprintf 'written in the editor\\n' >> \"$1\"\n"), 0o755)
	s := f.start("EDITOR=" + ed + " " + agentCmd)
	s.wait("/help for commands")
	s.send("/name parser work\r")
	s.wait("named parser work")
	s.send("typed first ")
	s.send("\x07") // ctrl+g
	s.wait("typed first written in the editor")
	s.send("\r")
	s.wait("From the editor, seen.")
	reqs := f.srv.Requests()
	if !strings.Contains(string(reqs[len(reqs)-1].Body), "typed first written in the editor") {
		t.Errorf("the edited prompt did not reach the model: %s", reqs[len(reqs)-1].Body)
	}
	s.send("/exit\r")
	s.exited()
	cmd := exec.Command(filepath.Join(f.bin, "agent-session"), "list", "--json")
	cmd.Dir, cmd.Env = f.dir, f.env()
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), `"title":"parser work"`) {
		t.Errorf("agent-session list: %s %v", out, err)
	}
}

// TestShellAndSession: !CMD runs a command and the model sees its output
// with the next prompt, !!CMD's it does not; /session names the session;
// the footer shows the directory and its git branch.
func TestShellAndSession(t *testing.T) {
	f := newFixture(t, textAnswer("Seen."))
	os.MkdirAll(filepath.Join(f.dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(f.dir, ".git", "HEAD"), []byte("ref: refs/heads/topic\n"), 0o644)
	s := f.start(agentCmd + " --yes")
	s.wait("(topic)")
	s.send("!echo shell-out-1\r")
	s.wait("in the model's context with the next prompt")
	s.send("!!echo shell-out-2\r")
	s.wait("kept out of the model's context")
	s.send("what did it say?\r")
	s.wait("Seen.")
	body := string(f.srv.Requests()[0].Body)
	if !strings.Contains(body, "shell-out-1") || strings.Contains(body, "shell-out-2") {
		t.Errorf("the request should hold !'s output and not !!'s:\n%s", body)
	}
	s.send("/session\r")
	s.wait("entries")
	s.wait("sandbox workspace-write")
	s.send("/exit\r")
	s.exited()
}

// TestStartChecks: an unknown model is reported before the first prompt;
// a session's last exchanges are shown on start.
func TestStartChecks(t *testing.T) {
	f := newFixture(t, textAnswer("Remember me."))
	s := f.start("agent --model no-such-model-xyz --yes")
	s.wait("no-such-model-xyz")
	s.wait("(/model picks") // (the line is wrapped to the width)
	s.send("\x04")
	s.exited()
	s = f.start(agentCmd + " --yes -p 'say it'; " + agentCmd + " --yes")
	s.wait("Remember me.")
	s.wait("> say it") // the recap
	s.wait("Remember me.")
	s.wait("/help for commands")
	s.send("\x04")
	s.exited()
}

// TestRewind: a turn writes a file with write and removes main.go through
// bash; /rewind lists it with what it changed, and picking it brings both
// files back as they were and the prompt back into the editor.
func TestRewind(t *testing.T) {
	f := newFixture(t, textAnswer("Hello."),
		toolAnswer("write", `{"path":"notes.txt","content":"new\n"}`), toolAnswer("bash", `{"command":"rm -rf main.go"}`), textAnswer("Changed."))
	orig, _ := os.ReadFile(filepath.Join(f.dir, "main.go"))
	s := f.start(agentCmd + " --yes --sandbox off")
	s.wait("/help for commands")
	s.send("hi\r")
	s.wait("Hello.")
	s.send("change the files\r")
	s.wait("Changed.")
	if _, err := os.Stat(filepath.Join(f.dir, "main.go")); err == nil {
		t.Fatal("main.go was not removed")
	}
	s.send("/rewind\r")
	s.wait("Rewind: the files and the session go back")
	s.wait("changed main.go, notes.txt")
	s.send("\r") // the newest prompt
	s.wait("rewound to checkpoint")
	s.wait("the prompt is back in the editor")
	if b, err := os.ReadFile(filepath.Join(f.dir, "main.go")); err != nil || !bytes.Equal(b, orig) {
		t.Errorf("main.go not restored: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "notes.txt")); err == nil {
		t.Error("notes.txt was not removed")
	}
	s.send("\x03") // ^C clears the editor
	s.send("/exit\r")
	s.exited()
}

// TestCompactionStageQuiet: with the context over the threshold (the
// fixture's window is 1000 tokens) and nothing older to compact, the
// compaction stage's note for pipes (its --keep-recent-tokens) is not
// shown at the next prompt.
func TestCompactionStageQuiet(t *testing.T) {
	f := newFixture(t, textAnswer("First."), textAnswer("Second."))
	s := f.start(agentCmd + " --yes")
	s.wait("/help for commands")
	s.send("one\r")
	s.wait("compaction suggested")
	s.send("two\r")
	s.wait("Second.")
	s.send("/exit\r")
	s.exited()
	if txt := s.text(); strings.Contains(txt, "nothing to compact") || strings.Contains(txt, "--keep-recent-tokens") {
		t.Errorf("the compaction stage's note was shown:\n%s", txt)
	}
}

// TestStreamWraps: a paragraph still streaming is wrapped at the
// terminal's width (120 columns here), not cut at it: its words past the
// first line show while it streams, not only once it has ended.
func TestStreamWraps(t *testing.T) {
	f := newFixture(t, slowAnswer(200))
	s := f.start(agentCmd + " --yes")
	s.wait("/help for commands")
	s.send("go on\r")
	s.wait("word30")
	if strings.Contains(s.text(), "word199") {
		t.Error("the words past the first line showed only once the paragraph had ended")
	}
	s.send("\x1b")
	s.wait("aborted")
	s.send("/exit\r")
	s.exited()
}

// TestEditorGetsTheTerminal: ctrl+g's editor writes to the terminal, not
// to a pipe (vi wants a terminal on its stdout).
func TestEditorGetsTheTerminal(t *testing.T) {
	f := newFixture(t)
	ed := filepath.Join(f.home, "ed")
	os.WriteFile(ed, []byte("#!/bin/sh\nif [ -t 1 ]; then w=on-a-terminal; else w=on-a-pipe; fi\nprintf 'editor-output-%s' \"$w\" >> \"$1\"\n"), 0o755)
	s := f.start("EDITOR=" + ed + " " + agentCmd)
	s.wait("/help for commands")
	s.send("\x07") // ctrl+g
	s.wait("editor-output-on-a-")
	s.send("\x03/exit\r")
	s.exited()
	if !strings.Contains(s.text(), "editor-output-on-a-terminal") {
		t.Errorf("the editor's stdout was not the terminal:\n%s", s.text())
	}
}

// TestNoColorStreamLines: with NO_COLOR an answer streamed a word at a
// time is printed as its lines, not a line per word.
func TestNoColorStreamLines(t *testing.T) {
	st := textAnswer("Plain ", "words ", "one ", "at ", "a ", "time.")
	st.EventDelay = 100 * time.Millisecond
	f := newFixture(t, st)
	s := f.start("NO_COLOR=1 " + agentCmd + " --yes")
	s.wait("/help for commands")
	s.send("go\r")
	s.wait("time.")
	s.send("/exit\r")
	s.exited()
	if !strings.Contains(s.text(), "Plain words one at a time.") {
		t.Errorf("the answer was broken into lines:\n%s", s.text())
	}
}
