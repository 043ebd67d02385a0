// Package runcost measures what a command costs, the way every bench script
// reports it: wall and CPU (user + system) time and the peak RSS of each
// run, read from the kernel's rusage rather than timed by a shell; runs
// interleaved in rounds, so that load on the machine falls on every command
// alike; and each figure as the median of the rounds with its spread
// (min–max), never a best-of-N.
package runcost

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Cost is what one run of a command cost.
type Cost struct {
	Wall, CPU time.Duration // CPU: user + system, the command's and its waited-for children's
	RSS       int64         // peak resident set, KB (-1: unknown)
	TimedOut  bool          // stopped at the limit: Wall and CPU are the limit
	Status    int           // exit status (-1 when killed)
}

// GNUTime is the program that starts each measured command when it is
// installed, and reports its peak RSS: a command Go starts itself shares
// the starting process's memory until it execs (vfork), and the kernel
// counts that memory in the command's peak RSS; GNU time is small and
// forks. Without it, RSS is -1 (unknown).
const GNUTime = "/usr/bin/time"

// Measure runs cmd (its stdin, stdout and stderr are what the caller set:
// nil is /dev/null) and returns its cost. A limit above 0 kills it (and
// what it started) past that time; the cost then says TimedOut. The error
// is only for a command that could not start: a non-zero exit status is in
// Cost.Status. The wall and CPU times are the kernel's (rusage) and hold
// GNU time's own, a fraction of a millisecond.
func Measure(cmd *exec.Cmd, limit time.Duration) (Cost, error) {
	if cmd.Err != nil {
		return Cost{}, cmd.Err
	}
	if _, err := exec.LookPath(cmd.Path); err != nil {
		return Cost{}, err
	}
	rssFile := ""
	if _, err := os.Stat(GNUTime); err == nil {
		f, err := os.CreateTemp("", "runcost-")
		if err != nil {
			return Cost{}, err
		}
		f.Close()
		rssFile = f.Name()
		defer os.Remove(rssFile)
		cmd.Args = append([]string{GNUTime, "-q", "-f", "%M", "-o", rssFile, cmd.Path}, cmd.Args[1:]...)
		cmd.Path = GNUTime
	}
	if limit > 0 {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Setpgid = true // killed with what it started
	}
	var timer *time.Timer
	var timedOut atomic.Bool
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return Cost{}, err
	}
	if limit > 0 {
		timer = time.AfterFunc(limit, func() { timedOut.Store(true); syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	}
	err := cmd.Wait()
	wall := time.Since(t0)
	if timer != nil {
		timer.Stop()
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return Cost{}, err
	}
	c := Cost{Wall: wall, Status: cmd.ProcessState.ExitCode(), RSS: -1}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		c.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if rssFile != "" {
		if b, err := os.ReadFile(rssFile); err == nil {
			c.RSS = ParseRSS(string(b))
		}
	}
	if timedOut.Load() {
		c.TimedOut, c.Wall, c.CPU = true, limit, limit
	}
	return c, nil
}

// ParseRSS reads GNU time's -f %M report: the last line's number of KB, -1
// when there is none.
func ParseRSS(s string) int64 {
	f := strings.Fields(s)
	if len(f) == 0 {
		return -1
	}
	n, err := strconv.ParseInt(f[len(f)-1], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// Runner is one of the commands compared: Cmd makes a fresh *exec.Cmd for
// each run.
type Runner struct {
	Name string
	Cmd  func() *exec.Cmd
}

// Options of Rounds.
type Options struct {
	Limit time.Duration // stop a run past it (0: no limit)
	// Once: a runner whose first run took longer runs only once (0: always
	// every round).
	Once time.Duration
}

// Rounds runs every runner once per round, in the order given, n rounds:
// the result's i-th slice holds runner i's costs in round order.
func Rounds(n int, runners []Runner, o Options) ([][]Cost, error) {
	costs := make([][]Cost, len(runners))
	for range n {
		for i, r := range runners {
			if o.Once > 0 && len(costs[i]) > 0 && costs[i][0].Wall > o.Once {
				continue
			}
			c, err := Measure(r.Cmd(), o.Limit)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", r.Name, err)
			}
			costs[i] = append(costs[i], c)
		}
	}
	return costs, nil
}

// Spread is the median of some figures with their least and greatest.
type Spread struct{ Median, Min, Max float64 }

// SpreadOf returns the spread of xs; the median of an even count is the
// lower middle value (a figure that was measured, not an average of two).
// The zero Spread for no figures.
func SpreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return Spread{Median: s[(len(s)-1)/2], Min: s[0], Max: s[len(s)-1]}
}

// Figures maps each cost to a number (for SpreadOf).
func Figures(cs []Cost, f func(Cost) float64) []float64 {
	xs := make([]float64, len(cs))
	for i, c := range cs {
		xs[i] = f(c)
	}
	return xs
}

// Median is the median of f over the costs (0 for none).
func Median(cs []Cost, f func(Cost) float64) float64 { return SpreadOf(Figures(cs, f)).Median }

// Ratios returns, round by round, f of the peer's cost over f of ours
// (above 1: ours costs less), for the rounds both ran; a round where ours
// cost nothing counts 1 when the peer's did not either, else 99.
func Ratios(peer, ours []Cost, f func(Cost) float64) []float64 {
	var rs []float64
	for i := range min(len(peer), len(ours)) {
		p, o := f(peer[i]), f(ours[i])
		switch {
		case o > 0:
			rs = append(rs, p/o)
		case p > 0:
			rs = append(rs, 99)
		default:
			rs = append(rs, 1)
		}
	}
	return rs
}

// WallMS, CPUMS and RSSMB are the usual figures of a cost (RSSMB is
// negative when the RSS is unknown).
func WallMS(c Cost) float64 { return float64(c.Wall) / float64(time.Millisecond) }
func CPUMS(c Cost) float64  { return float64(c.CPU) / float64(time.Millisecond) }
func RSSMB(c Cost) float64  { return float64(c.RSS) / 1024 }

// EnvCount reads a bench's setting from the environment variable name: a
// positive whole number, def when it is unset.
func EnvCount(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%q: want a positive whole number", name, v)
	}
	return n, nil
}

// Load returns the machine's load averages (1, 5 and 15 minutes) as
// /proc/loadavg says them, "?" where it cannot be read: printed beside the
// figures.
func Load() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return ParseLoad(string(b))
}

// ParseLoad returns the first three fields of a /proc/loadavg line ("?"
// when it has fewer).
func ParseLoad(s string) string {
	f := strings.Fields(s)
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
