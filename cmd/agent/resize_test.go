package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A resize is a terminal's business: the pseudo-terminal of the other
// tests keeps no screen, so these run agent in tmux (a real screen that
// reflows its lines when the window narrows or widens, as most terminals
// do) and read the screen back with capture-pane.

type tmuxScreen struct {
	t    *testing.T
	sock string
}

func (f *fixture) startTmux(cols, rows int, command string) *tmuxScreen {
	t := f.t
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the resize tests need a real screen")
	}
	s := &tmuxScreen{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	env := []string{"env"}
	for _, e := range f.env() {
		env = append(env, fmt.Sprintf("%q", e))
	}
	s.run("-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "-c", f.dir,
		strings.Join(env, " ")+" "+command)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screen:\n%s", s.capture())
		}
		exec.Command("tmux", "-S", s.sock, "kill-server").Run()
	})
	return s
}

func (s *tmuxScreen) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *tmuxScreen) capture() string {
	out, _ := exec.Command("tmux", "-S", s.sock, "capture-pane", "-p", "-t", "0").Output()
	return string(out)
}

// wait waits until ok holds of the screen, then until two captures a
// moment apart agree (the frame is drawn), and returns the screen.
func (s *tmuxScreen) wait(what string, ok func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(waitLimit)
	prev := ""
	for {
		scr := s.capture()
		if ok(scr) && scr == prev {
			return scr
		}
		prev = scr
		if time.Now().After(deadline) {
			s.t.Fatalf("waited %v for %s", waitLimit, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *tmuxScreen) keys(k ...string) {
	s.t.Helper()
	s.run(append([]string{"send-keys", "-t", "0"}, k...)...)
}

// runsEnded: n runs have printed their numbers (a line "↑IN ↓OUT …").
func runsEnded(n int) func(string) bool {
	return func(scr string) bool {
		return strings.Count("\n"+scr, "\n↑") >= n
	}
}

// checkFrame fails when the screen shows rows of an earlier frame: the
// footer (the model's name first) must be the last line drawn, once, with
// the editor's prompt line once between the answer and it.
func checkFrame(t *testing.T, when, scr, answerEnd string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(scr, "\n "), "\n")
	footers := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "fake/test-model") {
			footers++
		}
	}
	if footers != 1 || !strings.HasPrefix(lines[len(lines)-1], "fake/test-model") {
		t.Errorf("%s: the footer should be the last line, once (%d seen):\n%s", when, footers, scr)
	}
	if strings.Contains(scr, "⋯ working") {
		t.Errorf("%s: the run is over and \"⋯ working\" is still shown:\n%s", when, scr)
	}
	after := scr[strings.LastIndex(scr, answerEnd):]
	if n := strings.Count(after, "\n>"); n != 1 {
		t.Errorf("%s: %d prompt lines after the answer, want 1:\n%s", when, n, scr)
	}
}

// TestResizeDuringStream: the window narrows (140→60) and widens (60→140)
// while an answer streams; once it ends, no row of an earlier frame is left
// on the screen.
func TestResizeDuringStream(t *testing.T) {
	f := newFixture(t, slowAnswer(40), slowAnswer(40))
	s := f.startTmux(140, 30, agentCmd+" --yes")
	s.wait("the start-up screen", func(scr string) bool { return strings.Contains(scr, "/help for commands") })

	s.keys("-l", "stream one")
	s.keys("Enter")
	s.wait("a long line streaming", func(scr string) bool { return strings.Contains(scr, "word14") })
	s.run("resize-window", "-t", "0", "-x", "60")
	scr := s.wait("the answer's end", runsEnded(1))
	checkFrame(t, "narrowed during the stream", scr, "word39")

	s.keys("-l", "stream two")
	s.keys("Enter")
	s.wait("the second answer streaming", func(scr string) bool { return strings.Count(scr, "word14") >= 2 })
	s.run("resize-window", "-t", "0", "-x", "140")
	scr = s.wait("the second answer's end", runsEnded(2))
	checkFrame(t, "widened during the stream", scr, "word39")
}
