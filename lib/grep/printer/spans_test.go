package printer

import (
	"github.com/agentutils/agentutils/lib/grep/regex"
	"testing"
)

func TestPrinterSpanNeed(t *testing.T) {
	cases := []struct {
		name string
		p    Printer
		want regex.SpanNeed
	}{
		{"plain lines", Printer{format: &format{mode: "standard"}}, regex.SpansNone},
		{"-n -b -M", Printer{format: &format{mode: "standard", lineNums: true, byteOffset: true, maxCols: 10}}, regex.SpansNone},
		{"--column", Printer{format: &format{mode: "standard", column: true}}, regex.SpansFirst},
		{"--column --trim", Printer{format: &format{mode: "standard", column: true, trim: true}}, regex.SpansAll},
		{"colour", Printer{format: &format{mode: "standard", color: true}}, regex.SpansAll},
		{"-o", Printer{format: &format{mode: "standard", only: true}}, regex.SpansAll},
		{"-r", Printer{format: &format{mode: "standard", replace: &replacer{}}}, regex.SpansAll},
		{"--stats", Printer{format: &format{mode: "standard"}, stats: true}, regex.SpansAll},
		{"--max-total-matches", Printer{format: &format{mode: "standard"}, maxTotal: 3}, regex.SpansAll},
		{"--max-bytes", Printer{format: &format{mode: "standard"}, maxBytes: 3}, regex.SpansAll},
		{"--json", Printer{format: &format{mode: "json"}}, regex.SpansAll},
		{"--vimgrep", Printer{format: &format{mode: "vimgrep"}}, regex.SpansAll},
		{"--format agent", Printer{format: &format{mode: "agent"}}, regex.SpansAll},
	}
	for _, c := range cases {
		if got := c.p.SpanNeed(); got != c.want {
			t.Errorf("%s: SpanNeed = %d, want %d", c.name, got, c.want)
		}
	}
}
