package report

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/rightsize/rightsize/internal/analysis"
)

// WriteComparison writes a comparison as a table: metric, baseline,
// candidate, change, 95 % interval, verdict; then the overall verdict and
// the notes. The baseline and candidate are each side's own figures (a
// run's percentiles from its merged histogram); with the intervals basis
// the interval is of the change in the per-interval means, shown beside it
// (INTERVAL CHANGE), which is not the change of the runs' figures.
func WriteComparison(w io.Writer, c analysis.Comparison) error {
	byIntervals := c.Basis != analysis.BasisRuns
	if byIntervals {
		fmt.Fprintf(w, "figures: each side's own (throughput over its measured window, percentiles from its merged histogram)\n")
		fmt.Fprintf(w, "95%% intervals: bootstrap over the runs' measured report intervals, of the change in the per-interval means (INTERVAL CHANGE), %d rounds, seed %d\n\n", c.Rounds, c.Seed)
	} else {
		fmt.Fprintf(w, "figures: the mean of each side's runs' own figures (a run's percentiles from its merged histogram)\n")
		fmt.Fprintf(w, "95%% intervals: bootstrap over runs (%d baseline, %d candidate), %d rounds, seed %d\n\n", c.BaseRuns, c.CandRuns, c.Rounds, c.Seed)
	}
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
	head := "METRIC\tBASELINE\tCANDIDATE\tCHANGE\t"
	if byIntervals {
		head += "INTERVAL CHANGE\t"
	}
	fmt.Fprintf(tw, "%s95%% CI\tVERDICT\n", head)
	for _, m := range c.Metrics {
		name := m.Name + " ms"
		if m.HigherIsBetter {
			name = m.Name + " /s"
		}
		ci := "-"
		if !math.IsNaN(m.CILowPct) {
			ci = fmt.Sprintf("%s to %s", signedPct(m.CILowPct), signedPct(m.CIHighPct))
		}
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t", name, num2(m.Base), num2(m.Cand), signedPct(m.ChangePct))
		if byIntervals {
			row += signedPct(m.SampleChangePct) + "\t"
		}
		fmt.Fprintf(tw, "%s%s\t%s\n", row, ci, m.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\noverall: %s (%s; lower latency is faster)\n", c.Verdict, c.Reason)
	for _, n := range c.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

func signedPct(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", x)
}
