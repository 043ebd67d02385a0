package bench

import (
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want Stat
		fmt  string
	}{
		{[]float64{3, 1, 2}, Stat{Median: 2, Min: 1, Max: 3, N: 3}, "2.0 ms [1.0–3.0]"},
		{[]float64{4, 1, 3, 2}, Stat{Median: 2.5, Min: 1, Max: 4, N: 4}, "2.5 ms [1.0–4.0]"},
		{[]float64{7}, Stat{Median: 7, Min: 7, Max: 7, N: 1}, "7.0 ms"},
		{[]float64{5, 5, 100, 5, 6}, Stat{Median: 5, Min: 5, Max: 100, N: 5}, "5.0 ms [5.0–100.0]"},
	} {
		in := append([]float64(nil), tc.xs...)
		got := Summarize(tc.xs)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Summarize(%v) (-want +got):\n%s", tc.xs, diff)
		}
		if diff := cmp.Diff(in, tc.xs); diff != "" {
			t.Errorf("Summarize changed its input:\n%s", diff)
		}
		if s := got.Fmt(1, "ms"); s != tc.fmt {
			t.Errorf("Fmt = %q, want %q", s, tc.fmt)
		}
	}
	none := Summarize(nil)
	if !math.IsNaN(none.Median) || none.Fmt(1, "ms") != "-" {
		t.Errorf("Summarize(nil) = %+v, Fmt %q", none, none.Fmt(1, "ms"))
	}
}

