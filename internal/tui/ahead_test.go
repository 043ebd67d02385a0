package tui

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentutils/agentutils/internal/pipeline"
)

// aheadModel is a model whose stages are real processes standing for
// agent-session and agent-chat: the "agent-chat" writes its pid to
// chat.pid, keeps its stdin in chat-in, then ends its answer.
func aheadModel(t *testing.T) (*Model, string) {
	t.Helper()
	dir := t.TempDir()
	session := `case $1 in open) printf '{"type":"session"}\n' ;; append) cat >/dev/null ;; esac`
	// (builtins only: the pid is the process that holds the pipes)
	chat := `echo $$ > "$D/chat.pid"
while IFS= read -r l || [ -n "$l" ]; do printf '%s\n' "$l" >> "$D/chat-in"; done
echo '{"type":"agent_end"}'`
	st := &pipeline.Stages{
		Session: []string{"sh", "-c", session, "session"},
		Chat:    []string{"sh", "-c", chat, "chat"},
		Dir:     dir,
		Env:     append(os.Environ(), "D="+dir),
	}
	m := New(Config{Stages: st, Dir: dir, File: filepath.Join(dir, "s.jsonl")}, 80)
	t.Cleanup(func() {
		if w := m.ahead; w != nil {
			m.dropAhead()
			<-w.ended
		}
	})
	return m, dir
}

// changed: keepAhead threw the run w away (its stages are reaped) and
// started another.
func changed(t *testing.T, m *Model, w *ahead, what string) *ahead {
	t.Helper()
	m.keepAhead()
	if m.ahead == nil || m.ahead == w {
		t.Fatalf("%s: the run started ahead was not started again", what)
	}
	<-w.ended
	return m.ahead
}

// A run is started ahead when idle and started again when what it was
// started for changes; none is started while a run goes on, with
// prompts queued, or with --no-ahead.
func TestKeepAhead(t *testing.T) {
	m, dir := aheadModel(t)
	m.keepAhead()
	w := m.ahead
	if w == nil {
		t.Fatal("nothing started ahead when idle")
	}
	m.keepAhead()
	if m.ahead != w {
		t.Fatal("started again with nothing changed")
	}
	m.a.Model = "p/other"
	w = changed(t, m, w, "the model")
	m.a.Thinking = "high"
	w = changed(t, m, w, "the thinking level")
	m.a.Sandbox = "read-only"
	w = changed(t, m, w, "the sandbox mode")
	m.a.Stages.ChatArgs = []string{"--max-tokens", "9"}
	w = changed(t, m, w, "the flags")
	os.WriteFile(m.a.File, []byte("{}\n"), 0o644)
	w = changed(t, m, w, "the session file written")
	m.a.File = filepath.Join(dir, "new.jsonl")
	w = changed(t, m, w, "another session file (/new, /resume)")

	m.phase = busy // a session command: the run waits for its end
	m.a.Model = "p/third"
	m.keepAhead()
	if m.ahead != w {
		t.Fatal("the run started ahead changed during a session command")
	}
	m.phase = idle
	w = changed(t, m, w, "the model, after the command")

	m.queued = []string{"next"}
	m.keepAhead()
	if m.ahead != nil {
		t.Fatal("a run kept ahead with a prompt queued")
	}
	<-w.ended
	m.queued = nil
	m.a.NoAhead = true
	m.keepAhead()
	if m.ahead != nil {
		t.Fatal("a run started ahead with --no-ahead")
	}
}

// Enter gives the run started ahead its prompt, unless the prompt
// attaches files, continues, or the session changed since.
func TestTakeAhead(t *testing.T) {
	m, dir := aheadModel(t)
	for _, c := range []struct {
		name string
		o    func(o *pipeline.Opts)
	}{
		{"@path", func(o *pipeline.Opts) { o.Files = []string{"a.go"} }},
		{"a continuation", func(o *pipeline.Opts) { o.Continue, o.Force = true, true }},
		{"the session changed", func(*pipeline.Opts) { os.WriteFile(m.a.File, []byte("{}\n"), 0o644) }},
	} {
		m.keepAhead()
		w := m.ahead
		o := m.a.runOpts("hi")
		c.o(&o)
		if m.takeAhead(o, nil) != nil {
			t.Errorf("%s: the run started ahead was taken", c.name)
		}
		<-w.ended
		if m.ahead != nil {
			t.Errorf("%s: still kept", c.name)
		}
	}
	m.keepAhead()
	w := m.takeAhead(m.a.runOpts("  the prompt \n"), func(string) {})
	if w == nil {
		t.Fatal("the run started ahead was not taken")
	}
	<-w.ended
	in, _ := os.ReadFile(filepath.Join(dir, "chat-in"))
	if want := `{"type":"context_end"}` + "\nthe prompt\n"; !strings.HasSuffix(string(in), want) {
		t.Errorf("agent-chat read %q, want it to end in %q", in, want)
	}
}

// A run started ahead that is killed is started again; one that keeps
// ending by itself is left to Enter.
func TestAheadKilled(t *testing.T) {
	m, dir := aheadModel(t)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24}) // idle: started ahead
	for i := 0; i < maxAheadFails; i++ {
		w := m.ahead
		if w == nil {
			t.Fatalf("kill %d: no run started ahead", i)
		}
		killChat(t, dir)
		<-w.ended
		for m.ahead == w { // its reader says it ended
			m.Update(fromInbox{<-m.inbox})
		}
	}
	if m.ahead != nil {
		t.Fatalf("started again after %d ends in a row", maxAheadFails)
	}
}

// killChat kills the "agent-chat" of the run started ahead, once it runs.
func killChat(t *testing.T, dir string) {
	t.Helper()
	for {
		b, err := os.ReadFile(filepath.Join(dir, "chat.pid"))
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
			os.Remove(filepath.Join(dir, "chat.pid"))
			syscall.Kill(pid, syscall.SIGKILL)
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// TestSettingsDropAhead: a setting written by /settings is read by the
// next run, so the run started ahead (which read config.toml before) is
// started again.
func TestSettingsDropAhead(t *testing.T) {
	m, dir := aheadModel(t)
	m.a.Getenv = func(k string) string { return map[string]string{"AGENTUTILS_HOME": dir}[k] }
	m.keepAhead()
	w := m.ahead
	if w == nil {
		t.Fatal("nothing started ahead when idle")
	}
	m.setSetting("edit.mode hashline")
	if m.ahead == w {
		t.Fatal("the run started ahead kept after /settings")
	}
	<-w.ended
	m.keepAhead()
	if m.ahead == nil {
		t.Fatal("no run started ahead again after /settings")
	}
}
