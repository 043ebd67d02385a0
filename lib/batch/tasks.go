package batch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxTaskLine is the longest task line agent-batch reads (a prompt of a
// few MiB fits; /dev/zero does not).
const MaxTaskLine = 16 << 20

// Line is one non-blank line of a tasks file: its task, or why it is not one.
type Line struct {
	N    int    // line number, from 1
	ID   string // the task's id; line-N when the line has no usable id of its own
	Task Task
	Err  error  // the line is not a task (the error names the line)
	Raw  []byte // the line as read
}

// ReadTasks reads a tasks file once: every non-blank line, in order, each
// a task or an error naming its line (a duplicate id is one). The error
// returned is the input's own (unreadable, or a line over maxLine bytes):
// then nothing is run.
func ReadTasks(r io.Reader, maxLine int) ([]Line, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []Line
	seen := map[string]int{}
	for n := 1; ; n++ {
		line, err := readLine(br, maxLine)
		if errors.Is(err, errLong) {
			return nil, fmt.Errorf("line %d: longer than %d bytes", n, maxLine)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			out = append(out, parseLine(line, n, seen))
		}
		if err != nil {
			return out, nil
		}
	}
}

var errLong = errors.New("line too long")

// readLine reads up to a newline (dropped), keeping at most max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max+1 {
			return nil, errLong
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte{'\n'}), err
	}
}

func parseLine(line []byte, n int, seen map[string]int) Line {
	l := Line{N: n, ID: "line-" + strconv.Itoa(n), Raw: append([]byte(nil), line...)}
	t, err := ParseTask(line)
	if err == nil {
		if first, dup := seen[t.ID]; dup {
			err = fmt.Errorf("id %q is line %d's too", t.ID, first)
		} else {
			seen[t.ID] = n
			l.ID = t.ID
		}
	} else if idRE.MatchString(t.ID) && seen[t.ID] == 0 {
		seen[t.ID] = n
		l.ID = t.ID
	}
	if err != nil {
		l.Err = fmt.Errorf("line %d: %v", n, err)
	}
	l.Task = t
	return l
}

// ErrorResult is the result of a line that is not a task: outcome error,
// the reason naming the line.
func ErrorResult(l Line) Result {
	return Result{ID: l.ID, Outcome: Error, Reason: l.Err.Error()}
}

// Slice is a range of tasks, as Python slices them: [Start:End), End 0 for
// the end. ParseSlice reads "START:END", "START:", ":END" or "N" (the Nth
// alone), each from 0.
type Slice struct{ Start, End int }

// ParseSlice reads a --slice value.
func ParseSlice(s string) (Slice, error) {
	bad := fmt.Errorf("slice %q: want START:END, START:, :END or N (whole numbers from 0)", s)
	num := func(v string, dflt int) (int, bool) {
		if v == "" {
			return dflt, true
		}
		n, err := strconv.Atoi(v)
		return n, err == nil && n >= 0
	}
	a, b, colon := strings.Cut(s, ":")
	if !colon {
		n, ok := num(a, -1)
		if !ok || n < 0 {
			return Slice{}, bad
		}
		return Slice{n, n + 1}, nil
	}
	start, ok1 := num(a, 0)
	end, ok2 := num(b, 0)
	if !ok1 || !ok2 || s == ":" || (b != "" && end <= start) {
		return Slice{}, bad
	}
	return Slice{start, end}, nil
}

// Select keeps the lines whose id matches filter (nil: all), then the
// slice of those (nil: all).
func Select(lines []Line, filter *regexp.Regexp, sl *Slice) []Line {
	var out []Line
	for _, l := range lines {
		if filter == nil || filter.MatchString(l.ID) {
			out = append(out, l)
		}
	}
	if sl == nil {
		return out
	}
	start, end := min(sl.Start, len(out)), len(out)
	if sl.End > 0 {
		end = min(sl.End, len(out))
	}
	return out[start:end]
}

// Backoff is the wait before retry number attempt (from 1) of a task that
// met a transient provider error: base doubled each time, at most max.
func Backoff(attempt int, base, max time.Duration) time.Duration {
	d := base
	for i := 1; i < attempt && d < max; i++ {
		d *= 2
	}
	return min(d, max)
}

// firstInvalidUTF8 is the offset of the first byte that is not UTF-8, or -1.
func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}
