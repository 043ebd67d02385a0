package batch

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"sort"
	"strings"

	"github.com/agentutils/agentutils/lib/render/show"
	"github.com/agentutils/agentutils/lib/usage"
)

// Turns is one run's tokens per turn (each assistant message's input,
// output and cache tokens: the context it was given, and its answer), as
// its session holds them.
type Turns struct {
	ID      string
	Outcome string
	Tokens  []int64
}

// Page is what an HTML report shows. The caller reads the files and the
// clock; HTML only draws.
type Page struct {
	Title     string
	Generated string   // when, as the caller words it ("" for none)
	Sources   []string // the result files read, named on the page
	Results   []Result
	Turns     []Turns  // the runs whose sessions were read
	Missing   []string // ids of runs whose session could not be read
	// Links are the tasks' trajectories (their sessions' HTML export,
	// agent-batch's OUT/trajectories/ID.html) by task id, as hrefs.
	Links map[string]string
}

// Outcome colours, shared by the three plots and their legends.
var outcomeColors = map[string]string{Passed: "#2e7d32", Failed: "#c62828", Budget: "#ef8f00", Error: "#6d6d6d"}

var outcomeOrder = []string{Passed, Failed, Budget, Error}

// HTML is a self-contained report page (inline style, inline SVG, no
// script, nothing fetched): the totals, three plots — cost per task,
// tokens over turns, outcome by model — and the tables by model and by
// task. Each plot's marks carry a class and a <title> (the browser's
// tooltip): svg#cost rect.bar (one per task), svg#turns polyline (one per
// run with a session), svg#outcomes g.model (one per model) holding
// rect.seg (one per outcome that model had).
func HTML(p Page) []byte {
	rep := Aggregate(p.Results)
	var b bytes.Buffer
	title := p.Title
	if title == "" {
		title = "Batch report"
	}
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\n<title>%s</title>\n<style>%s</style></head>\n<body>\n", esc(title), reportCSS)
	fmt.Fprintf(&b, "<header><h1>%s</h1>\n", esc(title))
	if p.Generated != "" || len(p.Sources) > 0 {
		fmt.Fprintf(&b, "<p class=\"dim\">%s%s</p>\n", esc(p.Generated), esc(sourcesText(p.Sources)))
	}
	t := rep.Total
	fmt.Fprintf(&b, "<dl class=\"totals\"><div><dt>Runs</dt><dd>%d</dd></div><div><dt>Pass rate</dt><dd>%.1f%%</dd></div>"+
		"<div><dt>Passed / failed / budget / error</dt><dd>%d / %d / %d / %d</dd></div><div><dt>Cost</dt><dd>$%.4f</dd></div>"+
		"<div><dt>Tokens</dt><dd>%s</dd></div><div><dt>Turns per run</dt><dd>%.1f</dd></div><div><dt>Wall per run</dt><dd>%.1f s</dd></div></dl>\n</header>\n<main>\n",
		t.Runs, 100*t.PassRate, t.Passed, t.Failed, t.Budget, t.Error, t.Cost, usage.Thousands(int64(t.Tokens)), t.MeanTurns, t.MeanWall)
	b.WriteString(legend())
	figure(&b, "Cost per task", "The cost of each task's runs, coloured by outcome (the worst of its runs).", costPlot(rep.ByTask))
	caption := "Each run's tokens per turn (input, cache and output of each model response), from its session."
	if len(p.Missing) > 0 {
		caption += fmt.Sprintf(" Not drawn, their session could not be read: %s.", strings.Join(p.Missing, ", "))
	}
	figure(&b, "Tokens over turns", caption, turnsPlot(p.Turns))
	figure(&b, "Outcome by model", "Runs of each model by outcome.", outcomePlot(rep.ByModel))
	table(&b, "By model", "model", rep.ByModel, t, nil)
	table(&b, "By task", "task", rep.ByTask, t, p.Links)
	b.WriteString("</main>\n</body></html>\n")
	return b.Bytes()
}

var esc = html.EscapeString

func sourcesText(src []string) string {
	if len(src) == 0 {
		return ""
	}
	return " · from " + strings.Join(src, ", ")
}