func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		a, b float64
		want string
	}{
		{10, 4, "2.5x"}, {1000, 2, "500x"}, {1, 4, "0.25x"}, {1, 40, "0.025x"}, {3, 0, "-"}, {math.NaN(), 1, "-"}, {1, math.NaN(), "-"},
	} {
		if got := Ratio(tc.a, tc.b); got != tc.want {
			t.Errorf("Ratio(%v, %v) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestInterleave(t *testing.T) {
	if diff := cmp.Diff([]int{0, 1, 2, 0, 1, 2}, Order(2, 3)); diff != "" {
		t.Errorf("Order(2, 3) (-want +got):\n%s", diff)
	}
	var ran []string
	peer := func(name string, cost Cost, failAt int) Peer {
		n := 0
		return Peer{Name: name, Run: func() (Cost, error) {
			n++
			ran = append(ran, name)
			if n == failAt {
				return Cost{}, errors.New("exit status 3")
			}
			cost.CPU = time.Duration(n) * time.Millisecond
			return cost, nil
		}}
	}
	runs, err := Interleave(3, peer("ours", Cost{RSS: 10}, 0), peer("pi", Cost{RSS: 20}, 0))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ours", "pi", "ours", "pi", "ours", "pi"}, ran); diff != "" {
		t.Errorf("the runs' order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Stat{Median: 2, Min: 1, Max: 3, N: 3}, runs.Stat("pi", CPUMS)); diff != "" {
		t.Errorf("pi's CPU (-want +got):\n%s", diff)
	}
	if got := runs.Stat("ours", RSSMB).Median * 1024; got != 10 {
		t.Errorf("ours' RSS = %v KB, want 10", got)
	}
	if got := runs.Ratio("pi", "ours", RSSMB); got != "2.0x [2.0–2.0]" {
		t.Errorf("pi/ours RSS = %q, want 2.0x [2.0–2.0]", got)
	}
	if diff := cmp.Diff([]string{"0 ms [0–0]", "2 ms [1–3]", "0 MB [0–0]"}, runs.Cells("pi", 0)); diff != "" {
		t.Errorf("pi's cells (-want +got):\n%s", diff)
	}
	ran = nil
	_, err = Interleave(3, peer("ours", Cost{}, 0), peer("pi", Cost{}, 2))
	if err == nil || err.Error() != "pi, round 2: exit status 3" {
		t.Errorf("a failed run: err = %v", err)
	}
	if diff := cmp.Diff([]string{"ours", "pi", "ours", "pi"}, ran); diff != "" {
		t.Errorf("runs after a failure (-want +got):\n%s", diff)
	}
	// Once: a peer whose first run took longer runs only once.
	ran = nil
	slow := peer("slow", Cost{Wall: time.Second}, 0)
	slow.Once = time.Millisecond
	runs, err = Interleave(3, peer("ours", Cost{}, 0), slow)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ours", "slow", "ours", "ours"}, ran); diff != "" {
		t.Errorf("runs with Once (-want +got):\n%s", diff)
	}
	if len(runs["slow"]) != 1 || len(runs["ours"]) != 3 {
		t.Errorf("costs with Once: %d of slow, %d of ours", len(runs["slow"]), len(runs["ours"]))
	}
}

// Ratios pair the runs of a round, and leave out rounds the other peer
// did not run or where its figure is 0.
func TestRoundRatios(t *testing.T) {
	if diff := cmp.Diff(Stat{Median: 2, Min: 2, Max: 3, N: 3}, RoundRatios([]float64{10, 30, 5, 8, 7}, []float64{5, 10, 0, 4})); diff != "" {
		t.Errorf("RoundRatios (-want +got):\n%s", diff)
	}
	ms := func(ns ...int) []Cost {
		var cs []Cost
		for _, n := range ns {
			cs = append(cs, Cost{CPU: time.Duration(n) * time.Millisecond})
		}
		return cs
	}
	for _, tc := range []struct {
		runs Runs
		want string
	}{
		{Runs{"rg": ms(10, 30, 5, 8, 7), "ours": ms(5, 10, 0, 4)}, "2.0x [2.0–3.0]"},
		{Runs{"rg": ms(3), "ours": ms(1)}, "3.0x"},
		{Runs{"rg": ms(3), "ours": ms(0)}, "-"},
		{Runs{"rg": ms(1, 1), "ours": ms(4, 40)}, "0.14x [0.025–0.25]"},
	} {
		if got := tc.runs.Ratio("rg", "ours", CPUMS); got != tc.want {
			t.Errorf("Ratio of %v = %q, want %q", tc.runs, got, tc.want)
		}
	}
}

func TestTable(t *testing.T) {
	var tb Table
	tb.Row("tool", "wall", "CPU")
	tb.Row("agent-chat", "12.0 ms [11.0–14.0]", "3 ms")
	tb.Note("  a note, outside the columns")
	tb.Row("pi", "1 ms", "")
	want := "tool        wall                 CPU\n" +
		"agent-chat  12.0 ms [11.0–14.0]  3 ms\n" +
		"  a note, outside the columns\n" +
		"pi          1 ms\n"
	if diff := cmp.Diff(want, tb.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

func TestParseLoad(t *testing.T) {
	if got := ParseLoad("0.45 2.12 3.23 1/456 789\n"); got != "0.45 2.12 3.23" {
		t.Errorf("ParseLoad = %q", got)
	}
	if got := ParseLoad(""); got != "?" {
		t.Errorf("ParseLoad(\"\") = %q", got)
	}
}

func TestMark(t *testing.T) {
	for _, writes := range [][]string{
		{`{"type":"text_delta"}`},
		{`{"type":"text_`, `delta"}`},
		{`x`, `{"type":"te`, `xt_del`, `ta"}`, `more`},
	} {
		m := &Mark{Text: []byte(`"text_delta"`)}
		for _, w := range writes {
			m.Write([]byte(w))
		}
		if m.At.IsZero() {
			t.Errorf("%q: the mark was not seen", writes)
		}
	}
	m := &Mark{Text: []byte("needle")}
	m.Write([]byte("neednle"))
	if !m.At.IsZero() {
		t.Error("a mark seen that was not written")
	}
}

// A real pipeline: the output goes through, each stage's cost is measured,
// and a failing stage is named with its stderr.
func TestRunPipe(t *testing.T) {
	buildForker(t)
	var out bytes.Buffer
	last := exec.Command("tr", "a-z", "A-Z")
	last.Stdout = &out
	total, stages, err := RunPipe(exec.Command("printf", "abc"), last)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "ABC" {
		t.Errorf("output %q, want ABC", out.String())
	}
	if len(stages) != 2 || total.RSS != stages[0].RSS+stages[1].RSS || stages[0].RSS <= 0 || total.Wall <= 0 {
		t.Errorf("costs: total %+v, stages %+v", total, stages)
	}
	_, err = Run(exec.Command("sh", "-c", "echo broken >&2; exit 3"))
	if err == nil || !strings.Contains(err.Error(), "sh -c echo broken >&2; exit 3: exit status 3: broken") || ExitCode(err) != 3 {
		t.Errorf("a failed command: err = %v, ExitCode %d", err, ExitCode(err))
	}
	if ExitCode(errors.New("other")) != -1 {
		t.Error("ExitCode of an error that is no exit status")
	}
}

// buildForker builds scripts/rusage for the test's runs, as Root does.
func buildForker(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	if err := GoBuild(dir, "github.com/agentutils/agentutils/scripts/rusage"); err != nil {
		t.Fatal(err)
	}
	forker = dir + "/rusage"
}

// A small command started by a parent that holds 100 MB: started directly
// (Go's vfork), the kernel gives it the parent's peak RSS; under
// scripts/rusage, its own (and rusage's floor of about 2 MB).
func TestRSSOfChild(t *testing.T) {
	buildForker(t)
	held := make([]byte, 100<<20)
	for i := range held {
		held[i] = 1 // resident
	}
	direct := exec.Command("true")
	if err := direct.Run(); err != nil {
		t.Fatal(err)
	}
	if kb := direct.ProcessState.SysUsage().(*syscall.Rusage).Maxrss; kb < 100<<10 {
		t.Errorf("true started directly: peak RSS %d KB, want the parent's 100 MB or more", kb)
	}
	c, err := Run(exec.Command("true"))
	if err != nil {
		t.Fatal(err)
	}
	if c.RSS <= 0 || c.RSS > 8<<10 {
		t.Errorf("true under scripts/rusage: peak RSS %d KB, want its own (a few MB)", c.RSS)
	}
	runtime.KeepAlive(held)
}

// A command past its limit is killed with what it started (its process
// group), and its figures are kept.
func TestRunLimit(t *testing.T) {
	buildForker(t)
	pidFile := t.TempDir() + "/pid"
	c, err := RunLimit(200*time.Millisecond, exec.Command("sh", "-c", `sleep 30 & echo $! > "$0"; wait`, pidFile))
	if !errors.Is(err, ErrLimit) || !c.TimedOut || c.Wall < 200*time.Millisecond || c.RSS <= 0 {
		t.Fatalf("RunLimit: %+v, %v", c, err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	stat := "/proc/" + strings.TrimSpace(string(b)) + "/stat"
	for range 100 { // SIGKILL is sent; the process ends soon after
		s, err := os.ReadFile(stat)
		if err != nil || strings.Contains(string(s), ") Z ") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("the limit did not kill sh's child sleep (%s)", stat)
}

func TestParseRusage(t *testing.T) {
	got, err := ParseRusage("0.250000_0.100000_0.020000_8188\n")
	want := Cost{Wall: 250 * time.Millisecond, CPU: 120 * time.Millisecond, RSS: 8188}
	if err != nil || got != want {
		t.Errorf("ParseRusage = %+v, %v; want %+v", got, err, want)
	}
	got, err = ParseRusage("60.000100_0.000000_0.001000_2000_limit\n")
	want = Cost{Wall: 60000100 * time.Microsecond, CPU: time.Millisecond, RSS: 2000, TimedOut: true}
	if err != nil || got != want {
		t.Errorf("ParseRusage at the limit = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []string{"", "1_2_3", "x_0_0_1", "1_0_0_1.5", "1_0_0_1_late", "1_0_0_1_limit_2"} {
		if _, err := ParseRusage(bad); err == nil {
			t.Errorf("ParseRusage(%q): no error", bad)
		}
	}
}

func TestParseStat(t *testing.T) {
	line := "4242 (agent (x) y) S 4200 4242 4242 34816 4242 4194560 1234 0 0 0 150 25 7 3 20 0 5 0 100 1000 2000\n"
	pid, ppid, ticks, ok := ParseStat(line)
	if !ok || pid != 4242 || ppid != 4200 || ticks != 185 {
		t.Errorf("ParseStat = %d %d %d %v, want 4242 4200 185 true", pid, ppid, ticks, ok)
	}
	if _, _, _, ok := ParseStat("garbage"); ok {
		t.Error("ParseStat(garbage) ok")
	}
}

// A pinned npm package already installed at its version is not installed
// again; one at another version or without a version is not taken.
func TestNPMPinned(t *testing.T) {
	prefix := t.TempDir()
	pkg := prefix + "/node_modules/@scope/tool"
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pkg+"/package.json", []byte(`{"name":"@scope/tool","version":"1.2.3"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := InstalledVersion(prefix, "@scope/tool"); got != "1.2.3" {
		t.Errorf("InstalledVersion = %q, want 1.2.3", got)
	}
	bin, err := NPM(prefix, "@scope/tool@1.2.3")
	if err != nil || bin != prefix+"/node_modules/.bin" {
		t.Errorf("NPM at the installed version = %q, %v", bin, err)
	}
	if _, err := NPM(prefix, "@scope/tool"); err == nil || !strings.Contains(err.Error(), "no pinned version") {
		t.Errorf("NPM without a version: err = %v", err)
	}
	t.Setenv("PATH", t.TempDir()) // no npm: another version cannot be installed
	if _, err := NPM(prefix, "@scope/tool@1.2.4"); err == nil || !strings.Contains(err.Error(), "npm and node are not installed") {
		t.Errorf("NPM at another version without npm: err = %v", err)
	}
}
