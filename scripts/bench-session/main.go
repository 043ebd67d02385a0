// Command bench-session times agent-session open and append on a generated
// session of N entries (default 1,000,000, about 1 GB): open without an
// index (it reads the whole file and writes the index,
// formats/session-index), open with it, and `cat` of the file beside them,
// interleaved round by round, each figure the median [min–max] of the
// rounds, CPU (user+sys) beside wall. Then jq -c doing the same path
// extraction on a smaller file (jq's reduce slows down as its object
// grows), one entry appended to the big file beside the same to a
// 10-entry one (the target: at most 1.2x), and, when strace is installed,
// the first turn's append on pi-shaped sessions: how many rewrites and
// fsyncs the prune costs. Prints figures, asserts nothing.
//
//	go run ./scripts/bench-session -n 1000000 -runs 5
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentutils/agentutils/scripts/internal/bench"
)

var (
	n       = flag.Int("n", 1000000, "entries in the big session")
	size    = flag.Int("size", 1000, "bytes per message")
	runs    = flag.Int("runs", 5, "interleaved rounds")
	jqN     = flag.Int("jq-n", 20000, "entries in jq's file (0: no jq)")
	appends = flag.Int("appends", 20, "appends per file")
)

func main() { bench.Main("bench-session", run) }

func run() error {
	root, dir, err := bench.Setup("", "./scripts/gensession")
	if err != nil {
		return err
	}
	os.Setenv("AGENTUTILS_HOME", filepath.Join(dir, "home"))
	as := root + "/bin/agent-session"
	big, small := filepath.Join(dir, fmt.Sprintf("session-%d.jsonl", *n)), filepath.Join(dir, "session-10.jsonl")
	if err := gensession(dir, big, true, "-n", strconv.Itoa(*n)); err != nil {
		return err
	}
	if err := gensession(dir, small, false, "-n", "10"); err != nil {
		return err
	}
	mb := fileMB(big)
	fmt.Printf("file: %s, %d entries, %.1f MB\n", big, *n, mb)
	exec.Command("cat", big).Run() // warm the page cache
	r, err := bench.Interleave(*runs,
		bench.Peer{Name: "agent-session open, no index", Run: func() (bench.Cost, error) {
			os.RemoveAll(strings.TrimSuffix(big, ".jsonl") + "/index")
			return bench.Run(exec.Command(as, "open", big))
		}},
		bench.Peer{Name: "agent-session open, indexed", Run: func() (bench.Cost, error) { return bench.Run(exec.Command(as, "open", big)) }},
		bench.Peer{Name: "cat", Run: func() (bench.Cost, error) { return bench.Run(exec.Command("cat", big)) }})
	if err != nil {
		return err
	}
	fmt.Printf("medians [min–max] of %d interleaved rounds; load %s\n", *runs, bench.Load())
	var t bench.Table
	t.Row("", "wall", "", "CPU", "", "peak RSS")
	for _, name := range []string{"agent-session open, no index", "agent-session open, indexed", "cat"} {
		w, c := r.Stat(name, bench.WallMS), r.Stat(name, bench.CPUMS)
		t.Row(name, sec(w), rate(mb, w.Median), sec(c), rate(mb, c.Median)+" of CPU", r.Stat(name, bench.RSSMB).Fmt(0, "MB"))
	}
	fmt.Print(t.String())
	if err := jq(dir, as); err != nil {
		return err
	}
	if err := appendRatio(dir, as, big, small); err != nil {
		return err
	}
	return firstTurn(dir, root)
}

