package report

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// The sweep's charts: response time and host CPU by step, and throughput
// against the swept load with the USL fit and the knee.

// responseCPUChart is the first seed's chart: the average and p99 response
// time as bars per step, and under it the host's CPU (user, system,
// iowait, steal) as lines, over the sweep's axis; "" (no chart) when the
// sweep has no steps.
func responseCPUChart(sw *analysis.Result) (string, error) {
	n := len(sw.Steps)
	avg, p99 := make(plotter.Values, n), make(plotter.Values, n)
	for i, st := range sw.Steps {
		avg[i], p99[i] = st.AvgMs, st.P99Ms
	}
	return barsCPUChart(sw, "Response time and host CPU by step", []barSeries{{"avg", colAvg, avg}, {"p99", colP99, p99}})
}

// barSeries is one series of bars: a value per step.
type barSeries struct {
	name string
	col  color.Color
	vals plotter.Values
}

// typesCPUChart is each transaction type's p95 response time by step as
// bars, the frequent types only (result.Type.Frequent in some step), over
// the host's CPU as lines: the first study's chart of the components that
// make up most of the mix. "" when the steps have fewer than two types.
func typesCPUChart(sw *analysis.Result) (string, error) {
	var names []string
	seen := map[string]bool{}
	for _, st := range sw.Steps {
		for _, ty := range st.Types {
			if ty.Frequent && !seen[ty.Name] {
				seen[ty.Name] = true
				names = append(names, ty.Name)
			}
		}
	}
	if len(names) < 2 {
		return "", nil
	}
	var series []barSeries
	for k, name := range names {
		vals := make(plotter.Values, len(sw.Steps))
		for i, st := range sw.Steps {
			for _, ty := range st.Types {
				if ty.Name == name {
					vals[i] = ty.P95Ms
				}
			}
		}
		col, _ := seriesStyle(k)
		series = append(series, barSeries{name + " p95", col, vals})
	}
	return barsCPUChart(sw, "Response time of the frequent transaction types and host CPU by step", series)
}

// barsCPUChart draws series of bars by step (response times, ms) above the
// host's CPU user/system/iowait/steal as lines, when some step has them;
// "" when the sweep has no steps.
func barsCPUChart(sw *analysis.Result, title string, series []barSeries) (string, error) {
	return stepBarsCPU(sw, title, "response time (ms)", series, false)
}

// stepBarsCPU draws series of bars by step, side by side or stacked, above
// the host's CPU as lines (cpuPlot); "" when the sweep has no steps.
func stepBarsCPU(sw *analysis.Result, title, yTitle string, series []barSeries, stacked bool) (string, error) {
	n := len(sw.Steps)
	if n == 0 || len(series) == 0 {
		return "", nil // gonum refuses a bar chart of no values
	}
	labels := make([]string, n)
	for i := range sw.Steps {
		labels[i] = axisLabel(sw, i)
	}
	axis := axisTitle(sw)
	top := newPlot(title, axis, yTitle)
	w := vg.Points(math.Max(4, math.Min(18, 180/float64(n))) * 2 / float64(len(series)))
	if stacked {
		w = vg.Points(math.Max(8, math.Min(36, 360/float64(n))))
	}
	var all []plotter.Values
	var below *plotter.BarChart
	total := make(plotter.Values, n)
	for k, sr := range series {
		b, err := plotter.NewBarChart(sr.vals, w)
		if err != nil {
			return "", err
		}
		b.Color, b.LineStyle.Width = sr.col, 0
		if stacked {
			if below != nil {
				b.StackOn(below)
			}
			below = b
			for i, v := range sr.vals {
				total[i] += v
			}
		} else {
			b.Offset = w * (vg.Length(k) - vg.Length(len(series)-1)/2)
		}
		top.Add(b)
		top.Legend.Add(sr.name, b)
		all = append(all, sr.vals)
	}
	if stacked {
		all = []plotter.Values{total}
	}
	top.Y.Min, top.Y.Max = 0, 1.05*maxOf(all...)
	top.NominalX(labels...)
	cpu, have, err := cpuPlot(sw, axis, labels)
	if err != nil {
		return "", err
	}
	if !have {
		return svgOf(chartH, top)
	}
	return svgOf(chartH*1.6, top, cpu)
}

