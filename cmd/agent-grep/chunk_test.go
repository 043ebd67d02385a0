package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentutils/agentutils/internal/testbin"
)

// TestChunkedSameOutput searches files in pieces (AGENT_GREP_TEST_CHUNK:
// every file, pieces as small as rg's 64 KiB buffer allows), read and in
// a memory map of the file, and requires
// the output of searching them whole, byte for byte but for elapsed times.
func TestChunkedSameOutput(t *testing.T) {
	bin, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// text.txt: ~400 KB of lines; "edge" on the lines around each 64 KiB
	// boundary, where pieces end, so context and matches straddle them.
	rng := rand.New(rand.NewSource(1))
	words := strings.Fields("alpha beta gamma delta Needle needle needles epsilon zeta theta kappa fox ünïcode café x")
	var text bytes.Buffer
	for i := 1; text.Len() < 400<<10; i++ {
		next := (text.Len()/(64<<10) + 1) * (64 << 10)
		var l []string
		for n := rng.Intn(12); n > 0; n-- {
			l = append(l, words[rng.Intn(len(words))])
		}
		if next-text.Len() < 300 || text.Len()%(64<<10) < 200 {
			l = append(l, "edge")
		}
		if i%97 == 0 {
			l = append(l, "rare")
		}
		fmt.Fprintf(&text, "%d %s\n", i, strings.Join(l, " "))
	}
	write("text.txt", text.Bytes())
	write("crlf.txt", bytes.ReplaceAll(text.Bytes(), []byte("\n"), []byte("\r\n")))
	write("nonl.txt", append(bytes.TrimRight(text.Bytes(), "\n"), " needle edge rare"...))
	long := append([]byte(nil), text.Bytes()[:200<<10]...)
	long = append(long, "long needle "...)
	long = append(long, bytes.Repeat([]byte("x needle y "), 30000)...) // a 330 KB line
	long = append(long, "\nafter the long line rare edge\n"...)
	write("long.txt", append(long, text.Bytes()[200<<10:]...))
	late := append([]byte(nil), text.Bytes()...)
	copy(late[300<<10:], "zero\x00here needle rare\n") // a NUL in a later piece
	write("late.txt", late)
	early := append([]byte(nil), text.Bytes()...)
	copy(early[1000:], "nul\x00 needle\n")
	write("early.txt", early)
	write("walk/late.txt", late)
	write("walk/text.txt", text.Bytes())

	files := []string{"text.txt", "crlf.txt", "nonl.txt", "long.txt"}
	queries := [][]string{
		{"-n", "needle"}, {"-n", "."}, {"-b", "-n", "rare"}, {"--column", "-n", "needle"}, {"-o", "-b", "needles?"},
		{"-c", "x"}, {"-v", "-c", "e"}, {"--count-matches", "needle"}, {"-l", "rare"}, {"-v", "-n", "e"}, {"-w", "-n", "needle"}, {"-i", "-c", "needle"},
		{"-n", "-A", "3", "edge"}, {"-n", "-B", "4", "edge"}, {"-n", "-C", "2", "edge"}, {"-n", "-C", "40", "rare"},
		{"-n", "-v", "-C", "1", "a"}, {"-m", "5", "-n", "-A", "3", "edge"}, {"-m", "40", "-c", "edge"}, {"-m", "40", "--json", "-C", "1", "edge"},
		{"--json", "-n", "rare"}, {"--json", "-v", "e"}, {"--stats", "-n", "edge"}, {"--stats", "-m", "3", "-c", "rare"}, {"--stats", "-v", "-m", "500", "edge"}, {"--stats", "-v", "-m", "3", "rare"}, {"--stats", "-m", "2", "-A", "900000", "rare"},
		{"-n", "\\w+é"}, {"-n", "-B", "2", "-A", "5", "rare"}, {"--passthru", "-n", "rare"}, {"-n", "$"}, {"-c", "^"},
		{"-n", "-r", "NEEDLE", "needle"}, {"--vimgrep", "rare"}, {"-n", "--no-mmap", "-C", "3", "edge"},
	}
	var cases [][]string
	for i, q := range queries {
		// every query on text.txt; the other files take turns
		for _, f := range []string{files[0], files[1+i%3]} {
			cases = append(cases, append(append([]string(nil), q...), f))
		}
	}
	for _, f := range files[1:] {
		cases = append(cases, []string{"-n", "-C", "2", "edge", f}, []string{"--json", "-b", "needle", f})
	}
	// binary data: named files (whole-file rules, and the buffered ones
	// with --no-mmap or more than ten files), walked files (dropped from
	// the fill with the NUL on)
	// (with context: the first line handed over after the NUL ends the file)
	for _, q := range [][]string{{"-n", "needle"}, {"-c", "needle"}, {"-c", "here"}, {"-c", "qqqq"}, {"--json", "-C", "2", "rare"}, {"--stats", "-m", "2000", "-n", "needle"}, {"-l", "rare"},
		{"--stats", "-n", "-C", "1", "fox"}, {"-n", "-B", "3", "rare"}, {"-n", "-A", "2", "needle"}, {"--stats", "-m", "1", "-A", "4000", "rare"}} {
		for _, f := range [][]string{{"late.txt"}, {"early.txt"}, {"--no-mmap", "late.txt"}, {"--no-mmap", "early.txt"}, {"walk"}, {"-a", "late.txt"},
			{"late.txt", "early.txt", "text.txt", "crlf.txt", "nonl.txt", "long.txt", "late.txt", "early.txt", "text.txt", "crlf.txt", "nonl.txt"}} {
			cases = append(cases, append(append([]string(nil), q...), f...))
		}
	}
	elapsed := regexp.MustCompile(`"elapsed(_total)?":\{[^}]*\}|[0-9.]+ seconds`)
	run := func(chunk, stdin string, args []string) string {
		cmd := exec.Command(filepath.Join(bin, "agent-grep"), args...)
		cmd.Dir = dir
		if stdin != "" {
			f, err := os.Open(filepath.Join(dir, stdin))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cmd.Stdin = f
		}
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		if chunk != "" {
			cmd.Env = append(cmd.Env, "AGENT_GREP_TEST_CHUNK="+chunk)
		}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("exit %d\n%s\nstderr:\n%s", code, elapsed.ReplaceAllString(out.String(), "ELAPSED"), errb.String())
	}
	for _, args := range cases {
		whole := run("", "", args)
		// read in pieces, and the pieces of a memory map (above 1 byte)
		for _, chunk := range []string{"1,1,0", "1,1,1"} {
			if got := run(chunk, "", args); got != whole {
				t.Errorf("agent-grep %s in pieces (%s) differs from the whole-file search:\n%s", strings.Join(args, " "), chunk, firstDiff(whole, got))
			}
		}
		if !strings.Contains(whole, "\n") || strings.HasPrefix(whole, "exit 2") {
			t.Errorf("agent-grep %s: %s", strings.Join(args, " "), whole)
		}
	}
	// standard input: searched whole when short, as a stream of pieces
	// (through one bounded buffer) once past the size for pieces
	for _, q := range [][]string{{"-n", "needle"}, {"-c", "needle"}, {"-n", "-C", "2", "edge"}, {"--json", "-C", "2", "rare"},
		{"--stats", "-m", "2000", "-n", "needle"}, {"--stats", "-n", "-C", "1", "fox"}, {"-n", "-B", "3", "rare"}, {"-v", "-c", "e"},
		{"--stats", "-m", "3", "-c", "rare"}, {"-b", "-n", "rare"}, {"-q", "rare"}, {"-o", "-b", "needles?"}} {
		for _, f := range []string{"text.txt", "crlf.txt", "nonl.txt", "long.txt", "late.txt", "early.txt"} {
			whole := run("", f, q)
			if got := run("1,1", f, q); got != whole {
				t.Errorf("agent-grep %s < %s as a stream differs from the whole search:\n%s", strings.Join(q, " "), f, firstDiff(whole, got))
			}
		}
	}
}

// firstDiff shows where two outputs part.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d (of %d, %d):\nwhole:  %.300q\npieces: %.300q", i+1, len(wl), len(gl), w, g)
		}
	}
	return ""
}
