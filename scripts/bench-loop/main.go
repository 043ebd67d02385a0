// Command bench-loop times the agent loop beside pi 0.73.1 on one local
// fake OpenAI-compatible server that scripts a five-turn task (four read
// calls, then an answer; testdata/sse/openai/task): ours is the whole
// pipeline, `agent-session open | agent-chat --tools-cmd "agent-tool
// serve" | agent-session append` (CPU summed over the processes, the tool
// process's inside agent-chat's; peak RSS summed over the stages, agent-chat's
// the larger of it and its tool process), pi is `pi -p --mode json`. The two
// run interleaved, round by round; each figure is the median [min–max] of
// the rounds. pi is skipped with a notice when it cannot be installed.
// A second table is one turn of 50 bash calls at once (`echo N`), then an
// answer (testdata/sse/openai/calls50): issue 39's per-call cost, the
// sandbox helper agent-tool starts for each call most of it.
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

var (
	runs   = flag.Int("runs", 5, "interleaved rounds")
	before = flag.String("before", "", "also run our pipeline with the binaries in this directory (another commit's build), interleaved")
	only   = flag.String("only", "", "run only the tasks whose title holds this")
)

func main() { bench.Main("bench-loop", run) }

// A task is a scripted conversation the two agents are given.
type task struct {
	title, glob, prompt string
}

var tasks = []task{
	{"five-turn task (4 read calls + answer)", "testdata/sse/openai/task/turn*.sse", "do the task"},
	{"one turn of 50 parallel bash calls + answer", "testdata/sse/openai/calls50/turn*.sse", "run the 50 commands"},
}

func run() error {
	root, dir, err := bench.Setup("loop", "./scripts/fakeprovider")
	if err != nil {
		return err
	}
	for _, t := range tasks {
		if !strings.Contains(t.title, *only) {
			continue
		}
		if err := runTask(root, dir, t); err != nil {
			return err
		}
	}
	return nil
}

func runTask(root, dir string, tk task) error {
	files, _ := filepath.Glob(tk.glob)
	stop, err := bench.FakeProvider(dir, "openai-completions", 128000, "-sse", strings.Join(files, ","))
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
	session := filepath.Join(dir, "s.jsonl")
	peers := []bench.Peer{{Name: "agentutils", Run: ours(root+"/bin/", session, work, tk)}}
	if *before != "" {
		peers = append(peers, bench.Peer{Name: "before", Run: ours(*before+"/", session, work, tk)})
	}
	pi, piErr := bench.Pi()
	if piErr == nil {
		peers = append(peers, bench.Peer{Name: "pi " + bench.PiVersion, Run: func() (bench.Cost, error) {
			c := exec.Command(pi, "-p", "--mode", "json", "--provider", "fake", "--model", "test-model", "--no-session", tk.prompt)
			c.Dir = work
			return bench.Run(c)
		}})
	}
	r, err := bench.Interleave(*runs, peers...)
	if err != nil {
		return err
	}
	fmt.Printf("%s, medians [min–max] of %d interleaved rounds; load %s\n", tk.title, *runs, bench.Load())
	var t bench.Table
	t.Row("tool", "wall", "CPU", "peak RSS")
	for _, p := range peers {
		t.Row(append([]string{p.Name}, r.Cells(p.Name, 0)...)...)
	}
	if piErr == nil {
		pi := peers[len(peers)-1].Name
		t.Row("pi/ours", r.Ratio(pi, "agentutils", bench.WallMS), r.Ratio(pi, "agentutils", bench.CPUMS), r.Ratio(pi, "agentutils", bench.RSSMB))
	}
	if *before != "" {
		t.Row("before/ours", r.Ratio("before", "agentutils", bench.WallMS), r.Ratio("before", "agentutils", bench.CPUMS), r.Ratio("before", "agentutils", bench.RSSMB))
	}
	fmt.Print(t.String())
	if piErr != nil {
		bench.Skipped("bench-loop", "pi", piErr)
	}
	return nil
}

// ours is one run of our pipeline with the binaries in b (a directory
// ending in /).
func ours(b, session, work string, tk task) func() (bench.Cost, error) {
	return func() (bench.Cost, error) {
		os.Remove(session)
		cmds := []*exec.Cmd{
			exec.Command(b+"agent-session", "open", session),
			exec.Command(b+"agent-chat", "--model", "fake/test-model", "--no-context-files", "--throttle", "0",
				"--tools-cmd", b+"agent-tool serve", tk.prompt),
			exec.Command(b+"agent-session", "append", session),
		}
		for _, c := range cmds {
			c.Dir = work
		}
		c, _, err := bench.RunPipe(cmds...)
		return c, err
	}
}
