// Command bench-usage runs agent-session usage beside ccusage (npm, the
// pinned version below, installed once into the cache) on the same Claude
// Code directory: the corpus's Claude transcripts ($CORPUS, default
// ../shared/corpus, transcripts/claude) copied at run time into a
// temporary ~/.claude/projects, -copies times over (copies of a resumed
// session's messages, which both count once), plus every transcript cut
// into files of 40 lines (many small sessions, as a long-used ~/.claude
// holds). Prints both totals and whether they agree, then the two timed
// interleaved, round by round (ccusage's node start-up included, as its
// users pay it): medians [min–max] of wall and CPU (user+sys). Skipped with
// a notice when the corpus, node or npm is absent.
//
//	CORPUS=../shared/corpus go run ./scripts/bench-usage -copies 20 -runs 5
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentutils/agentutils/scripts/internal/bench"
)

// ccusageVersion: 18+ needs a native binary npm does not install here.
const ccusageVersion = "17.2.1"

var (
	copies = flag.Int("copies", 20, "copies of the corpus's transcripts")
	runs   = flag.Int("runs", 5, "interleaved rounds")
)

func main() { bench.Main("bench-usage", run) }

func run() error {
	root, err := bench.Root()
	if err != nil {
		return err
	}
	corpus := os.Getenv("CORPUS")
	if corpus == "" {
		corpus = filepath.Join(root, "..", "shared", "corpus")
	}
	corpus = filepath.Join(corpus, "transcripts", "claude")
	if _, err := os.Stat(corpus); err != nil {
		bench.Skipped("bench-usage", "the benchmark", fmt.Errorf("no corpus at %s", corpus))
		return nil
	}
	bin, err := bench.NPM(bench.NPMPrefix("CCUSAGE_DIR", "ccusage-"+ccusageVersion), "ccusage@"+ccusageVersion)
	if err != nil {
		bench.Skipped("bench-usage", "the benchmark", err)
		return nil
	}
	work, err := os.MkdirTemp("", "bench-usage")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	projects := filepath.Join(work, ".claude", "projects")
	files, mb, err := fill(corpus, projects)
	if err != nil {
		return err
	}
	os.Setenv("TZ", "UTC")
	ours := exec.Command(root+"/bin/agent-session", "usage", "--claude-dir", projects, "--pi-dir", "none", "--codex-dir", "none",
		"--sessions-dir", "none", "--timezone", "UTC", "--json")
	theirs := exec.Command(filepath.Join(bin, "ccusage"), "daily", "--json", "--offline")
	theirs.Env = append(os.Environ(), "HOME="+work, "CLAUDE_CONFIG_DIR="+filepath.Join(work, ".claude"))
	fmt.Printf("input: %d Claude Code files, %.0f MB: %d copies of the corpus's, and one cut in 40-line files\n", files, mb, *copies)
	if err := totals(clone(ours), clone(theirs)); err != nil {
		return err
	}
	r, err := bench.Interleave(*runs,
		bench.Peer{Name: "agentutils", Run: func() (bench.Cost, error) { return bench.Run(clone(ours)) }},
		bench.Peer{Name: "ccusage " + ccusageVersion, Run: func() (bench.Cost, error) { return bench.Run(clone(theirs)) }})
	if err != nil {
		return err
	}
	fmt.Printf("medians [min–max] of %d interleaved rounds; load %s\n", *runs, bench.Load())
	var t bench.Table
	t.Row("", "wall", "", "CPU (user+sys)")
	for _, name := range []string{"agentutils", "ccusage " + ccusageVersion} {
		w := r.Stat(name, bench.WallMS)
		t.Row(name, w.Fmt(0, "ms"), fmt.Sprintf("%.0f MB/s", mb/(w.Median/1000)), r.Stat(name, bench.CPUMS).Fmt(0, "ms"))
	}
	t.Row("ccusage/ours", r.Ratio("ccusage "+ccusageVersion, "agentutils", bench.WallMS), "", r.Ratio("ccusage "+ccusageVersion, "agentutils", bench.CPUMS))
	fmt.Print(t.String())
	return nil
}

func clone(c *exec.Cmd) *exec.Cmd {
	d := exec.Command(c.Path, c.Args[1:]...)
	d.Env = c.Env
	return d
}

