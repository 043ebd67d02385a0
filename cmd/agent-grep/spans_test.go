package main

import (
	"testing"

	"github.com/agentutils/agentutils/lib/grep"
)

func TestSpanNeed(t *testing.T) {
	cases := []struct {
		name string
		p    printer
		want grep.SpanNeed
	}{
		{"plain lines", printer{mode: "standard"}, grep.SpansNone},
		{"-n -b -M", printer{mode: "standard", lineNums: true, byteOffset: true, maxCols: 10}, grep.SpansNone},
		{"--column", printer{mode: "standard", column: true}, grep.SpansFirst},
		{"--column --trim", printer{mode: "standard", column: true, trim: true}, grep.SpansAll},
		{"colour", printer{mode: "standard", color: true}, grep.SpansAll},
		{"-o", printer{mode: "standard", only: true}, grep.SpansAll},
		{"-r", printer{mode: "standard", replace: &replacer{}}, grep.SpansAll},
		{"--stats", printer{mode: "standard", stats: true}, grep.SpansAll},
		{"--max-total-matches", printer{mode: "standard", maxTotal: 3}, grep.SpansAll},
		{"--max-bytes", printer{mode: "standard", maxBytes: 3}, grep.SpansAll},
		{"--json", printer{mode: "json"}, grep.SpansAll},
		{"--vimgrep", printer{mode: "vimgrep"}, grep.SpansAll},
		{"--format agent", printer{mode: "agent"}, grep.SpansAll},
	}
	for _, c := range cases {
		if got := spanNeed(&c.p); got != c.want {
			t.Errorf("%s: spanNeed = %d, want %d", c.name, got, c.want)
		}
	}
}
