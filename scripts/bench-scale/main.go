// Command bench-scale times a turn against the session's size (issue 20),
// ours beside pi 0.73.1 on the same fake OpenAI-compatible server
// (scripts/fakeprovider). Sessions are pi-shaped (scripts/gensession -pi
// -spread: messages of 0.1-4 KB, bash calls with matching result ids, a
// compaction whenever the context passed ~90k tokens; -compact-at 0: never) of 1k, 10k and 100k
// entries (-1m adds 1M; pi is left out there unless -pi-1m: pi 0.73.1
// cannot read a 1.3 GB file, Node refusing a string over 512 MiB). For each
// size, the medians [min–max] of -runs interleaved rounds of
//
//	first turn   the first turn on the pi-written file (ours: pruning and
//	             its one rewrite; pi: an ordinary turn)
//	steady       one more turn on a file the same agent already took a turn on
//
// Ours is the whole pipeline
//
//	agent-session open s | agent-compact | agent-chat | agent-session append s
//
// its wall the pipeline's, CPU (user+sys) and peak RSS summed over its four
// processes (they run at once). Writes the medians to DIR/results.tsv and a
// plot of time per turn against size to -plot (default DIR/scale.svg;
// -plot docs/scale.svg updates the committed one). Prints figures, asserts
// nothing. Generated files are deleted at the end (-keep keeps them).
//
//	go run ./scripts/bench-scale -runs 3 -1m
//	go run ./scripts/bench-scale -sizes 1000000 -runs 1 -pi-1m -pi-timeout 15m
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentutils/agentutils/scripts/internal/bench"
)

var (
	runs      = flag.Int("runs", 3, "interleaved rounds per size")
	sizes     = flag.String("sizes", "1000,10000,100000", "session sizes in entries, comma-separated")
	oneM      = flag.Bool("1m", false, "add 1,000,000 entries")
	pi1M      = flag.Bool("pi-1m", false, "run pi on 1,000,000 entries too")
	piTimeout = flag.Duration("pi-timeout", 0, "give a pi turn up after this long (0: never)")
	keep      = flag.Bool("keep", false, "keep the generated files")
	plot      = flag.String("plot", "", "the SVG to write (default DIR/scale.svg)")
	compactAt = flag.Int("compact-at", 90000, "the generated sessions compact past this many tokens (0: never compacted)")
)

type scale struct {
	root, dir, work, pi string
	stages              []bench.Cost // ours' last turn, by stage
	piFailed            string       // why a pi turn of this size is not a turn ("" when all were)
}

func main() { bench.Main("bench-scale", run) }

func run() error {
	root, dir, err := bench.Setup("scale", "./scripts/fakeprovider", "./scripts/gensession", "./scripts/plotscale")
	if err != nil {
		return err
	}
	s := &scale{root: root, dir: dir, work: filepath.Join(dir, "work")}
	defer s.cleanup()
	// a window above every generated context: neither agent compacts during a run
	stop, err := bench.FakeProvider(dir, "openai-completions", 200000, "-sse", "testdata/sse/openai/text.sse")
	if err != nil {
		return err
	}
	defer stop()
	if err := os.MkdirAll(s.work, 0o755); err != nil {
		return err
	}
	if s.pi, err = bench.Pi(); err != nil {
		bench.Skipped("bench-scale", "pi's columns", err)
	}
	list := strings.Split(*sizes, ",")
	if *oneM {
		list = append(list, "1000000")
	}
	var results bytes.Buffer
	fmt.Printf("medians [min–max] of %d interleaved rounds; pi %s; ours is open | compact | chat | append (CPU and RSS summed)\n", *runs, bench.PiVersion)
	for _, ns := range list {
		n, err := strconv.Atoi(strings.TrimSpace(ns))
		if err != nil {
			return fmt.Errorf("-sizes: %q is not a number", ns)
		}
		if err := s.size(n, &results); err != nil {
			return err
		}
	}
	tsv := filepath.Join(dir, "results.tsv")
	if err := os.WriteFile(tsv, results.Bytes(), 0o644); err != nil {
		return err
	}
	out := *plot
	if out == "" {
		out = filepath.Join(dir, "scale.svg")
	}
	if err := plotResults(dir, results.String(), out); err != nil {
		return err
	}
	fmt.Printf("results: %s; plot: %s\n", tsv, out)
	return nil
}

