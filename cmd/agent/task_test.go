package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTaskCard: a task call shows a card under it while its sub-agent
// runs (what it runs now, its turns and tokens); the sub-agent's write is
// put to the person with the approval card, saying which sub-agent asks;
// ctrl+o follows its conversation in the scrollback; its end shows its
// spend, which the footer counts. ^C at a sub-agent's approval aborts the
// run and leaves no process of the sub-agent's pipeline.
func TestTaskCard(t *testing.T) {
	f := newFixture(t)
	f.srv.Agent = f.dir // answers by the prompt: TASKWRITE, a sub-agent's write
	s := f.start(agentCmd)
	s.wait("/help for commands")
	s.send("TASKWRITE now\r")
	s.wait("⋯ task SUBWRITE · 1 turn · ↑100 ↓20 · $0.0006 · → write note.txt")
	s.wait("sub-agent task SUBWRITE asks:")
	s.wait("Allow write note.txt ?")
	s.wait("[y] yes")
	s.send("\x0f") // ctrl+o: follow its conversation, from its session file
	s.wait("│ > SUBWRITE")
	s.wait("│ ● write note.txt")
	s.send("y")
	s.wait("│ All done.")
	s.wait("2 turns · ↑200 ↓40 · $0.0012")
	s.wait("↑400 ↓80") // the footer: the parent's two calls and the sub-agent's
	if b, err := os.ReadFile(filepath.Join(f.dir, "note.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("the approved write of the sub-agent: %q %v", b, err)
	}
	subs, _ := filepath.Glob(filepath.Join(f.home, "sessions", "*", "*", "*.jsonl"))
	if len(subs) != 1 {
		t.Fatalf("sub-agent session files: %q", subs)
	}
	if b, _ := os.ReadFile(subs[0]); !bytes.Contains(b, []byte(`"toolName":"write"`)) {
		t.Errorf("the sub-agent's session has no write result:\n%s", b)
	}

	s.send("\x0f") // fold again
	s.send("TASKWRITE again\r")
	s.wait("sub-agent task SUBWRITE asks:")
	s.wait("[y] yes")
	s.send("\x03") // ^C: deny, and abort the run and its sub-agent
	s.wait("interrupted")
	if !strings.Contains(f.sessionText(), "Sub-agent aborted.") {
		t.Errorf("the task call is not recorded as aborted:\n%s", f.sessionText())
	}
	subDir := filepath.Dir(subs[0])
	deadline := time.Now().Add(waitLimit)
	for left := commandLines(subDir); len(left) > 0; left = commandLines(subDir) {
		if time.Now().After(deadline) {
			t.Fatalf("left of the sub-agent's pipeline: %q", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.send("/exit\r")
	s.exited()
}

// commandLines are the command lines of the live processes naming s.
func commandLines(s string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(s)) {
			out = append(out, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}
