// Package bench is the harness of the scripts/bench-* programs. It runs a
// command or a pipeline under scripts/rusage and takes its cost from the
// kernel: wall time, CPU (user + system, from the rusage of each process
// and the children it waited for, in microseconds) and peak RSS; a time
// limit kills a command with its whole process group. It runs peers
// interleaved, round by round, so that a change of the shared machine's
// load falls on all of them alike; summarizes each figure as its median
// with the spread [min–max], a ratio as the median of the rounds' ratios;
// and prints tables with the load average beside them. Peers are pinned
// (npm packages by version) and skipped with a notice when absent.
package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Cost is what one run took.
type Cost struct {
	Wall time.Duration
	CPU  time.Duration // user + system
	RSS  int64         // peak resident set, KB (a pipeline's: summed over its processes)
	// TimedOut: killed at the limit of RunLimit; the figures are those of
	// the run up to the kill.
	TimedOut bool
}

// ErrLimit is the error (wrapped) of a run killed at its time limit.
var ErrLimit = errors.New("killed at the time limit")

// WallMS, CPUMS and RSSMB pick one figure of a Cost, in the unit tables print.
func WallMS(c Cost) float64 { return float64(c.Wall) / float64(time.Millisecond) }

// CPUMS is the CPU time in milliseconds.
func CPUMS(c Cost) float64 { return float64(c.CPU) / float64(time.Millisecond) }

// RSSMB is the peak RSS in MB.
func RSSMB(c Cost) float64 { return float64(c.RSS) / 1024 }

// Run runs c to its end and returns its cost (see RunPipe).
func Run(c *exec.Cmd) (Cost, error) { return RunLimit(0, c) }

// RunLimit is Run, but past limit (when above 0) c is killed with every
// process in its process group: the cost then says TimedOut and the error
// wraps ErrLimit.
func RunLimit(limit time.Duration, c *exec.Cmd) (Cost, error) {
	total, _, err := runPipe(limit, c)
	return total, err
}

// RunPipe runs cmds at once as a pipeline, each one's stdout into the next
// one's stdin, and returns the whole's cost (the wall time from the first
// start to the last exit, CPU and RSS summed over the processes) and each
// stage's. A command whose Stdout is unset writes to /dev/null; one whose
// Stderr is unset has its last 2 KB quoted in the error when it fails. The
// error of a failed stage (start or exit status) names it; the costs are
// those measured.
//
// Each command runs under scripts/rusage (built by Root), which starts it
// and takes its cost from its rusage: a child started by this process
// would inherit this process's peak RSS in its own (Linux keeps the larger
// of the two across exec), and a harness holding a session in memory would
// show it in every figure. (scripts/rusage's own footprint is the floor:
// a command smaller than 2 MB reads as 2 MB.)
func RunPipe(cmds ...*exec.Cmd) (Cost, []Cost, error) { return runPipe(0, cmds...) }

func runPipe(limit time.Duration, cmds ...*exec.Cmd) (Cost, []Cost, error) {
	if forker == "" {
		return Cost{}, nil, errors.New("bench.Root was not called: scripts/rusage is not built")
	}
	errs := make([]*tail, len(cmds))
	files := make([]string, len(cmds))
	for i, c := range cmds {
		if c.Err != nil {
			return Cost{}, nil, c.Err
		}
		if c.Stderr == nil {
			errs[i] = &tail{}
			c.Stderr = errs[i]
		}
		f, err := os.CreateTemp("", "bench-cost")
		if err != nil {
			return Cost{}, nil, err
		}
		f.Close()
		files[i] = f.Name()
		defer os.Remove(files[i])
		argv := []string{forker, "-o", files[i]}
		if limit > 0 {
			argv = append(argv, "-limit", limit.String())
		}
		c.Args = append(append(argv, c.Path), c.Args[1:]...)
		c.Path = forker
	}
	var closeAfter []*os.File
	for i := 0; i+1 < len(cmds); i++ {
		r, w, err := os.Pipe()
		if err != nil {
			return Cost{}, nil, err
		}
		cmds[i].Stdout, cmds[i+1].Stdin = w, r
		closeAfter = append(closeAfter, r, w)
	}
	t0 := time.Now()
	var firstErr error
	started := 0
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			firstErr = fmt.Errorf("%s: %w", name(c), err)
			break
		}
		started++
	}
	for _, f := range closeAfter {
		f.Close()
	}
	stages := make([]Cost, len(cmds))
	for i, c := range cmds[:started] {
		err := c.Wait()
		b, _ := os.ReadFile(files[i])
		stages[i], _ = ParseRusage(string(b))
		switch {
		case firstErr != nil:
		case stages[i].TimedOut:
			firstErr = fmt.Errorf("%s: %w of %s", name(c), ErrLimit, limit)
		case err != nil:
			firstErr = fmt.Errorf("%s: %w%s", name(c), err, errs[i].quote())
		}
	}
	total := Cost{Wall: time.Since(t0)}
	if len(stages) == 1 && stages[0].Wall > 0 {
		total.Wall = stages[0].Wall // the command's own, without scripts/rusage's start
	}
	for _, s := range stages {
		total.CPU += s.CPU
		total.RSS += s.RSS
		total.TimedOut = total.TimedOut || s.TimedOut
	}
	return total, stages, firstErr
}

// ParseRusage reads scripts/rusage's line "wall_user_sys_rsskb" (seconds),
// which ends in "_limit" when the command was killed at its time limit.
func ParseRusage(line string) (Cost, error) {
	f := strings.Split(strings.TrimSpace(line), "_")
	timedOut := len(f) == 5 && f[4] == "limit"
	if timedOut {
		f = f[:4]
	}
	if len(f) != 4 {
		return Cost{}, fmt.Errorf("rusage: %q is not wall_user_sys_rsskb[_limit]", line)
	}
	var v [3]float64
	for i := range v {
		x, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return Cost{}, fmt.Errorf("rusage: %q: %w", line, err)
		}
		v[i] = x
	}
	rss, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		return Cost{}, fmt.Errorf("rusage: %q: %w", line, err)
	}
	sec := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	return Cost{Wall: sec(v[0]), CPU: sec(v[1]) + sec(v[2]), RSS: rss, TimedOut: timedOut}, nil
}

func name(c *exec.Cmd) string {
	s := strings.Join(c.Args, " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// ExitCode is the exit status in err when err is a command's non-zero
// exit (as Run and RunPipe return it), else -1.
func ExitCode(err error) int {
	var x *exec.ExitError
	if errors.As(err, &x) {
		return x.ExitCode()
	}
	return -1
}

// tail keeps the last 2 KB written to it.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2048 {
		t.b = t.b[len(t.b)-2048:]
	}
	return len(p), nil
}

func (t *tail) quote() string {
	if t == nil || len(bytes.TrimSpace(t.b)) == 0 {
		return ""
	}
	return ": " + string(bytes.TrimSpace(t.b))
}

// Mark is an io.Writer that notes when the text Mark first went through it
// (split across writes or not) and keeps nothing else: the time to a first
// streamed delta, read at the end of a pipeline.
type Mark struct {
	Text []byte
	At   time.Time // zero until seen
	keep []byte
}

func (m *Mark) Write(p []byte) (int, error) {
	if m.At.IsZero() {
		m.keep = append(m.keep, p...)
		if bytes.Contains(m.keep, m.Text) {
			m.At = time.Now()
			m.keep = nil
		} else if n := len(m.Text) - 1; len(m.keep) > n {
			m.keep = m.keep[len(m.keep)-n:]
		}
	}
	return len(p), nil
}
