// Command bench-agent-compact times agent-compact on generated sessions of
// about 2,000,000 and 8,000,000 estimated tokens (chars/4): --dry-run
// --force (the plan: every entry read, indexed and estimated) and the
// pass-through with nothing to do (the stream written back), beside the
// floor, `cat` reading the same stream (the reading no stage can avoid),
// with the ratio to it, and agent-compact's start-up alone. No peer compacts
// outside its own loop, so the floor is the comparison. The four run
// interleaved, round by round; each figure is the median [min–max] of the
// rounds: wall, CPU (user+sys) and peak RSS, all from the same run. Then
// the compression a forced compaction would achieve on the demo's session
// (make demo keeps a copy). Then peak RSS against the session's length
// (-rss-sizes, default 10k, 100k and 1M entries of ~1 KB, never
// compacted: every entry is in the context, none is let go of by a
// compaction's cut): the pass-through with the stream from a file and
// from a pipe, beside cat's. Prints figures, asserts nothing.
//
//	go run ./scripts/bench-agent-compact -runs 7 -rss-sizes 10000,100000,1000000
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentutils/agentutils/scripts/internal/bench"
)

var model = []string{"--model", "anthropic/claude-sonnet-4-5"}

var (
	runs     = flag.Int("runs", 7, "interleaved rounds")
	rssSizes = flag.String("rss-sizes", "10000,100000,1000000", "session sizes in entries for the peak RSS rows, comma-separated (empty: none)")
)

func main() { bench.Main("bench-agent-compact", run) }

func run() error {
	root, dir, err := bench.Setup("", "./scripts/gensession")
	if err != nil {
		return err
	}
	os.Setenv("AGENTUTILS_HOME", filepath.Join(dir, "home"))
	as, ac := root+"/bin/agent-session", root+"/bin/agent-compact"
	fmt.Printf("medians [min–max] of %d interleaved rounds; CPU = user+sys of the same run; load %s\n", *runs, bench.Load())
	for _, n := range []int{8000, 32000} {
		stream, err := genStream(dir, as, "compact", n)
		if err != nil {
			return err
		}
		st, _ := os.Stat(stream)
		fmt.Printf("%d entries, %.1f MB, ~%d tokens:\n", n, float64(st.Size())/1e6, st.Size()/4)
		in := func(argv ...string) func() (bench.Cost, error) {
			return func() (bench.Cost, error) { return fromFile(stream, argv...) }
		}
		peers := []bench.Peer{
			{Name: "floor: cat (reading the stream)", Run: in("cat")},
			{Name: "start-up: agent-compact --version", Run: func() (bench.Cost, error) { return bench.Run(exec.Command(ac, "--version")) }},
			{Name: "agent-compact --dry-run --force", Run: in(append([]string{ac, "--dry-run", "--force"}, model...)...)},
			{Name: "agent-compact (nothing to do)", Run: in(append([]string{ac}, model...)...)},
		}
		r, err := bench.Interleave(*runs, peers...)
		if err != nil {
			return err
		}
		floor := peers[0].Name
		var t bench.Table
		t.Row("", "wall", "CPU", "peak RSS")
		for i, p := range peers {
			ratio := ""
			if i >= 2 {
				ratio = fmt.Sprintf("%s wall, %s CPU of the floor", r.Ratio(p.Name, floor, bench.WallMS), r.Ratio(p.Name, floor, bench.CPUMS))
			}
			t.Row(append(append([]string{"  " + p.Name}, r.Cells(p.Name, 1)...), ratio)...)
		}
		fmt.Print(t.String())
	}
	if err := demo(dir, as, ac); err != nil {
		return err
	}
	return rssRows(dir, as, ac)
}