func legend() string {
	var b strings.Builder
	b.WriteString("<p class=\"legend\">")
	for _, o := range outcomeOrder {
		fmt.Fprintf(&b, "<span><i style=\"background:%s\"></i>%s</span>", outcomeColors[o], o)
	}
	b.WriteString("</p>\n")
	return b.String()
}

func figure(b *bytes.Buffer, title, caption, svg string) {
	fmt.Fprintf(b, "<figure><figcaption><h2>%s</h2><p>%s</p></figcaption>\n%s</figure>\n", esc(title), esc(caption), svg)
}

// worst is the outcome a task's bar is coloured by.
func worst(g Group) string {
	switch {
	case g.Error > 0:
		return Error
	case g.Budget > 0:
		return Budget
	case g.Failed > 0:
		return Failed
	}
	return Passed
}

// Plot geometry (SVG user units; the page scales the SVG to its width).
const (
	plotW   = 900.0
	plotH   = 320.0
	marginL = 70.0
	marginR = 20.0
	marginT = 16.0
)

// scale is a y axis from 0 to a round maximum.
type scale struct {
	max, step float64
}

// niceScale rounds v up to 1, 2, 2.5 or 5 × 10^k, in about five steps.
func niceScale(v float64) scale {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return scale{max: 1, step: 0.25}
	}
	raw := v / 5
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * p
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	return scale{max: step * math.Ceil(v/step-1e-9), step: step}
}

// yAxis draws the grid lines and their labels.
func yAxis(b *strings.Builder, s scale, top, bottom float64, label func(float64) string) {
	for v := 0.0; v <= s.max+s.step/2; v += s.step {
		y := bottom - (bottom-top)*v/s.max
		fmt.Fprintf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", marginL, y, plotW-marginR, y)
		fmt.Fprintf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", marginL-6, y+4, esc(label(v)))
	}
}

// svgOpen starts a plot; left widens it leftwards (for slanted labels).
func svgOpen(b *strings.Builder, id string, left, h float64, label string) {
	fmt.Fprintf(b, "<svg id=\"%s\" viewBox=\"%.0f 0 %.0f %.0f\" role=\"img\" aria-label=\"%s\">\n", id, -left, plotW+left, h, esc(label))
}

// empty ends a plot that has nothing to draw.
func empty(b *strings.Builder, h float64) string {
	fmt.Fprintf(b, "<text class=\"none\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no data</text>\n</svg>\n", plotW/2, h/2)
	return b.String()
}

// costPlot is one bar per task.
func costPlot(tasks []Group) string {
	var b strings.Builder
	labels := len(tasks) <= 60
	bottomM, left := 24.0, 0.0
	slot := (plotW - marginL - marginR) / float64(max(len(tasks), 1))
	if labels {
		longest := 0
		for _, g := range tasks {
			longest = max(longest, len([]rune(show.Clip(g.Key, 30))))
		}
		bottomM = 20 + 4.6*float64(longest)
		if len(tasks) > 0 { // the first label slants left of the axis
			left = max(0, 4.6*float64(len([]rune(show.Clip(tasks[0].Key, 30))))-marginL-slot*0.5)
		}
	}
	h := plotH + bottomM - 24
	svgOpen(&b, "cost", left, h, "cost per task")
	bottom := h - bottomM
	if len(tasks) == 0 {
		return empty(&b, h)
	}
	top := 0.0
	for _, g := range tasks {
		top = math.Max(top, g.Cost)
	}
	s := niceScale(top)
	yAxis(&b, s, marginT, bottom, func(v float64) string { return "$" + trimFloat(v) })
	for i, g := range tasks {
		x := marginL + slot*float64(i) + slot*0.1
		hgt := max((bottom-marginT)*g.Cost/s.max, 1.5) // a task that cost nothing shows its colour
		o := worst(g)
		fmt.Fprintf(&b, "<rect class=\"bar %s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>%s: $%.4f, %d run(s), %s</title></rect>\n",
			o, x, bottom-hgt, slot*0.8, hgt, outcomeColors[o], esc(g.Key), g.Cost, g.Runs, outcomeSummary(g))
		if labels {
			cx := x + slot*0.4
			fmt.Fprintf(&b, "<text class=\"label\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" transform=\"rotate(-45 %.2f %.2f)\">%s</text>\n",
				cx, bottom+12, cx, bottom+12, esc(show.Clip(g.Key, 30)))
		}
	}
	fmt.Fprintf(&b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", marginL, bottom, plotW-marginR, bottom)
	b.WriteString("</svg>\n")
	return b.String()
}

func outcomeSummary(g Group) string {
	var parts []string
	for _, o := range outcomeOrder {
		n := map[string]int{Passed: g.Passed, Failed: g.Failed, Budget: g.Budget, Error: g.Error}[o]
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, o))
		}
	}
	return strings.Join(parts, ", ")
}

