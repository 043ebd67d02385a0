// Command bench-agent drives the interactive agent and pi 0.73.1, each in a
// pseudo-terminal, against one local fake model server: the time from
// Enter to the first streamed character on the screen, and keystroke to
// screen while a stream renders. The prompt is typed, then, after a pause
// (a person reading it over), Enter is pressed: the clock starts at Enter.
// The server (scripts/fakeprovider) sends its first three events
// (message_start, content_block_start, the first text delta "w0") at once,
// then pauses 10 ms between events (-burst 3 -event-delay 10ms): the same
// for both programs. Its -trace marks when each request arrives and when
// its first events are flushed, which splits Enter → first character into
// Enter → request at the server (the program and its pipeline), the fake's
// own time, and first events → screen. Beside the latencies, each
// program's CPU per prompt: user+sys of its whole process tree (the stage
// processes included) over the prompts, from /proc in ticks of 10 ms.
//
// The programs run side by side, their prompts interleaved, so a change of
// the shared machine's load falls on all alike; every figure is the median
// [min–max] with the p90, the load average printed before and after. Beside
// each ratio, the programs' own time: the medians less the fake server's
// share. -base DIR[:DIR…] adds the agent of other builds (each DIR: its
// binaries), the first named "base", for a before/after. -rtt 40ms puts the
// server that far away (a proxy delaying each direction by half of it) and
// -tls serves HTTPS with HTTP/2 offered, as a provider's server is: the
// conditions of the README's latency table. pi comes from npm
// (scripts/internal/bench.Pi); without it (or with -nopi) its column is
// skipped. Prints figures, asserts nothing.
//
//	go run ./scripts/bench-agent -runs 15 -rtt 40ms -tls
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentutils/agentutils/scripts/internal/bench"
	"github.com/creack/pty"
)

var (
	runs    = flag.Int("runs", 10, "prompts per program, interleaved")
	rtt     = flag.String("rtt", "", "the server's round trip (e.g. 40ms; default: the loopback)")
	tls     = flag.Bool("tls", false, "serve HTTPS with HTTP/2 offered")
	nopi    = flag.Bool("nopi", false, "leave pi out")
	base    = flag.String("base", "", "the agent of other builds too: `DIR`s of their binaries, colon-separated")
	verbose = flag.Bool("v", false, "print each run's split")
)

func main() { bench.Main("bench-agent", run) }

func run() error {
	root, dir, err := bench.Setup("agent", "./scripts/fakeprovider")
	if err != nil {
		return err
	}
	sse := filepath.Join(dir, "long.sse")
	if err := os.WriteFile(sse, longSSE(), 0o644); err != nil {
		return err
	}
	trace := filepath.Join(dir, "trace")
	os.Remove(trace)
	args := []string{"-sse", sse, "-burst", "3", "-event-delay", "10ms", "-trace", trace}
	if *rtt != "" {
		args = append(args, "-rtt", *rtt)
	}
	if *tls {
		cert := filepath.Join(dir, "cert.pem")
		args = append(args, "-tls", cert)
		os.Setenv("SSL_CERT_FILE", cert)
		os.Setenv("NODE_EXTRA_CA_CERTS", cert)
	}
	os.RemoveAll(filepath.Join(dir, "home"))
	stop, err := bench.FakeProvider(dir, "anthropic-messages", 128000, args...)
	if err != nil {
		return err
	}
	defer stop()
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		return err
	}
	path := os.Getenv("PATH")
	os.Setenv("PATH", root+"/bin:"+path)
	progs := []*prog{{name: "agent", ready: "/help for commands", argv: []string{root + "/bin/agent", "--model", "fake/test-model", "--yes", "-n"}}}
	if *base != "" {
		for i, b := range strings.Split(*base, ":") {
			name := "base"
			if i > 0 {
				name = filepath.Base(b)
			}
			progs = append(progs, &prog{name: name, ready: "/help for commands",
				argv: []string{"env", "PATH=" + b + ":" + path, b + "/agent", "--model", "fake/test-model", "--yes", "-n"}})
		}
	}
	if !*nopi {
		if pi, err := bench.Pi(); err != nil {
			bench.Skipped("bench-agent", "pi", err)
		} else {
			progs = append(progs, &prog{name: "pi", ready: "test-model", argv: []string{pi, "--provider", "fake", "--model", "test-model"}})
		}
	}
	roundTrip := *rtt
	if roundTrip == "" {
		roundTrip = "0 (loopback)"
	}
	fmt.Printf("fake server: first 3 events at once (no pause before w0), then 10 ms between events; round trip %s%s; %d runs, interleaved; load average: %s\n",
		roundTrip, map[bool]string{true: ", TLS", false: ""}[*tls], *runs, bench.Load())
	measure(progs, proj, trace)
	fmt.Println("load average after: " + bench.Load())
	report(progs)
	return nil
}

