// Command bench-loop times the agent loop beside pi 0.73.1 on one local
// fake OpenAI-compatible server that scripts a five-turn task (four read
// calls, then an answer; testdata/sse/openai/task): ours is the whole
// pipeline, `agent-session open | agent-chat --tools-cmd "agent-tool
// serve" | agent-session append` (CPU summed over the processes, the tool
// process's inside agent-chat's; peak RSS summed over the stages, agent-chat's
// the larger of it and its tool process), pi is `pi -p --mode json`. The two
// run interleaved, round by round; each figure is the median [min–max] of
// the rounds. pi is skipped with a notice when it cannot be installed.
// Prints figures, asserts nothing.
//
//	go run ./scripts/bench-loop -runs 5
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentutils/agentutils/scripts/internal/bench"
)

var runs = flag.Int("runs", 5, "interleaved rounds")

func main() { bench.Main("bench-loop", run) }

func run() error {
	root, dir, err := bench.Setup("loop", "./scripts/fakeprovider")
	if err != nil {
		return err
	}
	task, _ := filepath.Glob("testdata/sse/openai/task/turn*.sse")
	stop, err := bench.FakeProvider(dir, "openai-completions", 128000, "-sse", strings.Join(task, ","))
	if err != nil {
		return err
	}
	defer stop()
	work := filepath.Join(dir, "work")
	os.RemoveAll(work)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("remember the milk\n"), 0o644); err != nil {
		return err
	}
	b := root + "/bin/"
	session := filepath.Join(dir, "s.jsonl")
	peers := []bench.Peer{{Name: "agentutils", Run: func() (bench.Cost, error) {
		os.Remove(session)
		cmds := []*exec.Cmd{
			exec.Command(b+"agent-session", "open", session),
			exec.Command(b+"agent-chat", "--model", "fake/test-model", "--no-context-files", "--throttle", "0",
				"--tools-cmd", b+"agent-tool serve", "do the task"),
			exec.Command(b+"agent-session", "append", session),
		}
		for _, c := range cmds {
			c.Dir = work
		}
		c, _, err := bench.RunPipe(cmds...)
		return c, err
	}}}
	pi, piErr := bench.Pi()
	if piErr == nil {
		peers = append(peers, bench.Peer{Name: "pi " + bench.PiVersion, Run: func() (bench.Cost, error) {
			c := exec.Command(pi, "-p", "--mode", "json", "--provider", "fake", "--model", "test-model", "--no-session", "do the task")
			c.Dir = work
			return bench.Run(c)
		}})
	}
	r, err := bench.Interleave(*runs, peers...)
	if err != nil {
		return err
	}
	fmt.Printf("five-turn task (4 read calls + answer), medians [min–max] of %d interleaved rounds; load %s\n", *runs, bench.Load())
	var t bench.Table
	t.Row("tool", "wall", "CPU", "peak RSS")
	for _, p := range peers {
		t.Row(append([]string{p.Name}, r.Cells(p.Name, 0)...)...)
	}
	if piErr == nil {
		pi := peers[1].Name
		t.Row("pi/ours", r.Ratio(pi, "agentutils", bench.WallMS), r.Ratio(pi, "agentutils", bench.CPUMS), r.Ratio(pi, "agentutils", bench.RSSMB))
	}
	fmt.Print(t.String())
	if piErr != nil {
		bench.Skipped("bench-loop", "pi", piErr)
	}
	return nil
}
