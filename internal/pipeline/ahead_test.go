package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentutils/agentutils/lib/event"
)

// aheadStages are real processes standing for the stages: open prints a
// stream of two lines, append keeps what it gets in appended, and the
// "agent-chat" says something on stderr, then keeps its stdin in chat-in
// and writes one line for the front-end.
func aheadStages(t *testing.T) (*Stages, string) {
	dir := t.TempDir()
	session := `case $1 in
open) printf '{"type":"session"}\n{"type":"message","id":"a"}' ;;
append) cat > "$D/appended" ;;
esac`
	chat := `echo "chat: started $*" >&2; cat > "$D/chat-in"; echo '{"type":"agent_end"}'`
	return &Stages{
		Session: []string{"sh", "-c", session, "session"},
		Chat:    []string{"sh", "-c", chat, "chat"},
		Dir:     dir,
		Env:     append(os.Environ(), "D="+dir),
	}, dir
}

// A run started ahead passes the context on, ended by context_end, and
// takes the prompt Send writes; the stderr lines written before Send
// reach Send's function.
func TestAheadSend(t *testing.T) {
	s, dir := aheadStages(t)
	r, err := s.Start(filepath.Join(dir, "s.jsonl"), Opts{Ahead: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var errs []string
	if err := r.Send("the prompt", func(l string) { mu.Lock(); errs = append(errs, l); mu.Unlock() }); err != nil {
		t.Fatal(err)
	}
	var evs []string
	r.ReadEvents(func(ev event.Event, _ bool) { evs = append(evs, ev.Type) })
	if st := r.Wait(); st != 0 {
		t.Fatalf("status %d", st)
	}
	in, _ := os.ReadFile(filepath.Join(dir, "chat-in"))
	want := `{"type":"session"}` + "\n" + `{"type":"message","id":"a"}` + "\n" + `{"type":"context_end"}` + "\nthe prompt"
	if d := cmp.Diff(want, string(in)); d != "" {
		t.Errorf("agent-chat's stdin (-want +got)\n%s", d)
	}
	if d := cmp.Diff([]string{"chat: started -- -"}, errs); d != "" {
		t.Errorf("stderr lines (-want +got)\n%s", d)
	}
	if d := cmp.Diff([]string{"agent_end"}, evs); d != "" {
		t.Errorf("events (-want +got)\n%s", d)
	}
	if app, _ := os.ReadFile(filepath.Join(dir, "appended")); !strings.Contains(string(app), "agent_end") {
		t.Errorf("append got %q", app)
	}
	if err := r.Send("again", nil); err == nil {
		t.Error("a second Send worked")
	}
}

// A run discarded before its prompt ends every stage: its events end,
// nothing reaches append, and Send then fails.
func TestAheadDiscard(t *testing.T) {
	s, dir := aheadStages(t)
	r, err := s.Start(filepath.Join(dir, "s.jsonl"), Opts{Ahead: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Discard()
	var evs []string
	r.ReadEvents(func(ev event.Event, _ bool) { evs = append(evs, ev.Type) })
	if st := r.Wait(); st != 130 {
		t.Errorf("agent-chat's status %d, want 130 (killed)", st)
	}
	if len(evs) != 0 {
		t.Errorf("events of a discarded run: %v", evs)
	}
	if app, _ := os.ReadFile(filepath.Join(dir, "appended")); len(app) != 0 {
		t.Errorf("append got %q", app)
	}
	if err := r.Send("late", nil); err == nil {
		t.Error("Send to a discarded run worked")
	}
}

// A run not started ahead has no prompt to send.
func TestSendNotAhead(t *testing.T) {
	s, dir := aheadStages(t)
	r, err := s.Start(filepath.Join(dir, "s.jsonl"), Opts{Prompt: "hi"}, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Send("hi", nil); err == nil {
		t.Error("Send worked")
	}
	r.ReadEvents(func(event.Event, bool) {})
	r.Wait()
}