// rssRows prints agent-compact's peak RSS passing never-compacted sessions
// of each -rss-sizes length through, from a file and from a pipe.
func rssRows(dir, as, ac string) error {
	if *rssSizes == "" {
		return nil
	}
	var t bench.Table
	t.Row("peak RSS, nothing to do (never compacted)", "MB", "wall", "CPU", "peak RSS")
	for _, ns := range strings.Split(*rssSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(ns))
		if err != nil {
			return fmt.Errorf("-rss-sizes: %q is not a number", ns)
		}
		stream, err := genStream(dir, as, "rss", n)
		if err != nil {
			return err
		}
		st, _ := os.Stat(stream)
		in := func(argv ...string) func() (bench.Cost, error) {
			return func() (bench.Cost, error) { return fromFile(stream, argv...) }
		}
		peers := []bench.Peer{
			{Name: "cat", Run: in("cat")},
			{Name: "agent-compact < file", Run: in(append([]string{ac}, model...)...)},
			{Name: "cat file | agent-compact", Run: func() (bench.Cost, error) {
				_, stages, err := bench.RunPipe(exec.Command("cat", stream), exec.Command(ac, model...))
				if err != nil {
					return bench.Cost{}, err
				}
				return stages[1], nil
			}},
		}
		r, err := bench.Interleave(max(1, *runs/2), peers...)
		if err != nil {
			return err
		}
		for _, p := range peers {
			t.Row(append([]string{fmt.Sprintf("  %d entries: %s", n, p.Name), fmt.Sprintf("%.0f", float64(st.Size())/1e6)}, r.Cells(p.Name, 1)...)...)
		}
	}
	fmt.Print(t.String())
	return nil
}

// genStream is the stream 'agent-session open' prints of a generated
// session of n entries of ~1 KB (DIR/NAME-N.jsonl, generated once, kept).
func genStream(dir, as, name string, n int) (string, error) {
	raw, stream := filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", name, n)), filepath.Join(dir, fmt.Sprintf("%s-%d.stream.jsonl", name, n))
	if st, err := os.Stat(raw); err != nil || st.Size() == 0 {
		if err := toFile(raw, exec.Command(filepath.Join(dir, "gensession"), "-n", strconv.Itoa(n), "-size", "1000")); err != nil {
			return "", err
		}
	}
	return stream, toFile(stream, exec.Command(as, "open", raw))
}

// fromFile runs argv with the file stream on its stdin.
func fromFile(stream string, argv ...string) (bench.Cost, error) {
	f, err := os.Open(stream)
	if err != nil {
		return bench.Cost{}, err
	}
	defer f.Close()
	c := exec.Command(argv[0], argv[1:]...)
	c.Stdin = f
	return bench.Run(c)
}

func toFile(file string, c *exec.Cmd) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	c.Stdout, c.Stderr = f, os.Stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("%s: %w", c.Args[0], err)
	}
	return nil
}

// demo prints the plan of a forced compaction of the demo's session.
func demo(dir, as, ac string) error {
	tmp := os.Getenv("TMPDIR")
	if tmp == "" {
		tmp = "/tmp"
	}
	session := filepath.Join(tmp, "agentutils-demo-session.jsonl")
	if st, err := os.Stat(session); err != nil || st.Size() == 0 {
		fmt.Println("demo session: run 'make demo' first to measure compression on it")
		return nil
	}
	var plan bytes.Buffer
	last := exec.Command(ac, append([]string{"--dry-run", "--force", "--keep-recent-tokens", "200"}, model...)...)
	last.Stdout = &plan
	if _, _, err := bench.RunPipe(exec.Command(as, "open", session), last); err != nil {
		return err
	}
	var p struct {
		Tokens, EstimatedTokensAfter int
		Plan                         struct{ SummarizeMessages, TurnPrefixMessages, KeptMessages int }
	}
	if err := json.Unmarshal(plan.Bytes(), &p); err != nil {
		return fmt.Errorf("agent-compact's plan: %w", err)
	}
	fmt.Printf("demo session (--force --keep-recent-tokens 200): %d tokens in context -> ~%d kept + the summary; %d messages summarized (%d of them a split turn), %d kept\n",
		p.Tokens, p.EstimatedTokensAfter, p.Plan.SummarizeMessages+p.Plan.TurnPrefixMessages, p.Plan.TurnPrefixMessages, p.Plan.KeptMessages)
	return nil
}