// size measures the turns on a session of n entries and prints its rows.
func (s *scale) size(n int, results *bytes.Buffer) error {
	src := filepath.Join(s.dir, fmt.Sprintf("pi-%d.jsonl", n))
	if err := s.generate(src, n); err != nil {
		return err
	}
	defer os.Remove(src)
	st, _ := os.Stat(src)
	mb := float64(st.Size()) / 1e6
	usePi := s.pi != "" && (n < 1000000 || *pi1M)
	o, p := filepath.Join(s.dir, "o.jsonl"), filepath.Join(s.dir, "p.jsonl")
	defer os.Remove(o)
	defer os.Remove(p)
	s.piFailed = ""
	first := []bench.Peer{{Name: "ours", Run: func() (bench.Cost, error) {
		// a new file without our index beside it (a copy onto the old one
		// would keep its inode, and the index of the same bytes would hold)
		os.RemoveAll(strings.TrimSuffix(o, ".jsonl"))
		if err := copyNew(src, o); err != nil {
			return bench.Cost{}, err
		}
		return s.ours(o)
	}}}
	steady := []bench.Peer{{Name: "ours", Run: func() (bench.Cost, error) { return s.ours(o) }}}
	if usePi {
		first = append(first, bench.Peer{Name: "pi", Run: func() (bench.Cost, error) {
			if err := copyNew(src, p); err != nil {
				return bench.Cost{}, err
			}
			return s.theirs(p)
		}})
		steady = append(steady, bench.Peer{Name: "pi", Run: func() (bench.Cost, error) { return s.theirs(p) }})
	}
	rf, err := bench.Interleave(*runs, first...)
	if err != nil {
		return err
	}
	// steady state: each agent goes on in the file its last first turn left
	rs, err := bench.Interleave(*runs, steady...)
	if err != nil {
		return err
	}
	var t bench.Table
	t.Row(fmt.Sprintf("%d entries, %.1f MB", n, mb), "", "wall", "CPU", "peak RSS")
	for _, turn := range []struct {
		name string
		r    bench.Runs
	}{{"steady", rs}, {"first turn", rf}} {
		for _, tool := range []string{"ours", "pi"} {
			if len(turn.r[tool]) == 0 {
				continue
			}
			t.Row(append([]string{"  " + turn.name, tool}, turn.r.Cells(tool, 0)...)...)
			series := tool + "-" + strings.Fields(turn.name)[0]
			if tool == "pi" && s.piFailed != "" {
				continue // not a turn: left out of the plot
			}
			fmt.Fprintf(results, "%d %s %.0f %.0f %.0f %.1f\n", n, series, turn.r.Stat(tool, bench.WallMS).Median,
				turn.r.Stat(tool, bench.CPUMS).Median, turn.r.Stat(tool, bench.RSSMB).Median*1024, mb)
		}
	}
	if s.piFailed != "" {
		t.Note("  pi: " + s.piFailed)
	}
	if usePi {
		t.Note(fmt.Sprintf("  pi/ours: steady %s, first turn %s (wall); CPU steady %s; RSS ours/pi %s",
			rs.Ratio("pi", "ours", bench.WallMS), rf.Ratio("pi", "ours", bench.WallMS),
			rs.Ratio("pi", "ours", bench.CPUMS), rs.Ratio("ours", "pi", bench.RSSMB)))
	}
	var by []string
	for i, name := range []string{"open", "compact", "chat", "append"} {
		by = append(by, fmt.Sprintf("%s %.1f/%.0f", name, bench.CPUMS(s.stages[i]), bench.RSSMB(s.stages[i])))
	}
	t.Note("  ours, last steady turn by stage (CPU ms/RSS MB): " + strings.Join(by, "  "))
	t.Note("  load average at the end of this size: " + bench.Load() + " (1, 5, 15 min)")
	fmt.Print(t.String())
	if usePi && n <= 10000 { // pi must still open what we wrote
		c := exec.Command(s.pi, "-p", "--provider", "fake", "--model", "test-model", "--session", o, "still there?")
		c.Dir = s.work
		if _, err := bench.Run(c); err != nil {
			fmt.Printf("  pi could not open the session we wrote at %d entries: %v\n", n, err)
		}
	}
	return nil
}