// cpuPlot is the host's CPU user/system/iowait/steal by step as lines;
// false when no step has host figures.
func cpuPlot(sw *analysis.Result, axis string, labels []string) (*plot.Plot, bool, error) {
	cpu := newPlot("", axis, "host CPU (%)")
	cpu.Y.Min, cpu.Y.Max = 0, 100
	have := false
	for _, s := range []struct {
		name string
		col  color.Color
		get  func(h *result.Host) float64
	}{
		{"user", colUser, func(h *result.Host) float64 { return h.CPU.User }},
		{"system", colSys, func(h *result.Host) float64 { return h.CPU.System }},
		{"iowait", colIowait, func(h *result.Host) float64 { return h.CPU.Iowait }},
		{"steal", colSteal, func(h *result.Host) float64 { return h.CPU.Steal }},
	} {
		var xys plotter.XYs
		for i, st := range sw.Steps {
			if st.Host != nil {
				xys = append(xys, plotter.XY{X: float64(i), Y: s.get(st.Host)})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, false, err
		}
		l.Color, pts.Color, l.Width = s.col, s.col, vg.Points(1.5)
		cpu.Add(l, pts)
		cpu.Legend.Add(s.name, l, pts)
		have = true
	}
	cpu.NominalX(labels...)
	return cpu, have, nil
}

// ashChart is the database's average active sessions by step, stacked by
// wait class (the Active Session History picture), over the host's CPU;
// "" when no step has server figures.
func ashChart(sw *analysis.Result) (string, error) {
	byClass := map[string]plotter.Values{}
	have := false
	for i, st := range sw.Steps {
		for _, c := range analysis.WaitClassesOf(st.ServerStats) {
			if byClass[c.Name] == nil {
				byClass[c.Name] = make(plotter.Values, len(sw.Steps))
			}
			byClass[c.Name][i] = c.AvgActive
			have = true
		}
	}
	if !have {
		return "", nil
	}
	var series []barSeries
	for k, c := range analysis.WaitClasses {
		if vals := byClass[c]; vals != nil {
			col, _ := seriesStyle(k)
			series = append(series, barSeries{c, col, vals})
		}
	}
	return stepBarsCPU(sw, "Database's average active sessions by wait class and host CPU by step", "average active sessions", series, true)
}

// axisTitle names a sweep's axis with its unit, for a chart's axis label.
func axisTitle(sw *analysis.Result) string {
	switch sw.Axis {
	case "threads":
		return "threads (virtual users per instance)"
	case "instances":
		return "instances (databases driven at once)"
	case "rate":
		for _, st := range sw.Steps {
			if strings.Contains(st.Label, "x") {
				return "rate (multiple of the baseline)"
			}
		}
		return "rate (events/s)"
	}
	return sw.Axis
}

func axisLabel(sw *analysis.Result, i int) string {
	st := sw.Steps[i]
	switch sw.Axis {
	case "threads", "instances":
		return fmt.Sprintf("%g", st.X)
	case "rate":
		if strings.Contains(st.Label, "x") {
			return fmt.Sprintf("%gx", st.X)
		}
		return fmt.Sprintf("%g/s", st.X)
	}
	return st.Label
}

// throughputChart is throughput against the swept concurrency with the
// fitted USL curve and the knee marked; "" (no chart) when the sweep has
// no steps.
func throughputChart(sw *analysis.Result) (string, error) {
	p := newPlot("Throughput by "+sw.Axis, axisTitle(sw), "throughput (events/s)")
	var xys plotter.XYs
	for _, st := range sw.Steps {
		xys = append(xys, plotter.XY{X: st.X, Y: st.Throughput})
	}
	if len(xys) == 0 {
		return "", nil
	}
	l, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return "", err
	}
	l.Color, pts.Color, l.Width = colAvg, colAvg, vg.Points(1.5)
	pts.Shape = draw.CircleGlyph{}
	p.Add(l, pts)
	p.Legend.Add("measured", l, pts)
	if u := sw.USL; u != nil && !math.IsNaN(u.Lambda) {
		lo, hi := xys[0].X, xys[len(xys)-1].X
		var curve plotter.XYs
		for k := 0; k <= 100; k++ {
			x := lo + (hi-lo)*float64(k)/100
			curve = append(curve, plotter.XY{X: x, Y: u.Predict(x)})
		}
		c, err := plotter.NewLine(curve)
		if err != nil {
			return "", err
		}
		c.Color, c.Dashes = colP99, []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(c)
		p.Legend.Add(fmt.Sprintf("USL fit (σ %.3f, κ %.4f)", u.Sigma, u.Kappa), c)
	}
	if k, ok := analysis.PrimaryKnee(sw); ok {
		// The sweep's knee, the one the headline and verdict name.
		st := sw.Steps[k.Index]
		m, err := plotter.NewScatter(plotter.XYs{{X: st.X, Y: st.Throughput}})
		if err != nil {
			return "", err
		}
		m.Shape, m.Color, m.Radius = draw.RingGlyph{}, colSys, vg.Points(7)
		p.Add(m)
		p.Legend.Add(fmt.Sprintf("knee (%s): %g", k.Method, st.X), m)
	}
	p.Y.Min = 0
	if lo, hi := xys[0].X, xys[len(xys)-1].X; lo > 0 && hi/lo >= 8 {
		// Doubling steps (1, 2, 4, ... 64) spread evenly on a log axis.
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, stepTicks(xys)
	}
	return svgOf(chartH, p)
}

// stepTicks labels an axis at the steps' own values.
type stepTicks plotter.XYs

func (s stepTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for _, v := range s {
		if v.X >= min && v.X <= max {
			ts = append(ts, plot.Tick{Value: v.X, Label: tickLabel(v.X, 1e-9)})
		}
	}
	return ts
}
