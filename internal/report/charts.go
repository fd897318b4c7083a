package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
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
//
// The helpers here carry the style every chart shares, so that a new chart
// gets it by using them: newPlot (sans-serif text, the grid, the 1-2-5 tick
// format of niceTicks on both axes), seriesStyle (the palette, dashes past
// its eight colours) and svgOf (each plot's legend drawn outside its plot
// area, on the right or below; every axis labelled; the SVG scaled to the
// page's width).

// The palette: eight colours (Tableau 10 without its grey and its light
// yellow), distinct from each other on white and for the common forms of
// colour blindness as far as eight colours can be.
var (
	colAvg    = color.RGBA{R: 0x4e, G: 0x79, B: 0xa7, A: 0xff} // blue
	colP99    = color.RGBA{R: 0xe1, G: 0x57, B: 0x59, A: 0xff} // red
	colUser   = color.RGBA{R: 0x59, G: 0xa1, B: 0x4f, A: 0xff} // green
	colSys    = color.RGBA{R: 0xf2, G: 0x8e, B: 0x2b, A: 0xff} // orange
	colIowait = color.RGBA{R: 0x76, G: 0xb7, B: 0xb2, A: 0xff} // teal
	colSteal  = color.RGBA{R: 0xb0, G: 0x7a, B: 0xa1, A: 0xff} // purple
	colWarm   = color.RGBA{R: 0xdd, G: 0xdd, B: 0xdd, A: 0xff} // the warm-up's shade, not a series
	palette   = []color.Color{colAvg, colSys, colP99, colIowait, colUser, colSteal,
		color.RGBA{R: 0x9c, G: 0x75, B: 0x5f, A: 0xff}, // brown
		color.RGBA{R: 0xff, G: 0x9d, B: 0xa7, A: 0xff}} // pink
	// dashPatterns tell series apart once the colours run out: series i
	// has colour i mod 8 and pattern i div 8 (the first solid).
	dashPatterns = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)},
		{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}
)

// seriesStyle is the colour and dash pattern of a chart's i-th series
// (from 0): the eight colours first, solid; past eight the colours again
// with a dash pattern, so that no two series of a chart look alike (up to
// 32 series; charts hold at most about six, see maxSeries).
func seriesStyle(i int) (color.Color, []vg.Length) {
	if i < 0 {
		i = 0
	}
	return palette[i%len(palette)], dashPatterns[(i/len(palette))%len(dashPatterns)]
}

// styleLine gives a line the i-th series' style, 1.5 pt wide.
func styleLine(l *draw.LineStyle, i int) {
	l.Color, l.Dashes = seriesStyle(i)
	l.Width = vg.Points(1.5)
}

const (
	chartW = 24 * vg.Centimeter
	chartH = 8 * vg.Centimeter
	// legendGap separates a legend from its plot area.
	legendGap = 3 * vg.Millimeter
)

// svgOf draws rows of plots (one column), aligned on their axes, into SVG
// of width chartW and height h (plus the room of legends set below the
// plots). Each plot's legend is drawn outside its plot area: on the right
// of it, or below the figure's plots when the widest legend would take
// more than a third of the width. Every axis must have a label (with its
// unit): a plot without one is an error, so that no chart ships without.
// The SVG scales to its container's width (viewBox, width 100%).
func svgOf(h vg.Length, plots ...*plot.Plot) (string, error) {
	legends := make([]plot.Legend, len(plots))
	var legW, legH vg.Length
	for i, p := range plots {
		if p.X.Label.Text == "" || p.Y.Label.Text == "" {
			return "", fmt.Errorf("chart %q, plot %d: an axis has no label (x %q, y %q)", plots[0].Title.Text, i+1, p.X.Label.Text, p.Y.Label.Text)
		}
		legends[i] = p.Legend
		p.Legend = plot.NewLegend()
		r := legends[i].Rectangle(draw.Canvas{})
		legW = max(legW, r.Size().X)
		legH += r.Size().Y
	}
	below := legW > chartW/3
	if below {
		legH += legendGap * vg.Length(len(plots))
		h += legH
	}
	c := vgsvg.New(chartW, h)
	dc := draw.New(c)
	area := dc
	switch {
	case below:
		area = draw.Crop(dc, 0, 0, legH, 0)
	case legW > 0:
		area = draw.Crop(dc, 0, -(legW + legendGap), 0, 0)
	}
	rows := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: 4 * vg.Millimeter, PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter}
	canvases := plot.Align(rows, tiles, area)
	y := dc.Min.Y + legH
	for i, p := range plots {
		p.Draw(canvases[i][0])
		l := legends[i]
		l.Top, l.Left, l.XOffs, l.YOffs = true, true, 0, 0
		data := p.DataCanvas(canvases[i][0])
		if below {
			// Under the figure, in the order of the plots, each legend
			// starting at its plot area's left edge.
			r := l.Rectangle(draw.Canvas{})
			y -= r.Size().Y + legendGap
			l.Draw(draw.Canvas{Canvas: c, Rectangle: vg.Rectangle{Min: vg.Point{X: data.Min.X, Y: y}, Max: vg.Point{X: dc.Max.X, Y: y + r.Size().Y}}})
			continue
		}
		l.Draw(draw.Canvas{Canvas: c, Rectangle: vg.Rectangle{Min: vg.Point{X: area.Max.X + legendGap, Y: data.Min.Y}, Max: vg.Point{X: dc.Max.X, Y: data.Max.Y}}})
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	return scalable(b.String()), nil
}

