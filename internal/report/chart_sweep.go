package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/report/svgchart"
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
	avg, p99 := make([]float64, n), make([]float64, n)
	for i, st := range sw.Steps {
		avg[i], p99[i] = st.AvgMs, st.P99Ms
	}
	return barsCPUChart(sw, "Response time and host CPU by step", []barSeries{{"avg", colAvg, avg}, {"p99", colP99, p99}})
}

// barSeries is one series of bars: a value per step.
type barSeries struct {
	name string
	col  color.Color
	vals []float64
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
		vals := make([]float64, len(sw.Steps))
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
		return "", nil
	}
	labels := make([]string, n)
	for i := range sw.Steps {
		labels[i] = axisLabel(sw, i)
	}
	axis := axisTitle(sw)
	top := newPlot(title, axis, yTitle)
	w := math.Max(4, math.Min(18, 180/float64(n))) * 2 / float64(len(series))
	if stacked {
		w = math.Max(8, math.Min(36, 360/float64(n)))
	}
	var all [][]float64
	total := make([]float64, n)
	for k, sr := range series {
		b := svgchart.Bars{Values: sr.vals, Color: sr.col, Width: w}
		if stacked {
			b.Base = slices.Clone(total)
			for i, v := range sr.vals {
				total[i] += v
			}
		} else {
			b.Offset = w * (float64(k) - float64(len(series)-1)/2)
		}
		top.Add(b)
		top.AddLegend(sr.name, b)
		all = append(all, sr.vals)
	}
	if stacked {
		all = [][]float64{total}
	}
	top.Y.Min, top.Y.Max = 0, 1.05*maxOf(all...)
	top.X.Nominal(labels...)
	cpu, have := cpuPlot(sw, axis, labels)
	if !have {
		return svgOf(chartH, top)
	}
	return svgOf(chartH*1.6, top, cpu)
}

// cpuPlot is the host's CPU user/system/iowait/steal by step as lines;
// false when no step has host figures.
func cpuPlot(sw *analysis.Result, axis string, labels []string) (*svgchart.Plot, bool) {
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
		var xys []svgchart.XY
		for i, st := range sw.Steps {
			if st.Host != nil {
				xys = append(xys, svgchart.XY{X: float64(i), Y: s.get(st.Host)})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l := svgchart.Line{XYs: xys, Color: s.col, Width: 1.5, Marker: svgchart.Glyph{Shape: svgchart.Ring, Color: s.col}}
		cpu.Add(l)
		cpu.AddLegend(s.name, l)
		have = true
	}
	cpu.X.Nominal(labels...)
	return cpu, have
}

// ashChart is the database's average active sessions by step, stacked by
// wait class (the Active Session History picture), over the host's CPU;
// "" when no step has server figures.
func ashChart(sw *analysis.Result) (string, error) {
	byClass := map[string][]float64{}
	have := false
	for i, st := range sw.Steps {
		for _, c := range analysis.WaitClassesOf(st.ServerStats) {
			if byClass[c.Name] == nil {
				byClass[c.Name] = make([]float64, len(sw.Steps))
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
	case "CPUs":
		return "CPUs (the database's allotment)"
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
	case "threads", "instances", "CPUs":
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
	var xys []svgchart.XY
	for _, st := range sw.Steps {
		xys = append(xys, svgchart.XY{X: st.X, Y: st.Throughput})
	}
	if len(xys) == 0 {
		return "", nil
	}
	l := svgchart.Line{XYs: xys, Color: colAvg, Width: 1.5, Marker: svgchart.Glyph{Shape: svgchart.Circle, Color: colAvg}}
	p.Add(l)
	p.AddLegend("measured", l)
	if u := sw.USL; u != nil && !math.IsNaN(u.Lambda) {
		lo, hi := xys[0].X, xys[len(xys)-1].X
		var curve []svgchart.XY
		for k := 0; k <= 100; k++ {
			x := lo + (hi-lo)*float64(k)/100
			curve = append(curve, svgchart.XY{X: x, Y: u.Predict(x)})
		}
		c := svgchart.Line{XYs: curve, Color: colP99, Dashes: []float64{4, 3}}
		p.Add(c)
		p.AddLegend(fmt.Sprintf("USL fit (σ %.3f, κ %.4f)", u.Sigma, u.Kappa), c)
	}
	if k, ok := analysis.PrimaryKnee(sw); ok {
		// The sweep's knee, the one the headline and verdict name.
		st := sw.Steps[k.Index]
		m := svgchart.Points{XYs: []svgchart.XY{{X: st.X, Y: st.Throughput}}, Glyph: svgchart.Glyph{Shape: svgchart.Ring, Color: colSys, Radius: 7}}
		p.Add(m)
		p.AddLegend(fmt.Sprintf("knee (%s): %g", k.Method, st.X), m)
	}
	p.Y.Min = 0
	if lo, hi := xys[0].X, xys[len(xys)-1].X; lo > 0 && hi/lo >= 8 {
		// Doubling steps (1, 2, 4, ... 64) spread evenly on a log axis.
		p.X.Log, p.X.Ticker = true, stepTicks(xys)
	}
	return svgOf(chartH, p)
}

// stepTicks labels an axis at the steps' own values.
type stepTicks []svgchart.XY

func (s stepTicks) Ticks(min, max float64) []svgchart.Tick {
	var ts []svgchart.Tick
	for _, v := range s {
		if v.X >= min && v.X <= max {
			ts = append(ts, svgchart.Tick{Value: v.X, Label: tickLabel(v.X, 1e-9)})
		}
	}
	return ts
}
