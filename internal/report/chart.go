package report

import (
	"html/template"
	"image/color"
	"math"

	"github.com/rightsize/rightsize/internal/report/svgchart"
)

// Charts are drawn by svgchart, the report's own SVG writer, into static
// SVG embedded in the HTML report: the file opens offline and needs no
// script or font. Text in the SVG is escaped by svgchart.
//
// The helpers here carry the style every chart shares, so that a new chart
// gets it by using them: newPlot (the 1-2-5 tick format of niceTicks on
// both axes), seriesStyle and lineOf (the palette, dashes past its eight
// colours) and svgOf (each plot's legend drawn outside its plot area, on
// the right or below; every axis labelled; the SVG scaled to the page's
// width).

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
	dashPatterns = [][]float64{nil, {6, 3}, {2, 2}, {8, 3, 2, 3}} // pt
)

// seriesStyle is the colour and dash pattern of a chart's i-th series
// (from 0): the eight colours first, solid; past eight the colours again
// with a dash pattern, so that no two series of a chart look alike (up to
// 32 series; charts hold at most about six, see maxSeries).
func seriesStyle(i int) (color.Color, []float64) {
	if i < 0 {
		i = 0
	}
	return palette[i%len(palette)], dashPatterns[(i/len(palette))%len(dashPatterns)]
}

// The charts' size in points (the SVG's units; it scales to the page).
const (
	cm     = 72 / 2.54
	chartW = 24 * cm
	chartH = 8 * cm
)

// svgOf draws rows of plots (one column), aligned on their axes, into SVG
// of width chartW and height h (plus the room of legends set below the
// plots): svgchart.Render. Each plot's legend is drawn outside its plot
// area: on the right of it, or below the figure's plots when the widest
// legend would take more than a third of the width. Every axis must have
// a label (with its unit): a plot without one is an error, so that no
// chart ships without. The SVG scales to its container's width.
func svgOf(h float64, plots ...*svgchart.Plot) (string, error) {
	return svgchart.Render(chartW, h, plots...)
}

func maxOf(vs ...[]float64) float64 {
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
// axis one, with its unit: svgOf refuses a plot without), and the 1-2-5
// tick format on both axes (a chart that needs other ticks, such as
// categories or percentiles, sets its own).
func newPlot(title, x, y string) *svgchart.Plot {
	p := svgchart.New(title, x, y)
	p.X.Ticker, p.Y.Ticker = niceTicks{}, niceTicks{}
	return p
}

// lineOf is a line through xys in the i-th series' style, 1.5 pt wide.
func lineOf(xys []svgchart.XY, i int) svgchart.Line {
	c, d := seriesStyle(i)
	return svgchart.Line{XYs: xys, Color: c, Dashes: d, Width: 1.5}
}

// htmlOf marks an SVG drawn by svgchart (its text escaped) as safe to
// inline.
func htmlOf(svg string) template.HTML { return template.HTML(svg) }