// scalable drops the XML prolog (the SVG is inlined in HTML), sizes the SVG
// to its container's width (the viewBox keeps its proportions) and gives
// its text the page's sans-serif fallbacks.
func scalable(s string) string {
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:]
	}
	if end := strings.Index(s, ">"); end > 0 {
		tag := s[:end]
		if i := strings.Index(tag, ` width="`); i >= 0 {
			if j := strings.Index(tag, ` viewBox="`); j > i {
				tag = tag[:i] + ` width="100%"` + tag[j:]
			}
		}
		s = tag + s[end:]
	}
	return strings.ReplaceAll(s, "font-family:Liberation Sans;", "font-family:Liberation Sans,Arial,Helvetica,sans-serif;")
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

// newPlot is a plot in the shared style: title, axis labels (give every
// axis one, with its unit: svgOf refuses a plot without), sans-serif text,
// a grid, and the 1-2-5 tick format on both axes (a chart that needs
// other ticks, such as categories or percentiles, sets its own marker).
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	for _, st := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		st.Font.Variant = "Sans"
	}
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.X.Label.TextStyle.Font.Size, p.Y.Label.TextStyle.Font.Size = vg.Points(11), vg.Points(11)
	p.X.Tick.Label.Font.Size, p.Y.Tick.Label.Font.Size = vg.Points(9), vg.Points(9)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	p.Legend.Top, p.Legend.Padding = true, vg.Points(2)
	p.Add(plotter.NewGrid())
	return p
}

// responseCPUChart is the first seed's chart: the average and p99 response
// time as bars per step, and under it the host's CPU (user, system,
// iowait, steal) as lines, over the sweep's axis; "" (no chart) when the
// sweep has no steps.
func responseCPUChart(sw *analysis.Result) (string, error) {
	n := len(sw.Steps)
	if n == 0 {
		return "", nil // gonum refuses a bar chart of no values
	}
	labels := make([]string, n)
	avg, p99 := make(plotter.Values, n), make(plotter.Values, n)
	for i, st := range sw.Steps {
		labels[i] = axisLabel(sw, i)
		avg[i], p99[i] = st.AvgMs, st.P99Ms
	}
	axis := axisTitle(sw)
	top := newPlot("Response time and host CPU by step", axis, "response time (ms)")
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
	top.Y.Min, top.Y.Max = 0, 1.05*maxOf(p99, avg)
	top.Legend.Add("avg", ba)
	top.Legend.Add("p99", bp)
	top.NominalX(labels...)

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
			return "", err
		}
		l.Color, pts.Color, l.Width = s.col, s.col, vg.Points(1.5)
		cpu.Add(l, pts)
		cpu.Legend.Add(s.name, l, pts)
		have = true
	}
	cpu.NominalX(labels...)
	if !have {
		return svgOf(chartH, top)
	}
	return svgOf(chartH*1.6, top, cpu)
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
	mk := func(title, y string, xys plotter.XYs, col color.Color, name string) (*plot.Plot, error) {
		p := newPlot(title, "time since the start (s)", y)
		ymax := 0.0
		for _, v := range xys {
			ymax = math.Max(ymax, v.Y)
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = col, vg.Points(1.5)
		if warmEnd > 0 && ymax > 0 {
			poly, err := plotter.NewPolygon(plotter.XYs{{X: 0, Y: 0}, {X: warmEnd, Y: 0}, {X: warmEnd, Y: ymax * 1.05}, {X: 0, Y: ymax * 1.05}})
			if err != nil {
				return nil, err
			}
			poly.Color, poly.LineStyle.Width = colWarm, 0
			p.Add(poly)
			p.Legend.Add(name, l)
			p.Legend.Add("warm-up", poly)
		} else {
			p.Legend.Add(name, l)
		}
		p.Add(l)
		p.Y.Min = 0
		return p, nil
	}
	unit := r.Event + "/s" // transaction/s, io/s, event/s: no plural to guess
	if r.Event == "" {
		unit = "events/s"
	}
	top, err := mk(title, "throughput ("+unit+")", rate, colAvg, "throughput")
	if err != nil {
		return "", err
	}
	bottom, err := mk("", "p99 response time (ms)", p99, colP99, "p99")
	if err != nil {
		return "", err
	}
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
	// The y axis holds log10(ms), ticked in ms: gonum's LogScale places
	// the axis label's glyph box at the arithmetic middle, which pushes
	// the plot down under its title.
	p.Y.Tick.Marker = log10Space{}
	p.X.Tick.Marker = ninesTicks{}
	n := 0
	for _, op := range ops {
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
			xys = append(xys, plotter.XY{X: -math.Log10(1 - q), Y: math.Log10(v)})
		}
		if len(xys) < 2 {
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return "", err
		}
		styleLine(&l.LineStyle, n)
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
