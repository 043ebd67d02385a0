package grep

import "testing"

func TestPrinterSpanNeed(t *testing.T) {
	cases := []struct {
		name string
		p    Printer
		want SpanNeed
	}{
		{"plain lines", Printer{format: &format{mode: "standard"}}, SpansNone},
		{"-n -b -M", Printer{format: &format{mode: "standard", lineNums: true, byteOffset: true, maxCols: 10}}, SpansNone},
		{"--column", Printer{format: &format{mode: "standard", column: true}}, SpansFirst},
		{"--column --trim", Printer{format: &format{mode: "standard", column: true, trim: true}}, SpansAll},
		{"colour", Printer{format: &format{mode: "standard", color: true}}, SpansAll},
		{"-o", Printer{format: &format{mode: "standard", only: true}}, SpansAll},
		{"-r", Printer{format: &format{mode: "standard", replace: &replacer{}}}, SpansAll},
		{"--stats", Printer{format: &format{mode: "standard"}, stats: true}, SpansAll},
		{"--max-total-matches", Printer{format: &format{mode: "standard"}, maxTotal: 3}, SpansAll},
		{"--max-bytes", Printer{format: &format{mode: "standard"}, maxBytes: 3}, SpansAll},
		{"--json", Printer{format: &format{mode: "json"}}, SpansAll},
		{"--vimgrep", Printer{format: &format{mode: "vimgrep"}}, SpansAll},
		{"--format agent", Printer{format: &format{mode: "agent"}}, SpansAll},
	}
	for _, c := range cases {
		if got := c.p.SpanNeed(); got != c.want {
			t.Errorf("%s: SpanNeed = %d, want %d", c.name, got, c.want)
		}
	}
}
