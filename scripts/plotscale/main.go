// Command plotscale draws scripts/bench-scale's results as an SVG: time per
// turn (wall, log scale) against session size (entries, log scale), one line
// per series (a pi series dashed, a -cpu one dotted). Input (stdin):
// lines "entries series ms", e.g.
// "100000 ours-steady 412"; output: the SVG on stdout.
//
//	go run ./scripts/plotscale < results.tsv > docs/scale.svg
package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

type point struct{ x, y float64 }

func main() {
	series := map[string][]point{}
	var order []string
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			continue
		}
		x, err1 := strconv.ParseFloat(f[0], 64)
		y, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || x <= 0 || y <= 0 {
			continue
		}
		if _, ok := series[f[1]]; !ok {
			order = append(order, f[1])
		}
		series[f[1]] = append(series[f[1]], point{x, y})
	}
	if len(order) == 0 {
		fmt.Fprintln(os.Stderr, "plotscale: no data on stdin")
		os.Exit(2)
	}
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, ps := range series {
		sort.Slice(ps, func(i, j int) bool { return ps[i].x < ps[j].x })
		for _, p := range ps {
			minX, maxX = math.Min(minX, p.x), math.Max(maxX, p.x)
			minY, maxY = math.Min(minY, p.y), math.Max(maxY, p.y)
		}
	}
	// decades that hold every point
	lx0, lx1 := math.Floor(math.Log10(minX)), math.Ceil(math.Log10(maxX))
	ly0, ly1 := math.Floor(math.Log10(minY)), math.Ceil(math.Log10(maxY))
	if lx1 == lx0 {
		lx1++
	}
	if ly1 == ly0 {
		ly1++
	}
	const W, H, left, right, top, bottom = 760, 440, 70, 200, 40, 50
	px := func(x float64) float64 { return left + (math.Log10(x)-lx0)/(lx1-lx0)*(W-left-right) }
	py := func(y float64) float64 { return H - bottom - (math.Log10(y)-ly0)/(ly1-ly0)*(H-top-bottom) }
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(w, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(w, `<text x="%d" y="22" font-size="14">Time per turn against session size (medians; wall, and CPU where -cpu; log-log)</text>`+"\n", left)
	for d := lx0; d <= lx1; d++ {
		x := px(math.Pow(10, d))
		fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n",
			x, top, x, H-bottom, x, H-bottom+18, human(math.Pow(10, d)))
	}
	for d := ly0; d <= ly1; d++ {
		y := py(math.Pow(10, d))
		fmt.Fprintf(w, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
			left, y, W-right, y, left-6, y+4, ms(math.Pow(10, d)))
	}
	fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="middle">session entries</text>`+"\n", (left+W-right)/2, H-12)
	fmt.Fprintf(w, `<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">time per turn</text>`+"\n", (top+H-bottom)/2, (top+H-bottom)/2)
	colors := []string{"#1f77b4", "#2ca02c", "#d62728", "#ff7f0e", "#9467bd", "#8c564b"}
	for k, name := range order {
		c := colors[k%len(colors)]
		dash := ""
		switch {
		case strings.HasSuffix(name, "-cpu"):
			dash = ` stroke-dasharray="2 3"`
		case strings.HasPrefix(name, "pi"):
			dash = ` stroke-dasharray="6 4"`
		}
		var pts []string
		for _, p := range series[name] {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p.x), py(p.y)))
		}
		fmt.Fprintf(w, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", c, dash, strings.Join(pts, " "))
		for _, p := range series[name] {
			fmt.Fprintf(w, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s %s: %s</title></circle>`+"\n", px(p.x), py(p.y), c, name, human(p.x), ms(p.y))
		}
		ly := top + 10 + 20*k
		fmt.Fprintf(w, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/><text x="%d" y="%d">%s</text>`+"\n",
			W-right+12, ly, W-right+36, ly, c, dash, W-right+42, ly+4, name)
	}
	fmt.Fprintln(w, `</svg>`)
}

func human(x float64) string {
	switch {
	case x >= 1e6:
		return strconv.FormatFloat(x/1e6, 'g', 3, 64) + "M"
	case x >= 1e3:
		return strconv.FormatFloat(x/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

func ms(y float64) string {
	if y >= 1000 {
		return strconv.FormatFloat(y/1000, 'g', 3, 64) + " s"
	}
	return strconv.FormatFloat(y, 'g', 3, 64) + " ms"
}