// fill copies the corpus into projects -copies times (decompressing .gz),
// then cuts the first copy's files into 40-line files; it returns the
// number of files and their MB.
func fill(corpus, projects string) (int, float64, error) {
	src, _ := filepath.Glob(filepath.Join(corpus, "*.jsonl*"))
	var files int
	var size int64
	for i := 1; i <= *copies; i++ {
		d := filepath.Join(projects, fmt.Sprintf("-bench-p%d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return 0, 0, err
		}
		for _, f := range src {
			b, err := read(f)
			if err != nil {
				return 0, 0, err
			}
			if err := os.WriteFile(filepath.Join(d, strings.TrimSuffix(filepath.Base(f), ".gz")), b, 0o644); err != nil {
				return 0, 0, err
			}
			files++
			size += int64(len(b))
		}
	}
	split := filepath.Join(projects, "-bench-split")
	if err := os.MkdirAll(split, 0o755); err != nil {
		return 0, 0, err
	}
	first, _ := filepath.Glob(filepath.Join(projects, "-bench-p1", "*.jsonl"))
	for _, f := range first {
		n, written, err := cut(f, split, 40)
		if err != nil {
			return 0, 0, err
		}
		files += n
		size += written
	}
	return files, float64(size) / (1 << 20), nil
}

func read(file string) ([]byte, error) {
	b, err := os.ReadFile(file)
	if err != nil || !strings.HasSuffix(file, ".gz") {
		return b, err
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return io.ReadAll(z)
}

// cut writes file's lines into dir as NAME-000.jsonl, NAME-001.jsonl, …, each
// of at most lines lines (as split -l N -d -a 3 does).
func cut(file, dir string, lines int) (int, int64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, 0, err
	}
	name := strings.TrimSuffix(filepath.Base(file), ".jsonl")
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	var chunk bytes.Buffer
	n, inChunk := 0, 0
	flush := func() error {
		if chunk.Len() == 0 {
			return nil
		}
		err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%03d.jsonl", name, n)), chunk.Bytes(), 0o644)
		n, inChunk = n+1, 0
		chunk.Reset()
		return err
	}
	for sc.Scan() {
		chunk.Write(sc.Bytes())
		chunk.WriteByte('\n')
		if inChunk++; inChunk == lines {
			if err := flush(); err != nil {
				return 0, 0, err
			}
		}
	}
	if err := flush(); err != nil {
		return 0, 0, err
	}
	return n, int64(len(b)), sc.Err()
}

// totals prints both programs' totals and whether they agree.
func totals(ours, theirs *exec.Cmd) error {
	var o struct {
		Total struct {
			Input, Output, CacheRead, CacheWrite int64
			Cost                                 float64
		}
		Unpriced []string
	}
	var t struct {
		Totals struct {
			InputTokens, OutputTokens, CacheReadTokens, CacheCreationTokens int64
			TotalCost                                                       float64
		}
	}
	for _, x := range []struct {
		c *exec.Cmd
		v any
	}{{ours, &o}, {theirs, &t}} {
		out, err := x.c.Output()
		if err != nil {
			return fmt.Errorf("%s: %w", strings.Join(x.c.Args, " "), err)
		}
		if err := json.Unmarshal(out, x.v); err != nil {
			return fmt.Errorf("%s: %w", x.c.Args[0], err)
		}
	}
	var tb bench.Table
	tb.Row("", "input", "output", "cache read", "cache write", "cost")
	tb.Row("agentutils", fmt.Sprint(o.Total.Input), fmt.Sprint(o.Total.Output), fmt.Sprint(o.Total.CacheRead), fmt.Sprint(o.Total.CacheWrite), fmt.Sprintf("%.4f", o.Total.Cost))
	tt := t.Totals
	tb.Row("ccusage "+ccusageVersion, fmt.Sprint(tt.InputTokens), fmt.Sprint(tt.OutputTokens), fmt.Sprint(tt.CacheReadTokens), fmt.Sprint(tt.CacheCreationTokens), fmt.Sprintf("%.4f", tt.TotalCost))
	fmt.Print(tb.String())
	for _, c := range []struct {
		name string
		a, b int64
	}{{"input", o.Total.Input, tt.InputTokens}, {"cacheRead", o.Total.CacheRead, tt.CacheReadTokens},
		{"cacheWrite", o.Total.CacheWrite, tt.CacheCreationTokens}, {"output", o.Total.Output, tt.OutputTokens}} {
		if c.a == c.b {
			fmt.Printf("%s: same (%d)\n", c.name, c.a)
		} else {
			fmt.Printf("%s: differ (ours %d, ccusage %d)\n", c.name, c.a, c.b)
		}
	}
	fmt.Println("(output: ccusage counts the first line Claude Code writes of a message, whose output_tokens is")
	fmt.Println(" still partial; we count the message's last line, its final usage. cost: ours prices from the")
	fmt.Println(" model catalog, which lacks some older models (listed unpriced); ccusage from LiteLLM's prices)")
	fmt.Println("unpriced: " + strings.Join(o.Unpriced, ", "))
	return nil
}
