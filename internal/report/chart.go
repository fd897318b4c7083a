package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
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
