package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// chatLogged is a --chat-cmd that notes each agent-chat's pid and
// arguments in the project directory, then runs it.
const chatLogged = ` --chat-cmd 'sh -c "echo \$\$ >> chat.pids; echo \"\$*\" >> chat.argv; exec agent-chat \"\$@\"" chat'`

// TestAhead: the next run's agent-chat is started while the prompt is
// typed (its "-" argument: the prompt on stdin) and the prompt Enter
// writes reaches the server through it; after the run the next one is
// started ahead again, and none is left running once agent exits.
func TestAhead(t *testing.T) {
	f := newFixture(t, textAnswer("First."), textAnswer("Second."))
	// (no compaction stage: the fake model's window of 1k tokens is over
	// agent-compact's threshold after one answer, where a run starts at
	// Enter)
	s := f.start(agentCmd + " --yes --compact-cmd ''" + chatLogged)
	s.wait("/help for commands")
	f.waitLines("chat.argv", 1) // started before any Enter
	s.send("the first prompt\r")
	s.wait("First.")
	f.waitLines("chat.argv", 2) // the next one, started ahead again
	s.send("the second prompt\r")
	s.wait("Second.")
	f.waitLines("chat.argv", 3)
	reqs := f.srv.Requests()
	if len(reqs) != 2 || lastUserText(reqs[0]) != "the first prompt" || lastUserText(reqs[1]) != "the second prompt" {
		t.Fatalf("the server got %d requests", len(reqs))
	}
	argv, _ := os.ReadFile(filepath.Join(f.dir, "chat.argv"))
	for _, l := range strings.Split(strings.TrimSpace(string(argv)), "\n") {
		if !strings.HasSuffix(l, " -- -") {
			t.Errorf("agent-chat %q: not started ahead (its prompt on stdin)", l)
		}
	}
	s.send("\x04") // ^D: exit
	s.exited()
	pids, _ := os.ReadFile(filepath.Join(f.dir, "chat.pids"))
	for _, p := range strings.Fields(string(pids)) {
		pid, _ := strconv.Atoi(p)
		if err := syscall.Kill(pid, 0); err == nil && !zombie(pid) {
			t.Errorf("agent-chat %d still runs after agent exited", pid)
		}
	}
}

// TestNoAhead: with --no-ahead, agent-chat starts at Enter with the
// prompt as its --message.
func TestNoAhead(t *testing.T) {
	f := newFixture(t, textAnswer("Done."))
	s := f.start(agentCmd + " --yes --no-ahead" + chatLogged)
	s.wait("/help for commands")
	s.send("a prompt\r")
	s.wait("Done.")
	argv, _ := os.ReadFile(filepath.Join(f.dir, "chat.argv"))
	if !strings.HasSuffix(strings.TrimSpace(string(argv)), "--message a prompt") {
		t.Errorf("agent-chat ran as %q", argv)
	}
}

// waitLines waits for the project file name to hold n lines.
func (f *fixture) waitLines(name string, n int) {
	f.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		b, _ := os.ReadFile(filepath.Join(f.dir, name))
		if strings.Count(string(b), "\n") >= n {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("%s: %q, waited for %d lines", name, b, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// zombie: the process has ended and waits to be reaped.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && len(b) > i+2 && b[i+2] == 'Z'
}
