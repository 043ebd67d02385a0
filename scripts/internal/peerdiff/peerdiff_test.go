package peerdiff

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGrepMask(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"json elapsed", `{"type":"end","data":{"elapsed":{"secs":0,"nanos":12,"human":"0.000012s"}}}` + "\n",
			`{"type":"end","data":{"elapsed":{}}}` + "\n"},
		{"json elapsed_total", `{"elapsed_total":{"secs":1,"human":"1s"},"x":1}`, `{"elapsed_total":{},"x":1}`},
		{"stats seconds: the first on a line", "0.000123 seconds spent searching\n1.5 seconds 2.5 seconds\n",
			"T seconds spent searching\nT seconds 2.5 seconds\n"},
		{"message prefixes", "rg: missing.txt: No such file\nagent-grep: x\nnot rg: a prefix\n",
			"missing.txt: No such file\nx\nnot rg: a prefix\n"},
		{"no final newline", "rg: x", "x"},
		{"unchanged", "a:1:hello\n", "a:1:hello\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, string(GrepMask([]byte(tc.in)))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestSortLines(t *testing.T) {
	for in, want := range map[string]string{
		"b\na\nB\n": "B\na\nb\n",
		"b\na":      "a\nb\n",
		"":          "",
		"é\nz\n":    "z\né\n",
	} {
		if got := string(SortLines([]byte(in))); got != want {
			t.Errorf("SortLines(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"a\tb\n":         "a\tb\n",
		"x\x00y\r\n":     "x^@y^M\n",
		"caf\xe9 café":   "cafM-i café",
		"\x7f\xff\x80\n": "^?M-^?M-^@\n",
		"日本\x1b[0m":      "日本^[[0m",
	} {
		if got := Visible([]byte(in)); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDiff(t *testing.T) {
	d := Diff("rg", "agent-grep", []byte("a\nb\x00\nc\n"), []byte("a\nB\nc\n"), 0)
	for _, want := range []string{"--- rg", "+++ agent-grep", "-b^@", "+B"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	var want, got strings.Builder
	for i := range 50 {
		want.WriteString("line\n")
		got.WriteString(strings.Repeat("x", i) + "\n")
	}
	d = Diff("rg", "ours", []byte(want.String()), []byte(got.String()), 10)
	if n := strings.Count(d, "\n"); n != 11 || !strings.HasSuffix(d, "more lines)\n") {
		t.Errorf("cut to 10 lines and a note: %d lines\n%s", n, d)
	}
}

func TestRun(t *testing.T) {
	r, err := Run(exec.Command("sh", "-c", "echo out; echo err >&2; echo out2; exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff("out\nerr\nout2\nexit 3\n", string(r.WithStatus())); d != "" {
		t.Errorf("stdout and stderr in one pipe (-want +got):\n%s", d)
	}
	cmd := exec.Command("sh", "-c", "echo out; echo err >&2")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if r, err = Run(cmd); err != nil || string(r.Out) != "out\n" || stderr.String() != "err\n" || r.Status != 0 {
		t.Errorf("stderr apart: %q %q %v", r.Out, stderr.String(), err)
	}
	if _, err := Run(exec.Command("/nonexistent/command")); err == nil {
		t.Error("a command that cannot start: no error")
	}
}