// generate writes a pi-shaped session of n entries whose cwd is the work directory.
func (s *scale) generate(file string, n int) error {
	var out bytes.Buffer
	c := exec.Command(filepath.Join(s.dir, "gensession"), "-pi", "-spread", "-compact-at", strconv.Itoa(*compactAt), "-n", strconv.Itoa(n))
	c.Stdout, c.Stderr = &out, os.Stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("gensession: %w", err)
	}
	b := out.Bytes()
	nl := bytes.IndexByte(b, '\n')
	head := regexp.MustCompile(`"cwd":"[^"]*"`).ReplaceAll(b[:nl], fmt.Appendf(nil, `"cwd":%q`, s.work))
	return os.WriteFile(file, append(head, b[nl:]...), 0o644)
}

// ours is one turn through the whole pipeline.
func (s *scale) ours(file string) (bench.Cost, error) {
	errs, err := os.OpenFile(filepath.Join(s.dir, "ours.err"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return bench.Cost{}, err
	}
	defer errs.Close()
	b := s.root + "/bin/"
	cmds := []*exec.Cmd{
		exec.Command(b+"agent-session", "open", file),
		exec.Command(b+"agent-compact", "--model", "fake/test-model"),
		exec.Command(b+"agent-chat", "--model", "fake/test-model", "--no-context-files", "one more"),
		exec.Command(b+"agent-session", "append", file),
	}
	for _, c := range cmds {
		c.Dir, c.Stderr = s.work, errs
	}
	total, stages, err := bench.RunPipe(cmds...)
	s.stages = stages
	return total, err
}

// theirs is one pi turn on file, given up after -pi-timeout. A turn that
// fails or times out is kept (its time is that to the failure) and noted.
func (s *scale) theirs(file string) (bench.Cost, error) {
	c := exec.Command(s.pi, "-p", "--provider", "fake", "--model", "test-model", "--session", file, "one more")
	c.Dir = s.work
	cost, err := bench.RunLimit(*piTimeout, c)
	switch {
	case cost.TimedOut:
		s.piFailed = fmt.Sprintf("a turn did not finish in %s (killed; its figures are those up to the kill)", *piTimeout)
	case err != nil: // (1M entries: Node cannot read a 1.3 GB file into one string)
		s.piFailed = fmt.Sprintf("a turn failed (its figures are the time to the failure): %v", err)
	}
	return cost, nil
}

// copyNew copies src to a new file dst (a new inode).
func copyNew(src, dst string) error {
	os.Remove(dst)
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// plotResults draws wall per turn, and for the steady turns CPU too (the
// figure shared cores disturb least), with scripts/plotscale.
func plotResults(dir, results, out string) error {
	var in strings.Builder
	sc := bufio.NewScanner(strings.NewReader(results))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		fmt.Fprintf(&in, "%s %s %s\n", f[0], f[1], f[2])
		if strings.HasSuffix(f[1], "steady") {
			fmt.Fprintf(&in, "%s %s-cpu %s\n", f[0], f[1], f[3])
		}
	}
	c := exec.Command(filepath.Join(dir, "plotscale"))
	c.Stdin, c.Stderr = strings.NewReader(in.String()), os.Stderr
	svg, err := c.Output()
	if err != nil {
		return fmt.Errorf("plotscale: %w", err)
	}
	return os.WriteFile(out, svg, 0o644)
}

func (s *scale) cleanup() {
	if *keep {
		return
	}
	for _, g := range []string{"*.jsonl", "work", "home", "piagent"} {
		m, _ := filepath.Glob(filepath.Join(s.dir, g))
		for _, f := range m {
			os.RemoveAll(f)
		}
	}
}
