// Command benchtask measures what starting a sub-agent costs: the CPU of
// every process of the task tool's nested pipeline (agent-session new
// --open, agent-chat, its agent-tool serve, append) from the
// call until the sub-agent's first request reaches the fake provider,
// summed from the kernel's per-process run time (/proc/PID/schedstat), the
// children they reaped (/proc/PID/stat, in ticks of 10 ms: the git runs of
// agent-chat's prompt) and those this program reaped (rusage), interleaved with the same measure of a
// bare `agent-chat` (its agent-tool serve included) to its first request.
// It runs internal/subagent's Runner as agent-chat does. Medians with
// p10-p90 of -n rounds; the load average is printed with them.
//
// With -host, a sub-agent sent to that host over ssh (the task tool's
// host: its agent-chat and agent-tool there under agent-session
// run-subagent) is measured too, the CPU of the processes under -sshd (the
// pid of the sshd that serves it: the connection's sshd, run-subagent and
// what it starts) added to this host's (ssh, agent-session new, append).
// The wall time from the call to the request is printed beside each.
//
// BENCHTASK_DEBUG=1 lists each process's share on stderr.
//
//	go run ./scripts/benchtask -bin bin -n 21
//	go run ./scripts/benchtask -bin bin -n 21 -ssh "ssh -F cfg" -host box -sshd "$(cat sshd.pid)"
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentutils/agentutils/internal/fakellm"
	"github.com/agentutils/agentutils/internal/subagent"
	"github.com/agentutils/agentutils/lib/event"
)

func main() {
	bin := flag.String("bin", "bin", "the `DIR` of the built commands")
	n := flag.Int("n", 21, "rounds")
	sshCmd := flag.String("ssh", "ssh", "the ssh `COMMAND` (-host)")
	host := flag.String("host", "", "also measure a sub-agent on ssh destination `HOST` (this machine: its directory is the same)")
	sshd := flag.String("sshd", "", "the `PIDS` (comma-separated) whose CPU and their descendants' counts for -host: the sshd serving it, an ssh ControlMaster")
	flag.Parse()
	abs, _ := filepath.Abs(*bin)
	dir, err := os.MkdirTemp("", "benchtask-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	srv := fakellm.New()
	srv.Agent = dir
	defer srv.Close()
	arrived := make(chan struct{}, 8)
	srv.OnRequest = func(int, fakellm.Request) { arrived <- struct{}{} }
	models := filepath.Join(dir, "models.toml")
	os.WriteFile(models, []byte(srv.ModelsTOML("fake", "anthropic-messages", "test-model")), 0o644)
	env := append(os.Environ(), "PATH="+abs+":"+os.Getenv("PATH"), "HOME="+dir, "AGENTUTILS_HOME="+filepath.Join(dir, "home"), "FAKE_KEY=sk-fake-secret-123456")
	parent := filepath.Join(dir, "parent.jsonl")
	os.WriteFile(parent, []byte(`{"type":"session","version":3,"id":"p1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`+"\n"), 0o644)
	r := &subagent.Runner{Session: []string{filepath.Join(abs, "agent-session")}, Compact: []string{filepath.Join(abs, "agent-compact")},
		Chat: []string{filepath.Join(abs, "agent-chat")}, Dir: dir, Env: env, ParentFile: parent,
		ChatArgs: []string{"--model", "fake/test-model", "--thinking", "off", "--max-task-depth", "1", "--models-file", models},
		Spent:    func() subagent.Spent { return subagent.Spent{} }, Slots: make(chan struct{}, 1), Now: time.Now, Grace: time.Second}
	if *host != "" {
		r.Hosts, r.SSH, r.KeyVars = []subagent.Host{{Dest: *host, Dir: dir}}, strings.Fields(*sshCmd), []string{"FAKE_KEY"}
	}
	var sub, bare, remote, subWall, bareWall, remoteWall []float64
	for i := 0; i < *n; i++ {
		cpu, wall := measure(arrived, nil, func(ctx context.Context) {
			r.Run(ctx, "toolu_"+strconv.Itoa(i), json.RawMessage(`{"prompt":"SUBHANG"}`), func(event.ToolOutput) {})
		})
		sub, subWall = append(sub, cpu), append(subWall, wall)
		cpu, wall = measure(arrived, nil, func(ctx context.Context) {
			c := exec.CommandContext(ctx, filepath.Join(abs, "agent-chat"), "--model", "fake/test-model", "--models-file", models, "--message", "SUBHANG")
			c.Dir, c.Env, c.Stdin = dir, env, strings.NewReader(`{"type":"session","version":3,"id":"b1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`+"\n")
			c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
			c.Run()
		})
		bare, bareWall = append(bare, cpu), append(bareWall, wall)
		if *host == "" {
			continue
		}
		cpu, wall = measure(arrived, pids(*sshd), func(ctx context.Context) {
			r.Run(ctx, "toolu_r"+strconv.Itoa(i), json.RawMessage(`{"prompt":"SUBHANG","host":`+strconv.Quote(*host)+`}`), func(event.ToolOutput) {})
		})
		remote, remoteWall = append(remote, cpu), append(remoteWall, wall)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("sub-agent start to its first request: %s ms CPU, %s ms wall\n", stats(sub), stats(subWall))
	fmt.Printf("bare agent-chat to its first request: %s ms CPU, %s ms wall\n", stats(bare), stats(bareWall))
	if *host != "" {
		fmt.Printf("sub-agent on %s (ssh) to its first request: %s ms CPU, %s ms wall\n", *host, stats(remote), stats(remoteWall))
	}
	fmt.Printf("load %s", load)
}

// measure runs fn until the fake provider has a request, and returns the
// CPU ms of this process's descendants by then (the reaped ones' rusage
// and the live, or not yet reaped, ones' run time), and what the
// descendants of others (a remote run's sshd) spent meanwhile, and the
// wall ms.
func measure(arrived <-chan struct{}, others []int, fn func(ctx context.Context)) (float64, float64) {
	ctx, cancel := context.WithCancel(context.Background())
	outside := func() float64 {
		sum := 0.0
		for _, p := range others {
			sum += treeCPU(p)
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/schedstat"); err == nil {
				ns, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
				sum += ns / 1e6 // its own
			}
		}
		return sum
	}
	was := outside()
	before := childrenCPU()
	done := make(chan struct{})
	start := time.Now()
	go func() { fn(ctx); close(done) }()
	var ms, wall float64
	select {
	case <-arrived:
		wall = float64(time.Since(start).Microseconds()) / 1000
		ms = (childrenCPU()-before)*1000 + treeCPU(os.Getpid()) + outside() - was
	case <-done:
		fail(fmt.Errorf("the run ended before its request"))
	}
	cancel()
	<-done
	return ms, wall
}

func pids(s string) []int {
	var ps []int
	for _, f := range strings.Split(s, ",") {
		if p, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			ps = append(ps, p)
		}
	}
	return ps
}

func childrenCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// treeCPU is the run time in ms of every descendant of pid (schedstat's
// first field, nanoseconds on a CPU; zombies keep theirs).
func treeCPU(pid int) float64 {
	kids, reaped := map[int][]int{}, map[int]float64{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:]))
		if len(f) > 14 {
			pp, _ := strconv.Atoi(f[1])
			kids[pp] = append(kids[pp], p)
			cu, _ := strconv.Atoi(f[13])
			cs, _ := strconv.Atoi(f[14])
			reaped[p] = float64(cu+cs) * 10 // its reaped children's (git), in ticks of 10 ms
		}
	}
	var sum float64
	var walk func(int)
	walk = func(p int) {
		for _, k := range kids[p] {
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(k) + "/schedstat"); err == nil {
				ns, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
				sum += ns/1e6 + reaped[k]
				if os.Getenv("BENCHTASK_DEBUG") != "" {
					cl, _ := os.ReadFile("/proc/" + strconv.Itoa(k) + "/cmdline")
					fmt.Fprintf(os.Stderr, "%.1f ms %.60s\n", ns/1e6, strings.ReplaceAll(string(cl), "\x00", " "))
				}
			}
			walk(k)
		}
	}
	walk(pid)
	return sum
}

func stats(v []float64) string {
	sort.Float64s(v)
	at := func(q float64) float64 { return v[int(q*float64(len(v)-1)+0.5)] }
	return fmt.Sprintf("median %.1f (p10 %.1f, p90 %.1f, n %d)", at(0.5), at(0.1), at(0.9), len(v))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchtask:", err)
	os.Exit(1)
}
