package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// forker is scripts/rusage, built by Root: RunPipe starts every command under it.
var forker string

// Root makes the repository's top directory (the one holding go.mod) the
// working directory and returns it, and builds scripts/rusage into
// BENCH_DIR/bin for RunPipe: the bench programs run from anywhere.
func Root() (string, error) {
	root, err := top()
	if err != nil {
		return "", err
	}
	bin, err := Dir("bin")
	if err != nil {
		return "", err
	}
	if err := GoBuild(bin, "./scripts/rusage"); err != nil {
		return "", err
	}
	forker = filepath.Join(bin, "rusage")
	return root, nil
}

func top() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, os.Chdir(d)
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s: run from inside the repository", dir)
		}
	}
}

// Dir is BENCH_DIR/sub (BENCH_DIR defaults to testdata/bench), made and
// absolute: where a benchmark keeps its generated inputs.
func Dir(sub string) (string, error) {
	base := os.Getenv("BENCH_DIR")
	if base == "" {
		base = "testdata/bench"
	}
	d, err := filepath.Abs(filepath.Join(base, sub))
	if err != nil {
		return "", err
	}
	return d, os.MkdirAll(d, 0o755)
}

// Load is the load average now (1, 5 and 15 minutes), to print beside the
// figures, and the number of cores.
func Load() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return ParseLoad(string(b))
}

// ParseLoad is the three load averages of a /proc/loadavg line.
func ParseLoad(s string) string {
	f := strings.Fields(s)
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// GoBuild builds the packages into dir (go build -o dir/).
func GoBuild(dir string, pkgs ...string) error {
	c := exec.Command("go", append([]string{"build", "-o", dir + "/"}, pkgs...)...)
	c.Stdout, c.Stderr = os.Stderr, os.Stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", strings.Join(pkgs, " "), err)
	}
	return nil
}

// Have says whether a program is on PATH.
func Have(program string) bool {
	_, err := exec.LookPath(program)
	return err == nil
}

// serve starts a server that prints its URL as the first line of its
// stdout (scripts/fakeprovider) and returns the URL and a stop function.
func serve(argv ...string) (string, func(), error) {
	c := exec.Command(argv[0], argv[1:]...)
	c.Stderr = os.Stderr
	out, err := c.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := c.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { c.Process.Kill(); c.Wait() }
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(out)
		s.Scan()
		line <- strings.TrimSpace(s.Text())
		for s.Scan() {
		}
	}()
	select {
	case u := <-line:
		if u == "" {
			stop()
			return "", nil, fmt.Errorf("%s printed no URL", argv[0])
		}
		return u, stop, nil
	case <-time.After(30 * time.Second):
		stop()
		return "", nil, fmt.Errorf("%s did not print its URL in 30 s", argv[0])
	}
}

// NPM installs the pinned packages (NAME@VERSION each) into prefix unless
// they are there at those versions, and returns prefix/node_modules/.bin.
// The error says why a peer is missing (no npm, the install failed).
func NPM(prefix string, pkgs ...string) (string, error) {
	bin := filepath.Join(prefix, "node_modules", ".bin")
	missing := false
	for _, p := range pkgs {
		i := strings.LastIndex(p, "@")
		if i <= 0 {
			return "", fmt.Errorf("npm package %q has no pinned version", p)
		}
		if InstalledVersion(prefix, p[:i]) != p[i+1:] {
			missing = true
		}
	}
	if !missing {
		return bin, nil
	}
	if !Have("npm") || !Have("node") {
		return "", errors.New("npm and node are not installed")
	}
	args := append([]string{"install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error"}, pkgs...)
	if out, err := exec.Command("npm", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %s: %v: %s", strings.Join(pkgs, " "), err, lastLines(out, 5))
	}
	return bin, nil
}

// InstalledVersion is the version of the npm package name under prefix,
// "" when it is not installed.
func InstalledVersion(prefix, name string) string {
	b, err := os.ReadFile(filepath.Join(prefix, "node_modules", name, "package.json"))
	if err != nil {
		return ""
	}
	var p struct{ Version string }
	json.Unmarshal(b, &p)
	return p.Version
}

func lastLines(b []byte, n int) string {
	l := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// PiVersion is the pi every benchmark compares with: the version the
// formats and the latency figures were checked against.
const PiVersion = "0.73.1"

// Pi is pi's program, installed with npm into the cache scripts/interop-pi
// fills ($XDG_CACHE_HOME/agentutils/interop/pi-VERSION) when it is not
// there; $PI names another. The error says why it is absent.
func Pi() (string, error) {
	if p := os.Getenv("PI"); p != "" {
		return filepath.Abs(p)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	bin, err := NPM(filepath.Join(cache, "agentutils", "interop", "pi-"+PiVersion), "@mariozechner/pi-coding-agent@"+PiVersion)
	if err != nil {
		return "", err
	}
	return filepath.Join(bin, "pi"), nil
}

// Skipped prints that a benchmark or a peer's column is left out, and why.
func Skipped(bench, what string, why error) {
	fmt.Printf("%s: %s skipped: %v\n", bench, what, why)
}

// RunQuiet runs a set-up command, its output shown only when it fails.
func RunQuiet(c *exec.Cmd) error {
	out, err := c.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(c.Args, " "), err, lastLines(out, 5))
	}
	return nil
}

// TreeCPU is the CPU time (user+sys, the reaped children's included) of the
// process pid and every process below it now, from /proc/PID/stat, in clock
// ticks of 10 ms: for a program that runs through many measured steps, as
// the difference of two readings.
func TreeCPU(pid int) time.Duration {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	parent := map[int]int{}
	ticks := map[int]int64{}
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		p, pp, t, ok := ParseStat(string(b))
		if ok {
			parent[p], ticks[p] = pp, t
		}
	}
	var sum int64
	for p, t := range ticks {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				sum += t
				break
			}
		}
	}
	return time.Duration(sum) * 10 * time.Millisecond
}

// ParseStat reads a /proc/PID/stat line: the pid, its parent's and
// utime+stime+cutime+cstime in clock ticks.
func ParseStat(s string) (pid, ppid int, ticks int64, ok bool) {
	i := strings.LastIndexByte(s, ')') // the command's name may hold spaces and parentheses
	if i < 0 {
		return 0, 0, 0, false
	}
	if _, err := fmt.Sscan(s, &pid); err != nil {
		return 0, 0, 0, false
	}
	f := strings.Fields(s[i+1:]) // state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
	if len(f) < 15 {
		return 0, 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	for _, x := range f[11:15] {
		v, _ := strconv.ParseInt(x, 10, 64)
		ticks += v
	}
	return pid, ppid, ticks, true
}

// Main parses the flags and runs a benchmark: an error is printed after
// its name and ends the program with status 1.
func Main(name string, run func() error) {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

// Setup is Root, then Dir(sub) with the packages (the inputs' generators,
// the fake provider) built into it: where a benchmark starts.
func Setup(sub string, pkgs ...string) (root, dir string, err error) {
	if root, err = Root(); err != nil {
		return "", "", err
	}
	if dir, err = Dir(sub); err != nil {
		return "", "", err
	}
	if len(pkgs) > 0 {
		err = GoBuild(dir, pkgs...)
	}
	return root, dir, err
}

// NPMPrefix is where a benchmark installs its npm peers: $env when set,
// else the cache's agentutils-bench/name.
func NPMPrefix(env, name string) string {
	if p := os.Getenv(env); p != "" {
		return p
	}
	cache, _ := os.UserCacheDir()
	return filepath.Join(cache, "agentutils-bench", name)
}
