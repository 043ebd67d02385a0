package batch

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"
)

func reportPage() Page {
	rs := []Result{
		{ID: "t1", Outcome: Passed, Model: "anthropic/claude-x", Turns: 2, Tokens: 300, Cost: 0.02, WallSeconds: 1},
		{ID: "t1", Outcome: Failed, Model: "anthropic/claude-x", Turns: 3, Tokens: 500, Cost: 0.03, WallSeconds: 2},
		{ID: "t2", Outcome: Budget, Model: "openai/<gpt & co>", Turns: 9, Tokens: 9000, Cost: 0.5, WallSeconds: 30},
		{ID: "t3", Outcome: Error, Model: "", WallSeconds: 0.1},
	}
	return Page{Title: "Nightly <run>", Generated: "generated 2026-01-01 00:00 UTC", Sources: []string{"out/results.jsonl"}, Results: rs,
		Turns: []Turns{
			{ID: "t1", Outcome: Passed, Tokens: []int64{100, 200}},
			{ID: "t1", Outcome: Failed, Tokens: []int64{100, 150, 250}},
			{ID: "t2", Outcome: Budget, Tokens: []int64{1000, 2000, 3000, 4000}},
			{ID: "t3", Outcome: Error}, // a session without a response: not drawn
		},
		Missing: []string{"t9"},
	}
}

// svgs returns each plot's SVG, checking that it is well-formed XML.
func svgs(t *testing.T, page string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(?s)<svg id="(\w+)".*?</svg>`).FindAllStringSubmatch(page, -1) {
		dec := xml.NewDecoder(strings.NewReader(m[0]))
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("svg %s is not well-formed: %v\n%s", m[1], err, m[0])
			}
		}
		out[m[1]] = m[0]
	}
	return out
}

func TestHTMLReport(t *testing.T) {
	page := string(HTML(reportPage()))
	plots := svgs(t, page)
	count := func(plot, sub string) int { return strings.Count(plots[plot], sub) }
	for _, c := range []struct {
		plot, mark string
		want       int
	}{
		{"cost", `<rect class="bar `, 3},             // one bar per task
		{"cost", `<rect class="bar failed"`, 1},      // t1: the worst of passed and failed
		{"cost", `<rect class="bar budget"`, 1},      // t2
		{"cost", `<rect class="bar error"`, 1},       // t3, at no cost, still drawn
		{"turns", `<polyline `, 3},                   // the runs with responses
		{"turns", `<circle `, 2 + 3 + 4},             // one dot per turn
		{"outcomes", `<g class="model">`, 3},         // (unknown), claude-x, gpt
		{"outcomes", `<rect class="seg `, 1 + 2 + 1}, // error; passed and failed; budget
	} {
		if got := count(c.plot, c.mark); got != c.want {
			t.Errorf("%s: %d × %s, want %d", c.plot, got, c.mark, c.want)
		}
	}
	if len(plots) != 3 {
		t.Errorf("%d plots, want 3", len(plots))
	}
	for _, bad := range []string{"<script", "<link", " src=", "http:", "https:", "url(", "@import"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q: not self-contained", bad)
		}
	}
	for _, want := range []string{"<title>Nightly &lt;run&gt;</title>", "openai/&lt;gpt &amp; co&gt;", "Not drawn, their session could not be read: t9.",
		"from out/results.jsonl", "<td>4</td>", "$0.5500", "25.0%", "9,000"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<gpt") {
		t.Error("a model name is not escaped")
	}
}

func TestHTMLReportEmpty(t *testing.T) {
	page := string(HTML(Page{}))
	plots := svgs(t, page)
	for _, id := range []string{"cost", "turns", "outcomes"} {
		if !strings.Contains(plots[id], "no data") {
			t.Errorf("%s: an empty report says no data: %s", id, plots[id])
		}
	}
	if !bytes.Contains(HTML(Page{}), []byte("<h1>Batch report</h1>")) {
		t.Error("default title")
	}
}

func TestNiceScale(t *testing.T) {
	for _, c := range []struct{ v, max, step float64 }{
		{0, 1, 0.25}, {1, 1, 0.2}, {0.0207, 0.025, 0.005}, {2210, 2500, 500}, {9000, 10000, 2000}, {12, 12.5, 2.5}, {7, 8, 2},
	} {
		s := niceScale(c.v)
		if s.max < c.v || s.step <= 0 || (c.v > 0 && (s.max != c.max || s.step != c.step)) {
			t.Errorf("niceScale(%v) = %+v, want max %v step %v", c.v, s, c.max, c.step)
		}
	}
}
