package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/report/svgchart"
	"github.com/rightsize/rightsize/internal/result"
)

// The comparison's charts: the grouped bars (each configuration's average
// response time at the steps all share, the host's CPU under them), then
// one curve per configuration over the shared axis; all in chart.go's
// style (newPlot, seriesStyle, svgOf), configuration i in series i's.

// stepFigure is one figure of a sweep step; false when the step has none.
type stepFigure func(st result.SweepStep) (float64, bool)

// hostBusy is a step's host CPU busy % (user + system); false when the
// host was not sampled.
func hostBusy(st result.SweepStep) (float64, bool) {
	if st.Host == nil {
		return 0, false
	}
	return st.Host.CPU.User + st.Host.CPU.System, true
}

// compareCharts are the charts of a comparison: the grouped bars
// (groupedChart), then the overlaid curves of throughput, average and p99
// response time, and the host's CPU busy % (when any configuration
// sampled it).
func compareCharts(c analysis.ConfigComparison) ([]chart, error) {
	var out []chart
	g, err := groupedChart(c)
	if err != nil {
		return nil, fmt.Errorf("chart %q: %w", g.Title, err)
	}
	if g.SVG != "" {
		out = append(out, g)
	}
	tpNote := "one curve per configuration; rings: each one's knee"
	if ownSteps(c) {
		tpNote = "one curve per configuration (the steps vary the work: no knee)"
	}
	defs := []struct {
		title, y, note string
		fig            stepFigure
		rings, pct     bool
	}{
		{"Throughput by " + c.Axis, throughputTitle(c), tpNote, func(st result.SweepStep) (float64, bool) { return st.Throughput, true }, true, false},
		{"Average response time by " + c.Axis, "avg response time (ms)", "", func(st result.SweepStep) (float64, bool) { return st.AvgMs, true }, false, false},
		{"p99 response time by " + c.Axis, "p99 response time (ms)", "", func(st result.SweepStep) (float64, bool) { return st.P99Ms, true }, false, false},
		{"Host CPU busy by " + c.Axis, "host CPU busy (%)", "user + system", hostBusy, false, true},
	}
	for _, d := range defs {
		svg, err := overlayChart(c, d.title, d.y, d.fig, d.rings, d.pct)
		if err != nil {
			return nil, fmt.Errorf("chart %q: %w", d.title, err)
		}
		if svg != "" {
			out = append(out, chart{Title: d.title, Note: d.note, SVG: htmlOf(svg)})
		}
	}
	return out, nil
}

// throughputTitle is the throughput axis' label: in the configurations'
// event per second when all their results name the same event
// ("throughput (transaction/s)"), else "throughput (/s)".
func throughputTitle(c analysis.ConfigComparison) string {
	event := ""
	for _, cf := range c.Configs {
		for _, r := range cf.Runs {
			if r.Event == "" || (event != "" && r.Event != event) {
				return "throughput (/s)"
			}
			event = r.Event
		}
	}
	if event == "" {
		return "throughput (/s)"
	}
	return "throughput (" + event + "/s)"
}

// overlayChart draws fig for every configuration's steps against the axis,
// the knees ringed (rings), on a 0-100 % scale (pct); "" when no
// configuration has the figure. The x axis is ticked at the steps,
// logarithmic when they span a factor of 8 or more (doubling steps).
func overlayChart(c analysis.ConfigComparison, title, y string, fig stepFigure, rings, pct bool) (string, error) {
	p := newPlot(title, axisTitle(c.Configs[0].Sweep), y)
	top, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	var ticks stepTicks
	drawn := 0
	for i, cf := range c.Configs {
		var xys []svgchart.XY
		for _, st := range cf.Sweep.Steps {
			if v, ok := fig(st); ok && !math.IsNaN(v) {
				xys = append(xys, svgchart.XY{X: st.X, Y: v})
				top, lo, hi = math.Max(top, v), math.Min(lo, st.X), math.Max(hi, st.X)
				if !slices.ContainsFunc(ticks, func(t svgchart.XY) bool { return t.X == st.X }) {
					ticks = append(ticks, svgchart.XY{X: st.X}) // once: a tick drawn thrice looks bold
				}
			}
		}
		if len(xys) == 0 {
			continue
		}
		l := lineOf(xys, i)
		l.Marker = svgchart.Glyph{Shape: svgchart.Circle, Color: l.Color}
		p.Add(l)
		p.AddLegend(cf.Name, l)
		drawn++
		if k, ok := analysis.PrimaryKnee(cf.Sweep); ok && rings {
			st := cf.Sweep.Steps[k.Index]
			if v, ok := fig(st); ok {
				p.Add(svgchart.Points{XYs: []svgchart.XY{{X: st.X, Y: v}}, Glyph: svgchart.Glyph{Shape: svgchart.Ring, Color: l.Color, Radius: 7}})
			}
		}
	}
	if drawn == 0 {
		return "", nil
	}
	p.Y.Min = 0
	switch {
	case pct:
		p.Y.Max = 100 // a share of the host
	case top == 0:
		p.Y.Max = 1
	}
	p.X.Ticker = ticks
	if lo > 0 && hi/lo >= 8 {
		p.X.Log = true
	}
	return svgOf(chartH, p)
}

