package report

import (
	"math"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/report/svgchart"
	"github.com/rightsize/rightsize/internal/result"
)

// guestHostChart sets the guest's CPU beside what it cannot show, per
// step, as the first seed study does: bars of the guest's CPU busy and,
// where the steps have them, the hypervisor's host CPU and a limited
// cgroup's use of its limit; under them, lines of the waits behind those
// (ready and co-stop per vCPU, a cgroup's throttled periods, CPU
// pressure). "" when no step has any of these.
func guestHostChart(sw *analysis.Result) (string, error) {
	n := len(sw.Steps)
	labels := make([]string, n)
	type series struct {
		name string
		get  func(h *result.Host) (float64, bool)
	}
	bars := []series{
		{"guest CPU busy", func(h *result.Host) (float64, bool) { return h.CPU.Busy(), true }},
		{"host CPU (hypervisor)", hvCell(hvHostCPU)},
		{"cgroup's use of its limit", func(h *result.Host) (float64, bool) {
			g := mostThrottled(h)
			if g == nil || g.LimitCPUs <= 0 || g.UsedCPUs <= 0 {
				return 0, false
			}
			return 100 * g.UsedCPUs / g.LimitCPUs, true
		}},
	}
	lines := []series{
		{"ready per vCPU", hvCell(hvReady)},
		{"co-stop per vCPU", hvCell(hvCoStop)},
		{"cgroup throttled periods", throttledCell},
		{"CPU pressure (some)", pressureCell},
	}
	values := func(s series) ([]float64, bool) {
		v := make([]float64, n)
		found := false
		for i, st := range sw.Steps {
			if st.Host == nil {
				continue
			}
			if x, ok := s.get(st.Host); ok {
				v[i], found = x, true
			}
		}
		return v, found
	}
	for i := range sw.Steps {
		labels[i] = axisLabel(sw, i)
	}
	axis := axisTitle(sw)
	top := newPlot("Guest CPU beside the host's view, by step", axis, "CPU busy (%)")
	var have [][]float64
	var names []string
	for _, s := range bars {
		if v, ok := values(s); ok {
			have, names = append(have, v), append(names, s.name)
		}
	}
	bottom := newPlot("", axis, "time waiting (%)")
	waits := 0
	for _, s := range lines {
		v, ok := values(s)
		if !ok {
			continue
		}
		xys := make([]svgchart.XY, n)
		for i := range v {
			xys[i] = svgchart.XY{X: float64(i), Y: v[i]}
		}
		l := lineOf(xys, waits+1)
		l.Marker = svgchart.Glyph{Shape: svgchart.Ring, Color: l.Color}
		bottom.Add(l)
		bottom.AddLegend(s.name, l)
		waits++
	}
	if len(have) < 2 && waits == 0 {
		return "", nil // the guest's own figure alone: the first chart has it
	}
	w := math.Max(4, math.Min(18, 240/float64(n*len(have))))
	top.Y.Min, top.Y.Max = 0, 100
	for i, v := range have {
		c, _ := seriesStyle(i)
		b := svgchart.Bars{Values: v, Color: c, Width: w, Offset: w * (float64(i) - float64(len(have)-1)/2)}
		top.Add(b)
		top.AddLegend(names[i], b)
		top.Y.Max = math.Max(top.Y.Max, 1.05*maxOf(v))
	}
	top.X.Nominal(labels...)
	if waits == 0 {
		return svgOf(chartH, top)
	}
	bottom.Y.Min = 0
	bottom.X.Nominal(labels...)
	return svgOf(chartH*1.6, top, bottom)
}
