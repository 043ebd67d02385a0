package batch

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestReadTasks(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"a","repo":".","prompt":"x"}`,
		``,
		`  `,
		`{"id":"b","repo":".","prompt":"caf` + "\xe9" + `"}`,
		`{"id":"a","repo":".","prompt":"again"}`,
		`not json`,
		`{"id":"c","repo":".","prompt":""}`,
		`{"id":"d","repo":".","prompt":"last, no newline"}`,
	}, "\n")
	got, err := ReadTasks(iotest.OneByteReader(strings.NewReader(in)), 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		N      int
		ID     string
		Err    string
		Prompt string
	}
	var rows []row
	for _, l := range got {
		r := row{N: l.N, ID: l.ID, Prompt: l.Task.Prompt}
		if l.Err != nil {
			r.Err, r.Prompt = l.Err.Error(), ""
		}
		rows = append(rows, r)
	}
	want := []row{
		{1, "a", "", "x"},
		{4, "line-4", "line 4: not a task: byte 35 is not UTF-8", ""},
		{5, "line-5", `line 5: id "a" is line 1's too`, ""},
		{6, "line-6", "line 6: not a task: invalid character 'o' in literal null (expecting 'u')", ""},
		{7, "c", "line 7: prompt is empty", ""},
		{8, "d", "", "last, no newline"},
	}
	if d := cmp.Diff(want, rows); d != "" {
		t.Error(d)
	}
	for _, l := range got {
		if l.Err == nil {
			continue
		}
		if _, err := ParseResult(mustJSON(t, ErrorResult(l))); err != nil {
			t.Errorf("line %d: its error result does not read back: %v", l.N, err)
		}
	}
}

func TestReadTasksLongLine(t *testing.T) {
	_, err := ReadTasks(strings.NewReader(`{"id":"a","repo":".","prompt":"x"}`+"\n"+strings.Repeat("0", 5000)), 1000)
	if err == nil || err.Error() != "line 2: longer than 1000 bytes" {
		t.Errorf("err %v", err)
	}
}

func TestSlice(t *testing.T) {
	var lines []Line
	for _, id := range []string{"a1", "b1", "a2", "b2", "a3"} {
		lines = append(lines, Line{ID: id})
	}
	ids := func(ls []Line) string {
		var s []string
		for _, l := range ls {
			s = append(s, l.ID)
		}
		return strings.Join(s, ",")
	}
	for _, tc := range []struct{ filter, slice, want string }{
		{"", "", "a1,b1,a2,b2,a3"},
		{"^a", "", "a1,a2,a3"},
		{"^a", "1:", "a2,a3"},
		{"", ":2", "a1,b1"},
		{"", "3", "b2"},
		{"", "2:4", "a2,b2"},
		{"", "9:", ""},
		{"^b", "0:9", "b1,b2"},
	} {
		var re *regexp.Regexp
		if tc.filter != "" {
			re = regexp.MustCompile(tc.filter)
		}
		var sl *Slice
		if tc.slice != "" {
			s, err := ParseSlice(tc.slice)
			if err != nil {
				t.Fatal(err)
			}
			sl = &s
		}
		if got := ids(Select(lines, re, sl)); got != tc.want {
			t.Errorf("filter %q slice %q: %s, want %s", tc.filter, tc.slice, got, tc.want)
		}
	}
	for _, bad := range []string{":", "a:b", "-1:", "3:1", "2:2", "x", ""} {
		if _, err := ParseSlice(bad); err == nil {
			t.Errorf("slice %q accepted", bad)
		}
	}
}

func TestBackoff(t *testing.T) {
	var got []time.Duration
	for a := 1; a <= 5; a++ {
		got = append(got, Backoff(a, 10*time.Second, time.Minute))
	}
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute, time.Minute}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
}

func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		run  Run
		want bool
	}{
		{Run{ChatExit: 1, Tally: Tally{LastStop: "error", LastError: "500 api_error: Internal server error"}}, true},
		{Run{ChatExit: 1, Tally: Tally{LastStop: "error", LastError: "429 rate_limit_error: slow down"}}, true},
		{Run{ChatExit: 1, Tally: Tally{LastStop: "error", LastError: "dial tcp: connection refused"}}, true},
		{Run{ChatExit: 1, Tally: Tally{LastStop: "error", LastError: "400 invalid_request_error: bad"}}, false},
		{Run{ChatExit: 1, Tally: Tally{LastStop: "error", LastError: "429 insufficient_quota"}}, false},
		{Run{Interrupted: true, Tally: Tally{LastStop: "error", LastError: "500"}}, false},
		{Run{ChatExit: 1}, false},
	} {
		if got := NewResult(Task{ID: "t"}, tc.run, 0).Transient; got != tc.want {
			t.Errorf("%+v: transient %v", tc.run, got)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
