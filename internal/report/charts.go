package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/result"
)

// Charts are drawn with gonum/plot into static SVG, embedded in the HTML
// report: the file opens offline and needs no script. Text in the SVG is
// escaped by gonum's SVG canvas.

var (
	colAvg    = color.RGBA{R: 0x4e, G: 0x79, B: 0xa7, A: 0xff}
	colP99    = color.RGBA{R: 0xe1, G: 0x57, B: 0x59, A: 0xff}
	colUser   = color.RGBA{R: 0x59, G: 0xa1, B: 0x4f, A: 0xff}
	colSys    = color.RGBA{R: 0xf2, G: 0x8e, B: 0x2b, A: 0xff}
	colIowait = color.RGBA{R: 0x76, G: 0xb7, B: 0xb2, A: 0xff}
	colSteal  = color.RGBA{R: 0xb0, G: 0x7a, B: 0xa1, A: 0xff}
	colWarm   = color.RGBA{R: 0xdd, G: 0xdd, B: 0xdd, A: 0xff}
	palette   = []color.Color{colAvg, colP99, colUser, colSys, colIowait, colSteal,
		color.RGBA{R: 0xed, G: 0xc9, B: 0x48, A: 0xff}, color.RGBA{R: 0xff, G: 0x9d, B: 0xa7, A: 0xff},
		color.RGBA{R: 0x9c, G: 0x75, B: 0x5f, A: 0xff}, color.RGBA{R: 0xba, G: 0xb0, B: 0xac, A: 0xff}}
)

const (
	chartW = 18 * vg.Centimeter
	chartH = 8 * vg.Centimeter
)

// svgOf draws rows of plots (one column), aligned on their axes, into SVG.
func svgOf(h vg.Length, plots ...*plot.Plot) (string, error) {
	c := vgsvg.New(chartW, h)
	rows := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: 4 * vg.Millimeter, PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter}
	canvases := plot.Align(rows, tiles, draw.New(c))
	for i, p := range plots {
		p.Draw(canvases[i][0])
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	// Drop the XML prolog: the SVG is inlined in HTML.
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:]
	}
	return s, nil
}