// longSSE is a 3,000-delta Anthropic stream: "w0 ", "w1 ", … a newline after every 12th.
func longSSE() []byte {
	var b bytes.Buffer
	event := func(v map[string]any) {
		j, _ := json.Marshal(v)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", v["type"], j)
	}
	event(map[string]any{"type": "message_start", "message": map[string]any{"id": "m", "type": "message", "role": "assistant", "content": []any{},
		"model": "test-model", "stop_reason": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
	event(map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
	for i := range 3000 {
		text := fmt.Sprintf("w%d ", i)
		if i%12 == 11 {
			text += "\n"
		}
		event(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}})
	}
	event(map[string]any{"type": "content_block_stop", "index": 0})
	event(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 3000}})
	event(map[string]any{"type": "message_stop"})
	return b.Bytes()
}

// prog is one program in its pseudo-terminal, and its figures (ms).
type prog struct {
	name, ready string
	argv        []string
	cmd         *exec.Cmd
	tty         *os.File
	ok          bool
	missed      int
	cpu         time.Duration // the process tree's, over the prompts

	mu     sync.Mutex
	buf    []byte
	at     []chunk // when each read's end arrived
	notify chan struct{}

	first, toreq, server, toscreen, keys []float64
}

type chunk struct {
	end int
	at  time.Time
}

func (p *prog) start(dir string) error {
	p.cmd = exec.Command(p.argv[0], p.argv[1:]...)
	p.cmd.Dir = dir
	tty, err := pty.StartWithSize(p.cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		return err
	}
	p.tty, p.notify = tty, make(chan struct{}, 1)
	go p.read()
	return nil
}