// turnsPlot is one line per run: tokens at each turn.
func turnsPlot(runs []Turns) string {
	var b strings.Builder
	h := plotH + 20
	svgOpen(&b, "turns", 0, h, "tokens over turns")
	bottom := h - 40
	drawn := runs[:0:0]
	maxTurns, top := 0, 0.0
	for _, r := range runs {
		if len(r.Tokens) == 0 {
			continue
		}
		drawn = append(drawn, r)
		maxTurns = max(maxTurns, len(r.Tokens))
		for _, t := range r.Tokens {
			top = math.Max(top, float64(t))
		}
	}
	if len(drawn) == 0 {
		return empty(&b, h)
	}
	s := niceScale(top)
	yAxis(&b, s, marginT, bottom, func(v float64) string { return show.Tokens(int(v)) })
	span := float64(max(maxTurns-1, 1))
	x := func(turn int) float64 { // turn from 1
		if maxTurns == 1 {
			return (marginL + plotW - marginR) / 2
		}
		return marginL + 10 + (plotW-marginL-marginR-20)*float64(turn-1)/span
	}
	every := max(1, int(math.Ceil(float64(maxTurns)/20)))
	for t := 1; t <= maxTurns; t += every {
		fmt.Fprintf(&b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>", x(t), bottom+16, t)
	}
	fmt.Fprintf(&b, "\n<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">turn</text>\n", (marginL+plotW)/2, bottom+34)
	dots := 0
	for _, r := range drawn {
		dots += len(r.Tokens)
	}
	for _, r := range drawn {
		var pts []string
		for i, t := range r.Tokens {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i+1), bottom-(bottom-marginT)*float64(t)/s.max))
		}
		c := outcomeColors[r.Outcome]
		if c == "" {
			c = outcomeColors[Error]
		}
		fmt.Fprintf(&b, "<g class=\"run\"><title>%s (%s): %d turns, %s tokens at the last</title>", esc(r.ID), esc(r.Outcome), len(r.Tokens), usage.Thousands(r.Tokens[len(r.Tokens)-1]))
		fmt.Fprintf(&b, "<polyline class=\"%s\" points=\"%s\" stroke=\"%s\"/>", esc(r.Outcome), strings.Join(pts, " "), c)
		if dots <= 2000 {
			for _, p := range pts {
				xy := strings.SplitN(p, ",", 2)
				fmt.Fprintf(&b, "<circle cx=\"%s\" cy=\"%s\" r=\"2.5\" fill=\"%s\"/>", xy[0], xy[1], c)
			}
		}
		b.WriteString("</g>\n")
	}
	fmt.Fprintf(&b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", marginL, bottom, plotW-marginR, bottom)
	b.WriteString("</svg>\n")
	return b.String()
}

