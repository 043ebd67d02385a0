package batch

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable writes a report as aligned text: a row per model, then (with
// byTask) a row per task, then the total; agent-session stats and
// agent-batch's summary print it.
func WriteTable(w io.Writer, rep Report, byTask bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(g Group) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%.1f%%\t%.1f\t%.0f\t$%.4f\t%.1fs\t\n", g.Key, g.Runs, g.Passed, g.Failed, g.Budget, g.Error,
			100*g.PassRate, g.MeanTurns, g.MeanTokens, g.Cost, g.MeanWall)
	}
	section := func(title string, gs []Group) {
		fmt.Fprintf(tw, "%s\truns\tpassed\tfailed\tbudget\terror\tpass rate\tturns/run\ttokens/run\tcost\twall/run\t\n", title)
		for _, g := range gs {
			row(g)
		}
		fmt.Fprintf(tw, "\t\t\t\t\t\t\t\t\t\t\t\n")
	}
	section("model", rep.ByModel)
	if byTask {
		section("task", rep.ByTask)
	}
	row(rep.Total)
	return tw.Flush()
}