// groupedChart is the comparison's first chart, responseCPUChart's with
// one bar per configuration: at each step every configuration ran
// (c.Common, labelled as the first configuration's sweep labels it), each
// configuration's average response time as a bar, the step's bars side by
// side and centred on it; under it, aligned on the same steps, the host's
// CPU busy % (user + system), one line per configuration, 0 to 100 %.
// The legend names the configurations. Configuration i has series i's
// colour (seriesStyle): past eight, its bars are the colour lightened and
// outlined in it, its line dashed, so nine to sixteen configurations stay
// apart from the first eight; past sixteen the bars' look repeats (the
// lines' dashes still differ). Bars narrow as they multiply (barWidth).
// Without host samples, the bars alone. The chart's SVG is empty when
// there is no common step.
func groupedChart(c analysis.ConfigComparison) (chart, error) {
	g := chart{Title: "Average response time by " + c.Axis, Note: "one bar per configuration, at the steps all of them ran"}
	n, k := len(c.Common), len(c.Configs)
	if n == 0 || k == 0 {
		return g, nil
	}
	sw := c.Configs[0].Sweep
	labels := make([]string, n)
	for i, x := range c.Common {
		labels[i] = fmt.Sprintf("%g", x)
		if s := stepIndex(sw, x); s >= 0 {
			labels[i] = axisLabel(sw, s)
		}
	}
	axis := axisTitle(sw)
	bars := newPlot("", axis, "avg response time (ms)")
	cpu := newPlot("", axis, "host CPU busy (%)")
	w := barWidth(n, k)
	hosts := false
	var avgs [][]float64
	for j, cf := range c.Configs {
		avg := make([]float64, n)
		var busy []svgchart.XY
		for i, x := range c.Common {
			s := stepIndex(cf.Sweep, x)
			if s < 0 {
				continue // not common after all: no bar
			}
			st := cf.Sweep.Steps[s]
			if v := st.AvgMs; v > 0 && !math.IsInf(v, 0) {
				avg[i] = v // 0 (no figure) draws no bar
			}
			if v, ok := hostBusy(st); ok {
				busy = append(busy, svgchart.XY{X: float64(i), Y: v})
			}
		}
		avgs = append(avgs, avg)
		col, _ := seriesStyle(j)
		b := svgchart.Bars{Values: avg, Color: col, Width: w, Offset: w * (float64(j) - float64(k-1)/2)}
		if j >= len(palette) {
			b.Color, b.Stroke, b.StrokeWidth = lighter(col), col, 0.75
		}
		bars.Add(b)
		thumbs := []svgchart.Item{b}
		if len(busy) > 0 {
			l := lineOf(busy, j)
			l.Marker = svgchart.Glyph{Shape: svgchart.Ring, Color: l.Color}
			cpu.Add(l)
			thumbs = append(thumbs, l)
			hosts = true
		}
		bars.AddLegend(cf.Name, thumbs...)
	}
	bars.Y.Min, bars.Y.Max = 0, 1.05*maxOf(avgs...)
	cpu.Y.Min, cpu.Y.Max = 0, 100
	for _, p := range []*svgchart.Plot{bars, cpu} {
		// The same categories in both plots, so that their steps align.
		p.X.Nominal(labels...)
	}
	plots, h := []*svgchart.Plot{bars}, chartH
	if hosts {
		g.Title = "Average response time (bars) and host CPU busy (lines) by " + c.Axis
		g.Note = "bars: each configuration's average response time, at the steps all of them ran; lines: the host's CPU, user + system"
		plots, h = append(plots, cpu), chartH*1.6
	}
	bars.Title = g.Title
	svg, err := svgOf(h, plots...)
	g.SVG = htmlOf(svg)
	return g, err
}

// stepIndex is the index of sw's step at axis value x; -1 when it has none.
func stepIndex(sw *analysis.Result, x float64) int {
	return slices.IndexFunc(sw.Steps, func(st result.SweepStep) bool { return st.X == x })
}

// barWidth is the width of one bar of n groups of k: about 380 pt of bars
// across the plot (about 70 % of its width), at most 18 pt, at least 1.
func barWidth(n, k int) float64 {
	return math.Max(1, math.Min(18, 380/float64(n*k)))
}

// lighter is c mixed half and half with white: the fill of the bars whose
// colour an earlier series already has.
func lighter(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8((v>>8 + 0xff) / 2) }
	return color.RGBA{R: mix(r), G: mix(g), B: mix(b), A: 0xff}
}