func maxOf(vs ...plotter.Values) float64 {
	m := 0.0
	for _, v := range vs {
		for _, x := range v {
			m = math.Max(m, x)
		}
	}
	if m == 0 {
		return 1
	}
	return m
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// responseCPUChart is the first seed's chart: the average and p99 response
// time as bars per step, and under it the host's CPU (user, system,
// iowait, steal) as lines, over the sweep's axis.
func responseCPUChart(sw *analysis.Result) (string, error) {
	n := len(sw.Steps)
	labels := make([]string, n)
	avg, p99 := make(plotter.Values, n), make(plotter.Values, n)
	for i, st := range sw.Steps {
		labels[i] = axisLabel(sw, i)
		avg[i], p99[i] = st.AvgMs, st.P99Ms
	}
	top := newPlot("Response time and host CPU by step", "", "response time (ms)")
	w := vg.Points(math.Max(4, math.Min(18, 180/float64(n))))
	ba, err := plotter.NewBarChart(avg, w)
	if err != nil {
		return "", err
	}
	ba.Color, ba.LineStyle.Width, ba.Offset = colAvg, 0, -w/2
	bp, err := plotter.NewBarChart(p99, w)
	if err != nil {
		return "", err
	}
	bp.Color, bp.LineStyle.Width, bp.Offset = colP99, 0, w/2
	top.Add(ba, bp)
	top.Y.Min, top.Y.Max = 0, 1.3*maxOf(p99, avg) // room for the legend
	top.Legend.Left = true
	top.Legend.Add("avg", ba)
	top.Legend.Add("p99", bp)
	top.NominalX(labels...)

	cpu := newPlot("", sw.Axis, "host CPU %")
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
			return "", err
		}
		l.Color, pts.Color, l.Width = s.col, s.col, vg.Points(1.5)
		cpu.Add(l, pts)
		cpu.Legend.Add(s.name, l)
		have = true
	}
	cpu.NominalX(labels...)
	if !have {
		top.X.Label.Text = sw.Axis
		return svgOf(chartH, top)
	}
	return svgOf(chartH*1.6, top, cpu)
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
// fitted USL curve and the knee marked.
func throughputChart(sw *analysis.Result) (string, error) {
	p := newPlot("Throughput by "+sw.Axis, sw.Axis, "throughput (/s)")
	var xys plotter.XYs
	for _, st := range sw.Steps {
		xys = append(xys, plotter.XY{X: st.X, Y: st.Throughput})
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
	for _, k := range sw.Knees {
		if k.Index < 0 || k.Index >= len(sw.Steps) {
			continue
		}
		st := sw.Steps[k.Index]
		m, err := plotter.NewScatter(plotter.XYs{{X: st.X, Y: st.Throughput}})
		if err != nil {
			return "", err
		}
		m.Shape, m.Color, m.Radius = draw.RingGlyph{}, colSys, vg.Points(7)
		p.Add(m)
		p.Legend.Add(fmt.Sprintf("knee (%s method): %g", k.Method, st.X), m)
		break // the first method that found one
	}
	ys := make(plotter.Values, len(xys))
	for i, v := range xys {
		ys[i] = v.Y
	}
	p.Y.Min, p.Y.Max = 0, 1.3*maxOf(ys) // room for the legend
	if lo, hi := xys[0].X, xys[len(xys)-1].X; lo > 0 && hi/lo >= 8 {
		// Doubling steps (1, 2, 4, ... 64) spread evenly on a log axis.
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, stepTicks(xys)
	}
	p.Legend.Left = true
	return svgOf(chartH, p)
}

// stepTicks labels an axis at the steps' own values.
type stepTicks plotter.XYs

func (s stepTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for _, v := range s {
		if v.X >= min && v.X <= max {
			ts = append(ts, plot.Tick{Value: v.X, Label: fmt.Sprintf("%g", v.X)})
		}
	}
	return ts
}

// timelineChart is a run's per-interval throughput and p99 over time, the
// warm-up shaded.
func timelineChart(r *result.Run, title string) (string, error) {
	var rate, p99 plotter.XYs
	warmEnd := 0.0
	for _, iv := range r.Intervals {
		t := iv.EndS
		if iv.Phase == "warmup" {
			warmEnd = t
		}
		rate = append(rate, plotter.XY{X: t, Y: iv.Rate})
		p99 = append(p99, plotter.XY{X: t, Y: iv.Latency.P99Ms})
	}
	if len(rate) == 0 {
		return "", nil
	}
	mk := func(title, y string, xys plotter.XYs, col color.Color) (*plot.Plot, error) {
		p := newPlot(title, "", y)
		ymax := 0.0
		for _, v := range xys {
			ymax = math.Max(ymax, v.Y)
		}
		if warmEnd > 0 && ymax > 0 {
			poly, err := plotter.NewPolygon(plotter.XYs{{X: 0, Y: 0}, {X: warmEnd, Y: 0}, {X: warmEnd, Y: ymax * 1.05}, {X: 0, Y: ymax * 1.05}})
			if err != nil {
				return nil, err
			}
			poly.Color, poly.LineStyle.Width = colWarm, 0
			p.Add(poly)
			p.Legend.Add("warm-up", poly)
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = col, vg.Points(1.5)
		p.Add(l)
		p.Y.Min = 0
		return p, nil
	}
	top, err := mk(title, "throughput (/s)", rate, colAvg)
	if err != nil {
		return "", err
	}
	bottom, err := mk("", "p99 (ms)", p99, colP99)
	if err != nil {
		return "", err
	}
	bottom.X.Label.Text = "seconds since start"
	return svgOf(chartH*1.4, top, bottom)
}

// percentileChart is each operation's latency distribution: latency
// against percentile on a "nines" axis (50, 90, 99, 99.9, ...), both
// logarithmic, from the operations' HDR histograms.
func percentileChart(r *result.Run) (string, error) {
	p := newPlot("Latency by percentile, per operation", "percentile", "latency (ms)")
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	p.X.Tick.Marker = ninesTicks{}
	n := 0
	for _, op := range r.Ops {
		if op.Histogram == "" || op.Count == 0 {
			continue
		}
		h, err := hist.FromSnapshot(op.Histogram)
		if err != nil {
			return "", fmt.Errorf("operation %s: %w", op.Name, err)
		}
		var xys plotter.XYs
		for _, q := range nines {
			v := float64(h.Quantile(q)) / 1e6
			if v <= 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: -math.Log10(1 - q), Y: v})
		}
		if len(xys) < 2 {
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return "", err
		}
		l.Color, l.Width = palette[n%len(palette)], vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(op.Name, l)
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

func (ninesTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999, 0.9999} {
		x := -math.Log10(1 - q)
		if x >= min-1e-9 && x <= max+1e-9 {
			ts = append(ts, plot.Tick{Value: x, Label: strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", 100*q), "0"), ".")})
		}
	}
	return ts
}
