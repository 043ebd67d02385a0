package grep

import "testing"

func TestPrinterSpanNeed(t *testing.T) {
	cases := []struct {
		name string
		p    Printer
		want SpanNeed
	}{
		{"plain lines", Printer{mode: "standard"}, SpansNone},
		{"-n -b -M", Printer{mode: "standard", lineNums: true, byteOffset: true, maxCols: 10}, SpansNone},
		{"--column", Printer{mode: "standard", column: true}, SpansFirst},
		{"--column --trim", Printer{mode: "standard", column: true, trim: true}, SpansAll},
		{"colour", Printer{mode: "standard", color: true}, SpansAll},
		{"-o", Printer{mode: "standard", only: true}, SpansAll},
		{"-r", Printer{mode: "standard", replace: &replacer{}}, SpansAll},
		{"--stats", Printer{mode: "standard", stats: true}, SpansAll},
		{"--max-total-matches", Printer{mode: "standard", maxTotal: 3}, SpansAll},
		{"--max-bytes", Printer{mode: "standard", maxBytes: 3}, SpansAll},
		{"--json", Printer{mode: "json"}, SpansAll},
		{"--vimgrep", Printer{mode: "vimgrep"}, SpansAll},
		{"--format agent", Printer{mode: "agent"}, SpansAll},
	}
	for _, c := range cases {
		if got := c.p.SpanNeed(); got != c.want {
			t.Errorf("%s: SpanNeed = %d, want %d", c.name, got, c.want)
		}
	}
}
