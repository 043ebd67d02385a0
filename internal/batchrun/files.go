package batchrun

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/agentutils/agentutils/lib/batch"
	"github.com/agentutils/agentutils/lib/usage"
)

// spent is the cost of every run in out: each session file's assistant
// messages, so that runs that were retried, interrupted or killed before
// they wrote a result count too.
func spent(out string) float64 {
	files, _ := filepath.Glob(filepath.Join(out, "sessions", "*", "*.jsonl"))
	total := 0.0
	for _, f := range files {
		total += sessionCost(f)
	}
	return total
}

func sessionCost(path string) float64 { return sessionTally(path).Cost }

// sessionTally counts a session file's assistant messages: turns, tokens,
// cost and the last model.
func sessionTally(path string) batch.Tally {
	var t batch.Tally
	f, err := os.Open(path)
	if err != nil {
		return t
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"usage"`)) {
			lines = append(lines, append([]byte(nil), sc.Bytes()...))
		}
	}
	for _, e := range usage.FromEntries("agentutils", "", lines) {
		t.Turns++
		t.Input += int(e.Input)
		t.Output += int(e.Output)
		t.CacheRead += int(e.CacheRead)
		t.CacheWrite += int(e.CacheWrite)
		t.Cost += e.Cost
		if t.Model = e.Model; e.Provider != "" {
			t.Model = e.Provider + "/" + e.Model
		}
	}
	return t
}

// trajectory writes the HTML export of a result's session to
// OUT/trajectories/ID.html (agent-session export --html), which
// agent-session stats --html links from the task's row.
func (b *run) trajectory(r batch.Result) {
	if r.Session == "" {
		return
	}
	dir := filepath.Join(b.o.Out, "trajectories")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	cmd := exec.Command(filepath.Join(b.o.Bin, "agent-session"), "export", "--html", "-o", filepath.Join(dir, r.ID+".html"), r.Session)
	cmd.Env = b.childEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(b.o.Log, "agent-batch: %s: trajectory: %v %s\n", r.ID, err, bytes.TrimSpace(out))
	}
}

// Report writes OUT/report.html (agent-session stats --html over
// OUT/results.jsonl): the plots and tables, each task linked to its
// trajectory.
func Report(o Options) error {
	cmd := exec.Command(filepath.Join(o.Bin, "agent-session"), "stats", "--html", "-o", filepath.Join(o.Out, "report.html"), filepath.Join(o.Out, "results.jsonl"))
	cmd.Stderr, cmd.Env = o.Log, o.Environ
	return cmd.Run()
}
