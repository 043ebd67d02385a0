package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// processes lists the command lines of this machine's processes that hold
// marker (the process table, as ps reads it).
func processes(marker string) []string {
	var out []string
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(marker)) {
			out = append(out, string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// TestJobs: background jobs live as long as the agent session: one started
// at a prompt runs on into the next ones, /jobs lists and kills them, one
// that ends between prompts is shown at once and told to the model with
// the next prompt, and when agent exits the rest are killed, nothing of
// them left in the process table.
func TestJobs(t *testing.T) {
	marker := "jobs-test-" + filepath.Base(t.TempDir())
	f := newFixture(t,
		toolAnswer("bash", `{"command":"exec -a `+marker+`-a sleep 600","background":true}`), textAnswer("Started one."),
		toolAnswer("bash", `{"command":"while [ ! -e go ]; do sleep 0.05; done; echo finished","background":true,"timeout":300}`), textAnswer("Started two."),
		toolAnswer("bash", `{"command":"exec -a `+marker+`-b sleep 600","background":true}`), textAnswer("Started three."),
		textAnswer("Noted."))
	s := f.start(agentCmd + " --yes")
	s.wait("/help for commands")
	for _, p := range []string{"one", "two", "three"} {
		s.send("start " + p + "\r")
		s.wait("Started " + p + ".")
	}
	s.send("/jobs\r")
	s.wait("/jobs ID shows its output")
	txt := s.text()
	for _, want := range []string{"1   running", "2   running", "3   running", marker + "-b sleep 600"} {
		if !strings.Contains(txt, want) {
			t.Errorf("/jobs does not show %q", want)
		}
	}
	s.send("/jobs kill 3\r")
	s.wait("job 3: killed after")
	if ps := processes(marker + "-b"); len(ps) > 0 {
		t.Errorf("job 3 killed, yet running: %q", ps)
	}
	// a job that ends while no prompt runs
	if err := os.WriteFile(filepath.Join(f.dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s.wait("job 2 ended (exited with code 0")
	if strings.Contains(s.text(), "job 3 ended") {
		t.Error("job 3's end said again after /jobs kill said it")
	}
	s.send("anything new?\r")
	s.wait("Noted.")
	reqs := f.srv.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, `Background job 2 ended (exited with code 0`) || !strings.Contains(body, `finished`) {
		t.Errorf("the prompt after job 2 ended does not tell the model:\n%s", body)
	}
	if ps := processes(marker + "-a"); len(ps) != 1 {
		t.Errorf("job 1 should run on across prompts: %q", ps)
	}
	s.send("/exit\r")
	s.exited()
	if ps := processes(marker); len(ps) > 0 {
		t.Errorf("after agent exited its jobs still run: %q", ps)
	}
	if !strings.Contains(f.sessionText(), `"customType":"job_end"`) {
		t.Error("the session does not keep the notice of job 2's end")
	}
}
