package runcost

import (
	"os/exec"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSpreadOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64
		want Spread
	}{
		{"none", nil, Spread{}},
		{"one", []float64{7}, Spread{7, 7, 7}},
		{"odd", []float64{5, 1, 9, 3, 7}, Spread{5, 1, 9}},
		{"even: the lower middle", []float64{4, 1, 3, 2}, Spread{2, 1, 4}},
		{"ties", []float64{2, 2, 1}, Spread{2, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]float64(nil), tc.xs...)
			if d := cmp.Diff(tc.want, SpreadOf(tc.xs)); d != "" {
				t.Errorf("SpreadOf(%v) (-want +got):\n%s", tc.xs, d)
			}
			if d := cmp.Diff(in, tc.xs); d != "" {
				t.Errorf("SpreadOf changed its input:\n%s", d)
			}
		})
	}
}

func TestFigures(t *testing.T) {
	cs := []Cost{{Wall: 1500 * time.Microsecond, CPU: 2 * time.Millisecond, RSS: 2048}}
	for _, tc := range []struct {
		f    func(Cost) float64
		want float64
	}{{WallMS, 1.5}, {CPUMS, 2}, {RSSMB, 2}} {
		if d := cmp.Diff([]float64{tc.want}, Figures(cs, tc.f)); d != "" {
			t.Error(d)
		}
	}
}

func TestRatios(t *testing.T) {
	ms := func(ns ...int) []Cost {
		var cs []Cost
		for _, n := range ns {
			cs = append(cs, Cost{CPU: time.Duration(n) * time.Millisecond})
		}
		return cs
	}
	got := Ratios(ms(10, 30, 5, 0, 7), ms(5, 10, 0, 0), CPUMS)
	if d := cmp.Diff([]float64{2, 3, 99, 1}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestEnvCount(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  int
		err   bool
	}{{"", 5, false}, {"12", 12, false}, {"0", 0, true}, {"-3", 0, true}, {"x", 0, true}} {
		t.Setenv("RUNCOST_TEST", tc.value)
		got, err := EnvCount("RUNCOST_TEST", 5)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("RUNCOST_TEST=%q: %d, %v", tc.value, got, err)
		}
	}
}

func TestParseLoad(t *testing.T) {
	for in, want := range map[string]string{
		"0.49 2.16 3.24 2/129 7709\n": "0.49 2.16 3.24",
		"1.0 2.0":                     "?",
		"":                            "?",
	} {
		if got := ParseLoad(in); got != want {
			t.Errorf("ParseLoad(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMeasure(t *testing.T) {
	c, err := Measure(exec.Command("sh", "-c", "exit 3"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != 3 || c.TimedOut || c.Wall <= 0 || c.RSS == 0 {
		t.Errorf("sh -c 'exit 3': %+v", c)
	}
	c, err = Measure(exec.Command("sleep", "30"), 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !c.TimedOut || c.Wall != 100*time.Millisecond || c.CPU != c.Wall {
		t.Errorf("sleep past the limit: %+v", c)
	}
	if _, err := Measure(exec.Command("/nonexistent/command"), 0); err == nil {
		t.Error("a command that cannot start: no error")
	}
}

func TestParseRSS(t *testing.T) {
	for in, want := range map[string]int64{
		"1604\n": 1604,
		"Command exited with non-zero status 3\n1628\n": 1628,
		"":    -1,
		"x\n": -1,
	} {
		if got := ParseRSS(in); got != want {
			t.Errorf("ParseRSS(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestRounds(t *testing.T) {
	var order []string
	runner := func(name string) Runner {
		return Runner{Name: name, Cmd: func() *exec.Cmd { order = append(order, name); return exec.Command("true") }}
	}
	costs, err := Rounds(3, []Runner{runner("a"), runner("b")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"a", "b", "a", "b", "a", "b"}, order); d != "" {
		t.Errorf("not interleaved (-want +got):\n%s", d)
	}
	if len(costs) != 2 || len(costs[0]) != 3 || len(costs[1]) != 3 {
		t.Errorf("costs: %v", costs)
	}
	// Once: a runner slower than that on its first run runs only once.
	order = nil
	costs, err = Rounds(3, []Runner{runner("slow")}, Options{Once: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(costs[0]) != 1 || len(order) != 1 {
		t.Errorf("Once: %d runs", len(costs[0]))
	}
}
