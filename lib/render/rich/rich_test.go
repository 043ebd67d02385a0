package rich

import (
	"strings"
	"testing"

	"github.com/agentutils/agentutils/lib/render"
)

func TestTerminalMarkdown(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"# Title", "\x1b[1;4;35mTitle\x1b[22;24;39m\n"},
		{"a **b** `c` *d*", "a \x1b[1mb\x1b[22m \x1b[36mc\x1b[39m \x1b[3md\x1b[23m\n"},
		{"- item", "\x1b[36m• \x1b[39mitem\n"},
		{"  - nested", "  \x1b[36m• \x1b[39mnested\n"},
		{"3. third", "\x1b[36m3. \x1b[39mthird\n"},
		{"> quoted", "\x1b[90m│ \x1b[39mquoted\n"},
		{"|a|b|\n|-|-|\n|1|22|", "\x1b[90m┌───┬────┐\x1b[39m\n\x1b[90m│\x1b[39m \x1b[1ma\x1b[22m \x1b[90m│\x1b[39m \x1b[1mb\x1b[22m  \x1b[90m│\x1b[39m\n\x1b[90m├───┼────┤\x1b[39m\n\x1b[90m│\x1b[39m 1 \x1b[90m│\x1b[39m 22 \x1b[90m│\x1b[39m\n\x1b[90m└───┴────┘\x1b[39m\n"},
	} {
		if got := (Terminal{}).Markdown(c.in, 80); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestWrapKeepsTheIndent(t *testing.T) {
	got := (Terminal{}).Markdown("- "+strings.Repeat("word ", 10), 20)
	for i, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if i > 0 && !strings.HasPrefix(l, "  word") {
			t.Errorf("line %d %q: not under the item's text", i, l)
		}
	}
}

func TestCodeIsHighlighted(t *testing.T) {
	if got := (Terminal{}).Code("func main() {}", "go"); !strings.Contains(got, "\x1b[") || !strings.Contains(got, "main") {
		t.Errorf("%q", got)
	}
	if got := (Terminal{}).Code("plain", "no-such-language"); got != "plain" {
		t.Errorf("%q", got)
	}
}

func TestMarkdownHTML(t *testing.T) {
	got := MarkdownHTML("# T\n\n<script>alert(1)</script>\n\nx <b>y</b> [l](javascript:alert(1))\n\n```go\nreturn 1\n```\n")
	for _, want := range []string{"<h1", `<span class="hl-k">return</span>`, "&lt;script&gt;", "&lt;b&gt;"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"<script", "<b>", `href="javascript`} {
		if strings.Contains(got, bad) {
			t.Errorf("contains %q:\n%s", bad, got)
		}
	}
	if css := CSS(); !strings.Contains(css, ".hl-k") || strings.Contains(css, ".hl-chroma ") {
		t.Errorf("css: %.300s", css)
	}
}

// The Styler plugged into lib/render: a streamed code block comes out
// highlighted line by line.
func TestWithRenderer(t *testing.T) {
	r := render.New(render.Options{Color: true, Styler: Terminal{}})
	s, err := r.Event([]byte(`{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"## Go\n` + "```go" + `\nfunc f() {}\n` + "```" + `\n"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s, "\x1b[1;35mGo") || !strings.Contains(s, "\x1b[38;5;") {
		t.Errorf("%q", s)
	}
}

func FuzzTerminalMarkdown(f *testing.F) {
	for _, s := range []string{"# x", "- [ ] a *b* `c`", "|a|\n|-|\n|1|", "> q\n\n```go\nx\n```", "    indented", "<b>raw</b> [l](u)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		(Terminal{}).Markdown(s, 20)
		MarkdownHTML(s)
	})
}
