package report

import (
	"fmt"
	"html/template"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// The comparison's charts: one curve per configuration over the shared
// axis, drawn with charts.go's helpers (newPlot, svgOf, the palette).

// stepFigure is one figure of a sweep step; false when the step has none.
type stepFigure func(st result.SweepStep) (float64, bool)

// compareCharts are the overlaid curves of a comparison: throughput,
// average and p99 response time, and the host's CPU busy % (when any
// configuration sampled it).
func compareCharts(c analysis.ConfigComparison) ([]chart, error) {
	defs := []struct {
		title, y, note string
		fig            stepFigure
		rings, pct     bool
	}{
		{"Throughput by " + c.Axis, "throughput (/s)", "one curve per configuration; rings: each one's knee", func(st result.SweepStep) (float64, bool) { return st.Throughput, true }, true, false},
		{"Average response time by " + c.Axis, "avg response time (ms)", "", func(st result.SweepStep) (float64, bool) { return st.AvgMs, true }, false, false},
		{"p99 response time by " + c.Axis, "p99 response time (ms)", "", func(st result.SweepStep) (float64, bool) { return st.P99Ms, true }, false, false},
		{"Host CPU busy by " + c.Axis, "host CPU busy (%)", "user + system", func(st result.SweepStep) (float64, bool) {
			if st.Host == nil {
				return 0, false
			}
			return st.Host.CPU.User + st.Host.CPU.System, true
		}, false, true},
	}
	var out []chart
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

// configLine is configuration i's line: its colour, and a dash pattern
// once the palette's colours are used up. (The chart styles being
// reworked in charts.go are to replace it: one series style for every
// chart.)
func configLine(i int) draw.LineStyle {
	s := plotter.DefaultLineStyle
	s.Color, s.Width = palette[i%len(palette)], vg.Points(1.5)
	if i >= len(palette) {
		s.Dashes = []vg.Length{vg.Points(5), vg.Points(2 + float64(i/len(palette)))}
	}
	return s
}

// overlayChart draws fig for every configuration's steps against the axis,
// the knees ringed (rings), on a 0-100 % scale (pct); "" when no
// configuration has the figure.
func overlayChart(c analysis.ConfigComparison, title, y string, fig stepFigure, rings, pct bool) (string, error) {
	p := newPlot(title, c.Axis, y)
	top, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	var ticks plotter.XYs
	drawn := 0
	for i, cf := range c.Configs {
		var xys plotter.XYs
		for _, st := range cf.Sweep.Steps {
			if v, ok := fig(st); ok && !math.IsNaN(v) {
				xys = append(xys, plotter.XY{X: st.X, Y: v})
				top, lo, hi = math.Max(top, v), math.Min(lo, st.X), math.Max(hi, st.X)
				ticks = append(ticks, plotter.XY{X: st.X})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return "", err
		}
		style := configLine(i)
		l.LineStyle, pts.Color, pts.Shape = style, style.Color, draw.CircleGlyph{}
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
				m.Shape, m.Color, m.Radius = draw.RingGlyph{}, style.Color, vg.Points(7)
				p.Add(m)
			}
		}
	}
	if drawn == 0 {
		return "", nil
	}
	if top == 0 {
		top = 1
	}
	p.Y.Min, p.Y.Max = 0, 1.3*top // room for the legend
	if pct {
		// A share of the host: 0 to 100 %, the legend under the curves,
		// which a busy host keeps near the top.
		p.Y.Max, p.Legend.Top = 100, false
	}
	p.Legend.Left = true
	if lo > 0 && hi/lo >= 8 {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, stepTicks(ticks)
	} else {
		p.X.Tick.Marker = stepTicks(ticks)
	}
	return svgOf(chartH, p)
}

// htmlOf marks an SVG drawn by gonum (its text escaped by the canvas) as
// safe to inline.
func htmlOf(svg string) template.HTML { return template.HTML(svg) }
