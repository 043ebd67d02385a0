// Command bench-chat times agent-chat beside pi 0.73.1 on the same local
// fake OpenAI-compatible server (scripts/fakeprovider): the time to the
// first text delta, to exit, the CPU (user+sys) and the peak RSS, for an
// empty session and a 2,000-message one. Ours is `agent-session open |
// agent-chat --once` (CPU and RSS summed over both); pi is `pi -p --mode
// json`. The two run interleaved, round by round; each figure is the
// median [min–max] of the rounds. pi comes from npm (scripts/internal/bench.Pi);
// without it its rows are skipped. Prints figures, asserts nothing.
//
//	go run ./scripts/bench-chat -runs 5
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"time"

	"github.com/agentutils/agentutils/scripts/internal/bench"
)

var runs = flag.Int("runs", 5, "interleaved rounds")

func main() { bench.Main("bench-chat", run) }

func run() error {
	root, dir, err := bench.Setup("chat", "./scripts/fakeprovider", "./scripts/gensession")
	if err != nil {
		return err
	}
	stop, err := bench.FakeProvider(dir, "openai-completions", 128000, "-sse", "testdata/sse/openai/text.sse")
	if err != nil {
		return err
	}
	defer stop()
	empty, big := filepath.Join(dir, "empty.jsonl"), filepath.Join(dir, "s2000.jsonl")
	header := `{"type":"session","version":3,"id":"0123456789abcdef","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/bench"}` + "\n"
	if err := os.WriteFile(empty, []byte(header), 0o644); err != nil {
		return err
	}
	gen := exec.Command(filepath.Join(dir, "gensession"), "-n", "2000", "-size", "1000")
	if gen.Stdout, err = os.Create(big); err != nil {
		return err
	}
	if err := gen.Run(); err != nil {
		return fmt.Errorf("gensession: %w", err)
	}
	pi, piErr := bench.Pi()
	fmt.Printf("medians [min–max] of %d interleaved rounds; pi %s; load %s\n", *runs, bench.PiVersion, bench.Load())
	var t bench.Table
	t.Row("session", "tool", "first delta", "exit", "CPU", "peak RSS")
	for _, s := range []struct{ name, file string }{{"empty", empty}, {"2000 messages", big}} {
		first := map[string][]float64{}
		peers := []bench.Peer{{Name: "agent-chat", Run: func() (bench.Cost, error) {
			return turn(first, "agent-chat",
				exec.Command(root+"/bin/agent-session", "open", s.file),
				exec.Command(root+"/bin/agent-chat", "--once", "--no-context-files", "--model", "fake/test-model", "hi"))
		}}}
		if piErr == nil {
			args := []string{"-p", "--mode", "json", "--provider", "fake", "--model", "test-model", "--no-session", "hi"}
			if s.file != empty {
				if args, err = piSession(dir, s.file, root, args); err != nil {
					return err
				}
			}
			peers = append(peers, bench.Peer{Name: "pi", Run: func() (bench.Cost, error) { return turn(first, "pi", exec.Command(pi, args...)) }})
		}
		r, err := bench.Interleave(*runs, peers...)
		if err != nil {
			return err
		}
		for _, p := range peers {
			t.Row(append([]string{s.name, p.Name, bench.Summarize(first[p.Name]).Fmt(0, "ms")}, r.Cells(p.Name, 0)...)...)
		}
		if piErr == nil {
			t.Row(s.name, "pi/ours", bench.RoundRatios(first["pi"], first["agent-chat"]).FmtRatio(),
				r.Ratio("pi", "agent-chat", bench.WallMS), r.Ratio("pi", "agent-chat", bench.CPUMS), r.Ratio("pi", "agent-chat", bench.RSSMB))
		}
	}
	fmt.Print(t.String())
	if piErr != nil {
		bench.Skipped("bench-chat", "pi", piErr)
	}
	return nil
}

// turn runs one turn's pipeline and notes the time to the first text delta
// on its stdout in first[name].
func turn(first map[string][]float64, name string, cmds ...*exec.Cmd) (bench.Cost, error) {
	m := &bench.Mark{Text: []byte(`"text_delta"`)}
	cmds[len(cmds)-1].Stdout = m
	t0 := time.Now()
	c, _, err := bench.RunPipe(cmds...)
	if err == nil && m.At.IsZero() {
		err = fmt.Errorf("%s: no text delta in its output", name)
	}
	first[name] = append(first[name], float64(m.At.Sub(t0))/float64(time.Millisecond))
	return c, err
}

// piSession copies the session for pi with its cwd made one that exists
// (pi wants it to) and returns pi's arguments with --session in place of
// --no-session.
func piSession(dir, file, cwd string, args []string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	re := regexp.MustCompile(`"cwd":"[^"]*"`)
	loc := re.FindIndex(b)
	if loc == nil {
		return nil, fmt.Errorf("%s: no cwd in its header", file)
	}
	out := append(append(append([]byte{}, b[:loc[0]]...), fmt.Sprintf(`"cwd":%q`, cwd)...), b[loc[1]:]...)
	copyFile := filepath.Join(dir, "pi-session.jsonl")
	if err := os.WriteFile(copyFile, out, 0o644); err != nil {
		return nil, err
	}
	return append(args[:len(args)-2:len(args)-2], "--session", copyFile, "hi"), nil
}