// gensession writes a generated session to file (kept when keep and it is there).
func gensession(dir, file string, keep bool, args ...string) error {
	if st, err := os.Stat(file); keep && err == nil && st.Size() > 0 {
		return nil
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	c := exec.Command(filepath.Join(dir, "gensession"), append(args, "-size", strconv.Itoa(*size))...)
	c.Stdout, c.Stderr = f, os.Stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("gensession %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

func fileMB(file string) float64 {
	st, err := os.Stat(file)
	if err != nil {
		return 0
	}
	return float64(st.Size()) / 1e6
}

func sec(s bench.Stat) string {
	return bench.Stat{Median: s.Median / 1000, Min: s.Min / 1000, Max: s.Max / 1000, N: s.N}.Fmt(2, "s")
}

func rate(mb, ms float64) string {
	if ms <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MB/s", mb/(ms/1000))
}

// jq: agent-session open beside jq -c extracting the same path, interleaved.
func jq(dir, as string) error {
	if *jqN == 0 {
		return nil
	}
	if !bench.Have("jq") {
		bench.Skipped("bench-session", "jq", fmt.Errorf("not installed"))
		return nil
	}
	mid := filepath.Join(dir, fmt.Sprintf("session-%d.jsonl", *jqN))
	if err := gensession(dir, mid, true, "-n", strconv.Itoa(*jqN)); err != nil {
		return err
	}
	prog := `reduce inputs as $e ({}; if $e.type=="session" then .h=$e else .m[$e.id]=$e | .last=$e.id end)
        | . as $s | $s.h, ([$s.last | recurse($s.m[.].parentId // empty)] | reverse | .[] | $s.m[.])`
	r, err := bench.Interleave(*runs,
		bench.Peer{Name: "agent-session open", Run: func() (bench.Cost, error) { return bench.Run(exec.Command(as, "open", mid)) }},
		bench.Peer{Name: "jq -c (same path extraction)", Run: func() (bench.Cost, error) { return bench.Run(exec.Command("jq", "-cn", prog, mid)) }})
	if err != nil {
		return err
	}
	mb := fileMB(mid)
	fmt.Printf("side by side on %s (%d entries, %.1f MB):\n", mid, *jqN, mb)
	var t bench.Table
	for _, name := range []string{"agent-session open", "jq -c (same path extraction)"} {
		w := r.Stat(name, bench.WallMS)
		t.Row("  "+name, sec(w), rate(mb, w.Median), "CPU "+sec(r.Stat(name, bench.CPUMS)), "peak RSS "+r.Stat(name, bench.RSSMB).Fmt(0, "MB"))
	}
	t.Row("  jq / ours", r.Ratio("jq -c (same path extraction)", "agent-session open", bench.WallMS), "",
		"CPU "+r.Ratio("jq -c (same path extraction)", "agent-session open", bench.CPUMS))
	fmt.Print(t.String())
	return nil
}

const event = `{"type":"message_end","message":{"role":"user","content":"one more","timestamp":1}}` + "\n"

// appendRatio: one entry appended to a copy of the big file and of the small
// one, interleaved.
func appendRatio(dir, as, big, small string) error {
	copies := map[string]string{}
	for name, src := range map[string]string{"big": big, "small": small} {
		dst := filepath.Join(dir, "append-copy-"+name+".jsonl")
		if err := copyFile(src, dst); err != nil {
			return err
		}
		exec.Command("sync", dst).Run() // the copy's dirty pages must not be charged to the first append's fsync
		copies[name] = dst
		defer os.Remove(dst)
	}
	app := func(file string) func() (bench.Cost, error) {
		return func() (bench.Cost, error) {
			c := exec.Command(as, "append", file)
			c.Stdin = strings.NewReader(event)
			return bench.Run(c)
		}
	}
	r, err := bench.Interleave(*appends,
		bench.Peer{Name: "big", Run: app(copies["big"])}, bench.Peer{Name: "small", Run: app(copies["small"])})
	if err != nil {
		return err
	}
	var t bench.Table
	t.Row(fmt.Sprintf("append 1 entry, %d-entry file", *n), r.Stat("big", bench.WallMS).Fmt(1, "ms"), "CPU "+r.Stat("big", bench.CPUMS).Fmt(1, "ms"))
	t.Row("append 1 entry, 10-entry file", r.Stat("small", bench.WallMS).Fmt(1, "ms"), "CPU "+r.Stat("small", bench.CPUMS).Fmt(1, "ms"))
	t.Row("ratio (target <= 1.2)", r.Ratio("big", "small", bench.WallMS), "CPU "+r.Ratio("big", "small", bench.CPUMS))
	fmt.Printf("%d appends to each, interleaved:\n%s", *appends, t.String())
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// firstTurn: the first turn on a long pi-shaped session (issue 20), what the
// append stage costs the file when agent-compact prunes. append's input is
// agent-chat's echo of the pending records plus a turn's message_end
// events, written a line at a time to a pipe, as a live producer does.
// "never compacted" is the same session without compactions: pruning then
// has the whole path to prune, and the stage's cost is that of its one
// rewrite.
func firstTurn(dir, root string) error {
	if !bench.Have("strace") {
		bench.Skipped("bench-session", "the first-turn rewrite counts", fmt.Errorf("strace not installed"))
		return nil
	}
	var t bench.Table
	for _, c := range []struct{ n, at int }{{1000, 90000}, {10000, 90000}, {1000, 0}, {10000, 0}} {
		pf := filepath.Join(dir, fmt.Sprintf("session-pi-%d-%d.jsonl", c.n, c.at))
		if err := gensession(dir, pf, true, "-pi", "-compact-at", strconv.Itoa(c.at), "-n", strconv.Itoa(c.n)); err != nil {
			return err
		}
		cp := filepath.Join(dir, "append-pi-copy.jsonl")
		if err := copyFile(pf, cp); err != nil {
			return err
		}
		var pruned bytes.Buffer
		last := exec.Command(root+"/bin/agent-compact", "--prune-only", "--context-window", "200000")
		last.Stdout = &pruned
		if _, _, err := bench.RunPipe(exec.Command(root+"/bin/agent-session", "open", cp), last); err != nil {
			return err
		}
		var input []string
		sc := bufio.NewScanner(&pruned)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			if bytes.Contains(sc.Bytes(), []byte(`"pending":true`)) {
				input = append(input, `{"type":"entry","entry":`+sc.Text()+"}\n")
			}
		}
		input = append(input, event)
		strace := filepath.Join(dir, "strace.out")
		if _, err := appendLines(root+"/bin/agent-session", pf, cp, input, "strace", "-f", "-c", "-e", "trace=fsync,fdatasync,rename,renameat,renameat2", "-o", strace); err != nil {
			return err
		}
		cost, err := appendLines(root+"/bin/agent-session", pf, cp, input) // the CPU without ptrace's, on a fresh copy
		if err != nil {
			return err
		}
		rewrites, fsyncs := straceCounts(strace)
		what := "entries"
		if c.at == 0 {
			what = "never compacted"
		}
		t.Row(fmt.Sprintf("first turn, pi-shaped %d %s", c.n, what), fmt.Sprintf("%d records", len(input)),
			fmt.Sprintf("rewrites %d", rewrites), fmt.Sprintf("fsyncs %d", fsyncs), fmt.Sprintf("append CPU %.0f ms", bench.CPUMS(cost)))
		os.Remove(cp)
	}
	fmt.Print(t.String())
	return nil
}

// appendLines runs agent-session append (after the prefix, strace's) on a
// fresh copy of src at cp with its index, its input written a line at a time to a pipe,
// as a live producer writes.
func appendLines(as, src, cp string, input []string, prefix ...string) (bench.Cost, error) {
	os.RemoveAll(strings.TrimSuffix(cp, ".jsonl")) // the index of an earlier copy
	if err := copyFile(src, cp); err != nil {
		return bench.Cost{}, err
	}
	if err := bench.RunQuiet(exec.Command(as, "open", cp)); err != nil { // its index, as the turn's open wrote it
		return bench.Cost{}, err
	}
	exec.Command("sync", cp).Run() // the copy's dirty pages must not be charged to the append's fsync
	argv := append(prefix, as, "append", cp)
	app := exec.Command(argv[0], argv[1:]...)
	w, err := app.StdinPipe()
	if err != nil {
		return bench.Cost{}, err
	}
	go func() {
		for _, l := range input {
			io.WriteString(w, l)
		}
		w.Close()
	}()
	return bench.Run(app)
}

// straceCounts sums the calls column of strace -c's rename* and fsync rows.
func straceCounts(file string) (rewrites, fsyncs int) {
	b, _ := os.ReadFile(file)
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 5 {
			continue
		}
		calls, err := strconv.Atoi(f[3])
		if err != nil {
			continue
		}
		switch name := f[len(f)-1]; {
		case strings.HasPrefix(name, "rename"):
			rewrites += calls
		case strings.HasSuffix(name, "sync"):
			fsyncs += calls
		}
	}
	return rewrites, fsyncs
}
