package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// The comparison's charts: one curve per configuration over the shared
// axis, in charts.go's style (newPlot, seriesStyle, svgOf), configuration
// i in series i's.

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

// compareCharts are the overlaid curves of a comparison: throughput,
// average and p99 response time, and the host's CPU busy % (when any
// configuration sampled it).
func compareCharts(c analysis.ConfigComparison) ([]chart, error) {
	var out []chart
	defs := []struct {
		title, y, note string
		fig            stepFigure
		rings, pct     bool
	}{
		{"Throughput by " + c.Axis, throughputTitle(c), "one curve per configuration; rings: each one's knee", func(st result.SweepStep) (float64, bool) { return st.Throughput, true }, true, false},
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
	var ticks plotter.XYs
	drawn := 0
	for i, cf := range c.Configs {
		var xys plotter.XYs
		for _, st := range cf.Sweep.Steps {
			if v, ok := fig(st); ok && !math.IsNaN(v) {
				xys = append(xys, plotter.XY{X: st.X, Y: v})
				top, lo, hi = math.Max(top, v), math.Min(lo, st.X), math.Max(hi, st.X)
				if !slices.ContainsFunc(ticks, func(t plotter.XY) bool { return t.X == st.X }) {
					ticks = append(ticks, plotter.XY{X: st.X}) // once: a tick drawn thrice looks bold
				}
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return "", err
		}
		styleLine(&l.LineStyle, i)
		pts.Color, pts.Shape = l.Color, draw.CircleGlyph{}
		p.Add(l, pts)
		p.Legend.Add(cf.Name, l, pts)
		drawn++
		if k, ok := analysis.PrimaryKnee(cf.Sweep); ok && rings {
			st := cf.Sweep.Steps[k.Index]
			if v, ok := fig(st); ok {
				m, err := plotter.NewScatter(plotter.XYs{{X: st.X, Y: v}})
				if err != nil {
					return "", err
				}
				m.Shape, m.Color, m.Radius = draw.RingGlyph{}, l.Color, vg.Points(7)
				p.Add(m)
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
	p.X.Tick.Marker = stepTicks(ticks)
	if lo > 0 && hi/lo >= 8 {
		p.X.Scale = plot.LogScale{}
	}
	return svgOf(chartH, p)
}

// htmlOf marks an SVG drawn by gonum (its text escaped by the canvas) as
// safe to inline.
func htmlOf(svg string) template.HTML { return template.HTML(svg) }
