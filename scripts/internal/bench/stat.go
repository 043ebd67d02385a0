package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Stat is a figure over several runs: its median and its spread.
type Stat struct {
	Median, Min, Max float64
	N                int
}

// Summarize is the median (the mean of the two middle values when their
// number is even), minimum and maximum of xs; NaN for none.
func Summarize(xs []float64) Stat {
	if len(xs) == 0 {
		nan := math.NaN()
		return Stat{Median: nan, Min: nan, Max: nan}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return Stat{Median: med, Min: s[0], Max: s[n-1], N: n}
}

// Fmt prints the median and the spread with prec decimals and the unit:
// "12.3 ms [11.0–14.2]"; with one run, only the value; "-" for none.
func (s Stat) Fmt(prec int, unit string) string {
	if s.N == 0 {
		return "-"
	}
	v := fmt.Sprintf("%.*f %s", prec, s.Median, unit)
	if s.N == 1 {
		return v
	}
	return fmt.Sprintf("%s [%.*f–%.*f]", v, prec, s.Min, prec, s.Max)
}

// Ratio is a/b as "2.3x", or "-" when b is not positive or either is NaN.
func Ratio(a, b float64) string {
	if !(b > 0) || math.IsNaN(a) {
		return "-"
	}
	return fmt.Sprintf("%.*fx", ratioPrec(a/b), a/b)
}

// RoundRatios summarizes a[i]/b[i], round by round, over the rounds both
// ran where b[i] is above 0.
func RoundRatios(a, b []float64) Stat {
	var xs []float64
	for i := range min(len(a), len(b)) {
		if b[i] > 0 {
			xs = append(xs, a[i]/b[i])
		}
	}
	return Summarize(xs)
}

// FmtRatio prints a Stat of ratios: the median as Ratio does ("2.3x"),
// then the spread "[2.1–2.6]" when there were several; "-" for none.
func (s Stat) FmtRatio() string {
	if s.N == 0 {
		return "-"
	}
	v := Ratio(s.Median, 1)
	if s.N == 1 {
		return v
	}
	return fmt.Sprintf("%s [%.*f–%.*f]", v, ratioPrec(s.Min), s.Min, ratioPrec(s.Max), s.Max)
}

func ratioPrec(r float64) int {
	switch {
	case r >= 100:
		return 0
	case r >= 1:
		return 1
	case r >= 0.1:
		return 2
	}
	return 3
}

// Table is rows of cells printed in columns as wide as their widest cell,
// two spaces apart. A Note is a line of its own between rows.
type Table struct {
	rows [][]string
}

// Row adds a row of cells.
func (t *Table) Row(cells ...string) { t.rows = append(t.rows, cells) }

// Note adds a line printed as it is, outside the columns.
func (t *Table) Note(line string) { t.rows = append(t.rows, []string{"\x00" + line}) }

// String is the table, one line per row, trailing spaces trimmed.
func (t *Table) String() string {
	var width []int
	for _, r := range t.rows {
		if isNote(r) {
			continue
		}
		for i, c := range r {
			if i == len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		if isNote(r) {
			b.WriteString(r[0][1:] + "\n")
			continue
		}
		var line strings.Builder
		for i, c := range r {
			line.WriteString(c)
			if i+1 < len(r) {
				line.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}

func isNote(r []string) bool { return len(r) == 1 && strings.HasPrefix(r[0], "\x00") }