// read keeps what the program writes, answering the terminal queries
// (background colour, cursor position) a real terminal would.
func (p *prog) read() {
	b := make([]byte, 1<<16)
	for {
		n, err := p.tty.Read(b)
		if n > 0 {
			d := b[:n]
			if bytes.Contains(d, []byte("\x1b]11;?")) {
				p.tty.Write([]byte("\x1b]11;rgb:0000/0000/0000\x1b\\"))
			}
			if bytes.Contains(d, []byte("\x1b[6n")) {
				p.tty.Write([]byte("\x1b[1;1R"))
			}
			p.mu.Lock()
			p.buf = append(p.buf, d...)
			p.at = append(p.at, chunk{len(p.buf), time.Now()})
			p.mu.Unlock()
			select {
			case p.notify <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *prog) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.buf)
}

// wait is when text first showed after offset since, or false after timeout.
func (p *prog) wait(text string, since int, timeout time.Duration) (time.Time, bool) {
	end := time.After(timeout)
	for {
		p.mu.Lock()
		if i := bytes.Index(p.buf[min(since, len(p.buf)):], []byte(text)); i >= 0 {
			stop := since + i + len(text)
			for _, c := range p.at {
				if c.end >= stop {
					p.mu.Unlock()
					return c.at, true
				}
			}
		}
		p.mu.Unlock()
		select {
		case <-p.notify:
		case <-end:
			return time.Time{}, false
		}
	}
}

// settle waits until the screen has been still for 0.3 s (10 s at most).
func (p *prog) settle() {
	limit := time.Now().Add(10 * time.Second)
	for n := -1; n != p.len() && time.Now().Before(limit); {
		n = p.len()
		time.Sleep(300 * time.Millisecond)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// one prompt: Enter → first character, then keys while it streams, then abort.
func (p *prog) one(run int, trace string) {
	p.tty.Write([]byte("go"))   // the prompt typed,
	time.Sleep(1 * time.Second) // a pause, as a person reading it over,
	mark := p.len()
	t0 := time.Now()
	p.tty.Write([]byte("\r")) // then Enter: the clock starts
	t1, ok := p.wait("w0 ", mark, 30*time.Second)
	if !ok { // a loaded machine can starve a program: the run is left out, named
		p.mu.Lock()
		fmt.Printf("%s: run %d: no streamed text in 30 s; the screen ends with %q\n", p.name, run, p.buf[max(0, len(p.buf)-300):])
		p.mu.Unlock()
		p.missed++
		p.abort()
		return
	}
	p.first = append(p.first, ms(t1.Sub(t0)))
	if req, sent, ok := marks(trace, t0); ok {
		p.toreq = append(p.toreq, ms(req.Sub(t0)))
		p.server = append(p.server, ms(sent.Sub(req)))
		p.toscreen = append(p.toscreen, ms(t1.Sub(sent)))
		if *verbose {
			fmt.Printf("  %s run %d: %.2f ms = %.2f + %.2f + %.2f\n", p.name, run, p.first[len(p.first)-1], ms(req.Sub(t0)), ms(sent.Sub(req)), ms(t1.Sub(sent)))
		}
	}
	p.wait("w30 ", mark, 30*time.Second) // the stream is going
	for _, c := range "QVYQVYQVYQ" {     // letters no escape sequence ends with and no text on either screen holds
		mark := p.len()
		t0 := time.Now()
		p.tty.Write([]byte(string(c)))
		if t1, ok := p.wait(string(c), mark, 5*time.Second); ok {
			p.keys = append(p.keys, ms(t1.Sub(t0)))
		}
	}
	p.abort()
}

// abort stops the run (Esc) and clears the typed letters (^U).
func (p *prog) abort() {
	p.tty.Write([]byte("\x1b"))
	p.settle()
	p.tty.Write([]byte("\x15"))
	p.settle()
}

// marks: the server's first request after t0 and its first flush, from the trace.
func marks(trace string, t0 time.Time) (req, first time.Time, ok bool) {
	f, err := os.Open(trace)
	if err != nil {
		return req, first, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		what, nsText, _ := strings.Cut(sc.Text(), " ")
		ns, err := strconv.ParseInt(nsText, 10, 64)
		if err != nil {
			continue
		}
		t := time.Unix(0, ns)
		if what == "request" && req.IsZero() && !t.Before(t0) {
			req = t
		} else if what == "first" && !req.IsZero() && !t.Before(req) {
			return req, t, true
		}
	}
	return req, first, false
}

// measure starts every program, then runs the prompts interleaved (run i of
// each program, one after the other).
func measure(progs []*prog, proj, trace string) {
	for _, p := range progs {
		if err := p.start(proj); err != nil {
			fmt.Printf("%s: did not start: %v\n", p.name, err)
			continue
		}
		_, p.ok = p.wait(p.ready, 0, 60*time.Second)
		if !p.ok {
			fmt.Printf("%s: did not start\n", p.name)
		}
	}
	cpu0 := map[*prog]time.Duration{}
	for _, p := range progs {
		if p.ok {
			cpu0[p] = bench.TreeCPU(p.cmd.Process.Pid)
		}
	}
	for run := range *runs {
		for _, p := range progs {
			if p.ok {
				p.one(run, trace)
			}
		}
	}
	for _, p := range progs {
		if p.cmd == nil || p.cmd.Process == nil {
			continue
		}
		if p.ok {
			p.cpu = bench.TreeCPU(p.cmd.Process.Pid) - cpu0[p]
		}
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) // its session: the stage processes too
		p.cmd.Process.Kill()
		p.cmd.Wait()
		p.tty.Close()
	}
}

func q(xs []float64) string {
	if len(xs) == 0 {
		return "n/a"
	}
	s := append([]float64(nil), xs...)
	slices.Sort(s)
	p90 := s[max(0, (len(s)*9+9)/10-1)]
	return fmt.Sprintf("%s  p90 %.2f ms  (n=%d)", bench.Summarize(xs).Fmt(2, "ms"), p90, len(xs))
}

func report(progs []*prog) {
	var t bench.Table
	for _, p := range progs {
		if !p.ok {
			continue
		}
		t.Row(p.name, "Enter → first streamed character", q(p.first))
		t.Row("", "  Enter → request at the server", q(p.toreq))
		t.Row("", "  the fake server (request → first events flushed)", q(p.server))
		t.Row("", "  first events → on the screen", q(p.toscreen))
		t.Row("", "keystroke → screen while streaming", q(p.keys))
		n := max(1, len(p.first)+p.missed)
		t.Row("", "CPU per prompt (process tree, user+sys)", fmt.Sprintf("%.0f ms  (%.2f s over %d prompts)", ms(p.cpu)/float64(n), p.cpu.Seconds(), n))
		if p.missed > 0 {
			t.Row("", "runs left out (no streamed text in 30 s)", strconv.Itoa(p.missed))
		}
	}
	fmt.Print(t.String())
	var pi *prog
	for _, p := range progs {
		if p.name == "pi" && p.ok {
			pi = p
		}
	}
	if pi == nil {
		return
	}
	med := func(xs []float64) float64 { return bench.Summarize(xs).Median }
	for _, a := range progs {
		if a == pi || !a.ok {
			continue
		}
		fmt.Printf("ratio  Enter → first character   %s/pi = %s  (%s %.2f ms, pi %.2f ms)\n", a.name, bench.Ratio(med(a.first), med(pi.first)), a.name, med(a.first), med(pi.first))
		fmt.Printf("       the programs' own time     %s/pi = %s  (less the fake server's median share, %s %.2f ms, pi %.2f ms)\n",
			a.name, bench.Ratio(med(a.first)-med(a.server), med(pi.first)-med(pi.server)), a.name, med(a.server), med(pi.server))
		fmt.Printf("ratio  keystroke → screen        %s/pi = %s  (%s %.2f ms, pi %.2f ms)\n", a.name, bench.Ratio(med(a.keys), med(pi.keys)), a.name, med(a.keys), med(pi.keys))
		fmt.Printf("ratio  CPU per prompt            %s/pi = %s\n", a.name, bench.Ratio(float64(a.cpu)/float64(max(1, len(a.first)+a.missed)), float64(pi.cpu)/float64(max(1, len(pi.first)+pi.missed))))
	}
}
