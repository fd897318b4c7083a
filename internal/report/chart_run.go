package report

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/report/svgchart"
	"github.com/rightsize/rightsize/internal/result"
)

// A run's charts: its per-interval series over time, and the percentile
// charts of its operations.

// timelineChart is a run's per-interval throughput and p99 over time, the
// warm-up shaded.
func timelineChart(r *result.Run, title string) (string, error) {
	var rate, p99 []svgchart.XY
	warmEnd := 0.0
	for _, iv := range r.Intervals {
		t := iv.EndS
		if iv.Phase == "warmup" {
			warmEnd = t
		}
		rate = append(rate, svgchart.XY{X: t, Y: iv.Rate})
		p99 = append(p99, svgchart.XY{X: t, Y: iv.Latency.P99Ms})
	}
	if len(rate) == 0 {
		return "", nil
	}
	mk := func(title, y string, xys []svgchart.XY, col color.Color, name string) *svgchart.Plot {
		p := newPlot(title, "time since the start (s)", y)
		ymax := 0.0
		for _, v := range xys {
			ymax = math.Max(ymax, v.Y)
		}
		l := svgchart.Line{XYs: xys, Color: col, Width: 1.5}
		p.AddLegend(name, l)
		if warmEnd > 0 && ymax > 0 {
			band := svgchart.Band{X0: 0, X1: warmEnd, Y0: 0, Y1: ymax * 1.05, Color: colWarm}
			p.Add(band)
			p.AddLegend("warm-up", band)
		}
		p.Add(l)
		p.Y.Min = 0
		return p
	}
	unit := r.Event + "/s" // transaction/s, io/s, event/s: no plural to guess
	if r.Event == "" {
		unit = "events/s"
	}
	top := mk(title, "throughput ("+unit+")", rate, colAvg, "throughput")
	bottom := mk("", "p99 response time (ms)", p99, colP99, "p99")
	return svgOf(chartH*1.4, top, bottom)
}

// maxSeries is the most lines a percentile chart holds: more are split
// over several charts (see groupOps).
const maxSeries = 6

// opGroup is the operations of one percentile chart: the event (when the
// run has one) and up to maxSeries-1 operations of one kind.
type opGroup struct {
	Kind string // "" when the run's operations fit in one chart
	Ops  []result.Op
}

// groupOps splits a run's operations (those with a histogram) into
// percentile charts of at most maxSeries lines: all in one chart when they
// fit (TPC-C's event and five transactions), else one chart per kind
// (reads, writes, other), in the order the kinds first appear, a kind with
// more than maxSeries-1 operations in balanced chunks; each chart repeats
// the event's line as the reference.
func groupOps(ops []result.Op) []opGroup {
	var event []result.Op
	var kinds []string
	byKind := map[string][]result.Op{}
	n := 0
	for _, op := range ops {
		if op.Histogram == "" || op.Count == 0 {
			continue
		}
		n++
		if op.Kind == "event" && len(event) == 0 {
			event = append(event, op)
			continue
		}
		if _, ok := byKind[op.Kind]; !ok {
			kinds = append(kinds, op.Kind)
		}
		byKind[op.Kind] = append(byKind[op.Kind], op)
	}
	if n == 0 {
		return nil
	}
	if n <= maxSeries {
		var all []result.Op
		for _, op := range ops {
			if op.Histogram != "" && op.Count > 0 {
				all = append(all, op)
			}
		}
		return []opGroup{{Ops: all}}
	}
	sort.SliceStable(kinds, func(i, j int) bool { return kindRank(kinds[i]) < kindRank(kinds[j]) })
	room := maxSeries - len(event)
	var gs []opGroup
	for _, k := range kinds {
		kops := byKind[k]
		chunks := (len(kops) + room - 1) / room
		size := (len(kops) + chunks - 1) / chunks
		for i := 0; i < len(kops); i += size {
			g := opGroup{Kind: k, Ops: append(append([]result.Op(nil), event...), kops[i:min(i+size, len(kops))]...)}
			gs = append(gs, g)
		}
	}
	return gs
}

// kindRank orders the percentile charts: reads, writes, then the rest.
func kindRank(kind string) int {
	switch kind {
	case "read":
		return 0
	case "write":
		return 1
	}
	return 2
}

// kindTitle names a group of operations in a chart's title.
func kindTitle(kind string) string {
	switch kind {
	case "read":
		return "reads"
	case "write":
		return "writes"
	case "other", "":
		return "other statements"
	case "transaction":
		return "transactions"
	}
	return kind
}

// percentileCharts are each operation's latency distribution: latency
// against percentile on a "nines" axis (50, 90, 99, 99.9, ...), both
// logarithmic, from the operations' HDR histograms; several charts when the
// operations are many (groupOps). The titles say which group each shows.
func percentileCharts(r *result.Run) (titles, svgs []string, err error) {
	for _, g := range groupOps(r.Ops) {
		title := "Latency by percentile, per operation"
		if g.Kind != "" {
			title += ": " + kindTitle(g.Kind)
		}
		svg, err := opPercentileChart(title, g.Ops)
		if err != nil {
			return nil, nil, err
		}
		if svg != "" {
			titles, svgs = append(titles, g.Kind), append(svgs, svg)
		}
	}
	return titles, svgs, nil
}

// percentileChart is every percentile chart of a run (percentileCharts),
// their SVGs one after the other.
func percentileChart(r *result.Run) (string, error) {
	_, svgs, err := percentileCharts(r)
	return strings.Join(svgs, "\n"), err
}

// opPercentileChart is one percentile chart of the given operations.
func opPercentileChart(title string, ops []result.Op) (string, error) {
	p := newPlot(title, "percentile (%)", "response time (ms)")
	p.Y.Log, p.Y.Ticker = true, logTicks{}
	p.X.Ticker = ninesTicks{}
	n := 0
	for _, op := range ops {
		h, err := hist.FromSnapshot(op.Histogram)
		if err != nil {
			return "", fmt.Errorf("operation %s: %w", op.Name, err)
		}
		var xys []svgchart.XY
		for _, q := range nines {
			v := float64(h.Quantile(q)) / 1e6
			if v <= 0 {
				continue
			}
			xys = append(xys, svgchart.XY{X: -math.Log10(1 - q), Y: v})
		}
		if len(xys) < 2 {
			continue
		}
		l := lineOf(xys, n)
		p.Add(l)
		p.AddLegend(op.Name, l)
		n++
	}
	if n == 0 {
		return "", nil
	}
	return svgOf(chartH, p)
}

var nines = []float64{0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999}

// ninesTicks labels the -log10(1-q) axis with percentiles.
type ninesTicks struct{}

func (ninesTicks) Ticks(min, max float64) []svgchart.Tick {
	var ts []svgchart.Tick
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999, 0.9999} {
		x := -math.Log10(1 - q)
		if x >= min-1e-9 && x <= max+1e-9 {
			ts = append(ts, svgchart.Tick{Value: x, Label: strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", 100*q), "0"), ".")})
		}
	}
	return ts
}
