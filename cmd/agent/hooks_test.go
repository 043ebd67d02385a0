package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestNotificationHooks: Claude Code's Notification hooks in agent, from
// the user's ~/.claude/settings.json, matched on notification_type: a
// command hook hears permission_prompt when a call waits for approval,
// and idle_prompt once the agent has waited --idle-notify seconds for a
// prompt after an answer; an http hook gets the same input as a POST.
func TestNotificationHooks(t *testing.T) {
	f := newFixture(t, toolAnswer("bash", `{"command":"echo approved-run"}`), textAnswer("Ran once."))
	var mu sync.Mutex
	var posted []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		posted = append(posted, r.Header.Get("X-Agent")+" "+string(b))
		mu.Unlock()
	}))
	defer srv.Close()
	settings := `{"hooks":{"Notification":[
  {"matcher":"permission_prompt","hooks":[{"type":"command","command":"jq -c . >> \"$HOME/permission.log\""}]},
  {"matcher":"idle_prompt","hooks":[{"type":"command","command":"jq -c . >> \"$HOME/idle.log\""},
    {"type":"http","url":"` + srv.URL + `/notify","headers":{"X-Agent":"$AGENT_NAME"},"allowedEnvVars":["AGENT_NAME"]}]}]}}`
	os.MkdirAll(filepath.Join(f.home, ".claude"), 0o755)
	if err := os.WriteFile(filepath.Join(f.home, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	s := f.start("AGENT_NAME=tester " + agentCmd + " --idle-notify 0.2")
	s.wait("/help for commands")
	s.send("run it\r")
	s.wait("Allow $ echo approved-run ?")
	waitFile(t, filepath.Join(f.home, "permission.log"), `"notification_type":"permission_prompt"`)
	s.wait("[y] yes")
	s.send("y")
	s.wait("Ran once.")
	idle := waitFile(t, filepath.Join(f.home, "idle.log"), `"notification_type":"idle_prompt"`)
	for _, want := range []string{`"hook_event_name":"Notification"`, `"message":"agent is waiting for your input"`, `"cwd":"` + f.dir + `"`} {
		if !strings.Contains(idle, want) {
			t.Errorf("idle_prompt's input has no %s: %s", want, idle)
		}
	}
	for deadline := time.Now().Add(waitLimit); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		got := strings.Join(posted, "\n")
		mu.Unlock()
		if strings.Contains(got, `tester {"event":"Notification","hook_event_name":"Notification"`) && strings.Contains(got, `"notification_type":"idle_prompt"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the http hook got no idle_prompt: %q", got)
		}
	}
	if strings.Contains(idle, "permission_prompt") {
		t.Error("the idle_prompt matcher's hook heard a permission_prompt")
	}
	if b, _ := os.ReadFile(filepath.Join(f.home, "idle.log")); strings.Count(string(b), "idle_prompt") != 1 {
		t.Errorf("idle_prompt told %d times for one wait: %s", strings.Count(string(b), "idle_prompt"), b)
	}
	s.send("/exit\r")
	s.exited()
}

// waitFile waits until the file at path holds want, and returns it.
func waitFile(t *testing.T, path, want string) string {
	t.Helper()
	for deadline := time.Now().Add(waitLimit); ; time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), want) {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not hold %s: %q", path, want, b)
		}
	}
}

// TestSessionStartCompact: after /compact the SessionStart hooks fire
// with source compact (matcher compact), and what they print joins the
// system prompt of the next runs; the variables they write to
// CLAUDE_ENV_FILE are in bash's environment.
func TestSessionStartCompact(t *testing.T) {
	f := newFixture(t, textAnswer("Hello."), textAnswer("We said hello."), toolAnswer("bash", `{"command":"echo stage=$PROJECT_STAGE"}`), textAnswer("Done."))
	settings := `{"hooks":{"SessionStart":[
  {"matcher":"startup","hooks":[{"type":"command","command":"echo 'export PROJECT_STAGE=trial' >> \"$CLAUDE_ENV_FILE\""}]},
  {"matcher":"compact","hooks":[{"type":"command","command":"jq -r .source >> \"$HOME/sources.log\"; echo 'Re-read PLAN.md after a compaction.'"}]}]}}`
	os.MkdirAll(filepath.Join(f.home, ".claude"), 0o755)
	if err := os.WriteFile(filepath.Join(f.home, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	s := f.start(agentCmd + " --yes --compact-cmd 'agent-compact --keep-recent-tokens 10'")
	s.wait("/help for commands")
	s.send("hi\r")
	s.wait("Hello.")
	s.send("/compact\r")
	s.wait("compacted")
	waitFile(t, filepath.Join(f.home, "sources.log"), "compact")
	s.send("run it\r")
	s.wait("Done.")
	reqs := f.srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "Re-read PLAN.md after a compaction.") {
		t.Errorf("the compact hook's context is not in the next run's request: %s", last)
	}
	if !strings.Contains(last, "stage=trial") {
		t.Errorf("bash did not see CLAUDE_ENV_FILE's variable: %s", last)
	}
	s.send("/exit\r")
	s.exited()
}