// outcomePlot is one stacked bar per model: its runs by outcome.
func outcomePlot(models []Group) string {
	var b strings.Builder
	const row, left = 34.0, 250.0
	h := marginT + row*float64(max(len(models), 1)) + 30
	svgOpen(&b, "outcomes", 0, h, "outcome by model")
	if len(models) == 0 {
		return empty(&b, h)
	}
	most := 0
	for _, g := range models {
		most = max(most, g.Runs)
	}
	width := plotW - left - marginR - 60
	for i, g := range models {
		y := marginT + row*float64(i)
		fmt.Fprintf(&b, "<g class=\"model\"><title>%s: %d run(s), %s</title>", esc(g.Key), g.Runs, outcomeSummary(g))
		fmt.Fprintf(&b, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>", left-8, y+row/2+4, esc(show.Clip(g.Key, 40)))
		x := left
		for _, o := range outcomeOrder {
			n := map[string]int{Passed: g.Passed, Failed: g.Failed, Budget: g.Budget, Error: g.Error}[o]
			if n == 0 {
				continue
			}
			w := width * float64(n) / float64(most)
			fmt.Fprintf(&b, "<rect class=\"seg %s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>%s: %d %s</title></rect>",
				o, x, y+4, w, row-8, outcomeColors[o], esc(g.Key), n, o)
			if w >= 18 {
				fmt.Fprintf(&b, "<text class=\"in\" x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>", x+w/2, y+row/2+4, n)
			}
			x += w
		}
		fmt.Fprintf(&b, "<text class=\"tick\" x=\"%.2f\" y=\"%.1f\">%.0f%% passed</text></g>\n", x+6, y+row/2+4, 100*g.PassRate)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func table(b *bytes.Buffer, title, key string, gs []Group, total Group, links map[string]string) {
	fmt.Fprintf(b, "<h2>%s</h2>\n<table><thead><tr><th>%s</th><th>runs</th><th>passed</th><th>failed</th><th>budget</th><th>error</th><th>pass rate</th><th>turns/run</th><th>tokens/run</th><th>cost</th><th>wall/run</th></tr></thead><tbody>\n", esc(title), esc(key))
	row := func(g Group, cls string) {
		name := esc(g.Key)
		if href, ok := links[g.Key]; ok {
			name = fmt.Sprintf(`<a href="%s">%s</a>`, esc(href), name)
		}
		fmt.Fprintf(b, "<tr%s><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%.1f%%</td><td>%.1f</td><td>%s</td><td>$%.4f</td><td>%.1f s</td></tr>\n",
			cls, name, g.Runs, g.Passed, g.Failed, g.Budget, g.Error, 100*g.PassRate, g.MeanTurns, usage.Thousands(int64(math.Round(g.MeanTokens))), g.Cost, g.MeanWall)
	}
	for _, g := range gs {
		row(g, "")
	}
	row(total, " class=\"total\"")
	b.WriteString("</tbody></table>\n")
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.4f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// SortTurns orders runs as the tables order tasks: by id.
func SortTurns(ts []Turns) {
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].ID < ts[j].ID })
}

const reportCSS = `
:root { color-scheme: light; --fg: #1d1d1f; --dim: #6b6b70; --grid: #e4e4e8; --bg: #fff; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header, main { max-width: 960px; margin: 0 auto; padding: 0 24px; }
h1 { font-size: 22px; margin: 24px 0 4px; }
h2 { font-size: 16px; margin: 28px 0 4px; }
.dim, figcaption p { color: var(--dim); margin: 0 0 8px; }
.totals { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 12px 0; }
.totals div { min-width: 90px; }
.totals dt { color: var(--dim); font-size: 12px; }
.totals dd { margin: 0; font-size: 18px; font-variant-numeric: tabular-nums; }
.legend span { margin-right: 16px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 5px; border-radius: 2px; }
figure { margin: 12px 0 20px; }
svg { width: 100%; height: auto; display: block; }
svg .grid { stroke: var(--grid); stroke-width: 1; }
svg .axis { stroke: #9a9aa0; stroke-width: 1; }
svg .tick, svg .label, svg .none { font-size: 11px; fill: var(--dim); }
svg .label { fill: var(--fg); }
svg .in { font-size: 11px; fill: #fff; }
svg polyline { fill: none; stroke-width: 1.5; stroke-opacity: 0.75; }
svg g.run:hover polyline { stroke-width: 3; stroke-opacity: 1; }
svg rect.bar:hover, svg rect.seg:hover { opacity: 0.8; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--grid); text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; white-space: normal; word-break: break-all; }
tr.total td { font-weight: 600; }
`
