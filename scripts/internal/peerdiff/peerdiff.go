// Package peerdiff runs a command and its peer the same way (agent-grep
// and rg: the same arguments, stdin and environment) and compares what
// they print byte for byte; on a difference it shows a unified diff with
// unprintable bytes made visible, named by the case that differs.
package peerdiff

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Result is what one run printed and its exit status.
type Result struct {
	Out    []byte
	Status int
}

// Run runs cmd and returns its stdout and exit status; its stderr joins
// stdout in the same pipe (the order of 2>&1) unless the caller set
// cmd.Stderr. The error is only for a command that could not run.
func Run(cmd *exec.Cmd) (Result, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	if cmd.Stderr == nil {
		cmd.Stderr = &out
	}
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return Result{}, err
	}
	return Result{Out: out.Bytes(), Status: cmd.ProcessState.ExitCode()}, nil
}

// WithStatus returns the output followed by an "exit N" line: one text to
// compare holding both.
func (r Result) WithStatus() []byte {
	return fmt.Appendf(slices.Clip(r.Out), "exit %d\n", r.Status)
}

var (
	elapsed = regexp.MustCompile(`"elapsed(_total)?":\{[^}]*\}`)
	seconds = regexp.MustCompile(`[0-9]+\.[0-9]+ seconds`)
	prefix  = regexp.MustCompile(`(?m)^(rg|agent-grep): `)
)

// GrepMask masks what differs between two runs of rg or agent-grep that
// print the same: --json's elapsed times, --stats' seconds (the first on
// a line), and the "rg: " / "agent-grep: " prefix of a message.
func GrepMask(b []byte) []byte {
	b = elapsed.ReplaceAll(b, []byte(`"elapsed$1":{}`))
	var out [][]byte
	for line := range bytes.Lines(b) {
		if loc := seconds.FindIndex(line); loc != nil {
			line = slices.Concat(line[:loc[0]], []byte("T seconds"), line[loc[1]:])
		}
		out = append(out, line)
	}
	return prefix.ReplaceAll(bytes.Join(out, nil), nil)
}

// SortLines returns b's lines sorted bytewise (LC_ALL=C sort): outputs
// that may come in any order, compared as sets of lines.
func SortLines(b []byte) []byte {
	var lines [][]byte
	for l := range bytes.Lines(b) {
		if !bytes.HasSuffix(l, []byte("\n")) {
			l = append(slices.Clip(l), '\n')
		}
		lines = append(lines, l)
	}
	slices.SortFunc(lines, bytes.Compare)
	return bytes.Join(lines, nil)
}

// Visible returns b as text with its control bytes (but tab and newline)
// and the bytes that are not UTF-8 made visible as cat -v shows them: ^@,
// ^M, M-i.
func Visible(b []byte) string {
	var s strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		c := b[0]
		b = b[n:]
		switch {
		case n > 1: // a valid multi-byte character
			s.WriteRune(r)
			continue
		case c == '\t' || c == '\n' || c >= 0x20 && c < 0x7f:
			s.WriteByte(c)
			continue
		}
		if c >= 0x80 {
			s.WriteString("M-")
			c -= 0x80
		}
		switch {
		case c < 0x20:
			s.WriteByte('^')
			s.WriteByte(c + '@')
		case c == 0x7f:
			s.WriteString("^?")
		default:
			s.WriteByte(c)
		}
	}
	return s.String()
}

// Diff returns a unified diff of want (the peer's output) against got
// (ours), bytes made visible, cut to its first maxLines lines (0: all).
func Diff(peer, ours string, want, got []byte, maxLines int) string {
	d := udiff.Unified(peer, ours, Visible(want), Visible(got))
	if maxLines <= 0 {
		return d
	}
	lines := strings.SplitAfter(d, "\n")
	if len(lines) > maxLines {
		lines = append(lines[:maxLines], fmt.Sprintf("... (%d more lines)\n", len(lines)-maxLines))
	}
	return strings.Join(lines, "")
}

// Version returns the first line of `name --version` ("ripgrep 13.0.0"),
// or an error when name is not installed or does not answer.
func Version(name string) (string, error) {
	out, err := exec.Command(name, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return first, nil
}

// Rg13 returns nil when rg 13 (the peer agent-grep copies) is installed,
// else the reason to skip: a check against another rg would fail on what
// rg changed since.
func Rg13() error {
	v, err := Version("rg")
	if err != nil {
		return fmt.Errorf("rg not installed (apt-get install ripgrep)")
	}
	if !strings.HasPrefix(v, "ripgrep 13.") {
		return fmt.Errorf("rg is %q, not ripgrep 13", v)
	}
	return nil
}

// AgentGrep returns the agent-grep binary compared: $AG, or bin/agent-grep
// (make build), as an absolute path.
func AgentGrep() (string, error) {
	p, err := filepath.Abs(cmp.Or(os.Getenv("AG"), "bin/agent-grep"))
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s missing: run 'make build'", p)
	}
	return p, nil
}
