package svgchart

import (
	"image/color"
	"math"
)

// XY is a point in data coordinates.
type XY struct{ X, Y float64 }

// Tick is a mark on an axis at Value; an unlabelled tick (Label "") is a
// minor one: shorter, and without a grid line.
type Tick struct {
	Value float64
	Label string
}

// Ticker marks an axis that spans min to max (data units).
type Ticker interface {
	Ticks(min, max float64) []Tick
}

// Axis is a plot's horizontal or vertical axis. Min and Max are its range
// in data units, NaN (as New leaves them) for the data's own range. A
// logarithmic axis (Log) needs a range above zero. Categories (set by
// Nominal) make it an axis of categories 0, 1, ... n-1, each labelled,
// spanning -0.5 to n-0.5.
type Axis struct {
	Label      string
	Min, Max   float64
	Log        bool
	Ticker     Ticker
	Categories []string
}

// Nominal makes a an axis of categories, labelled by labels.
func (a *Axis) Nominal(labels ...string) { a.Categories = labels }

// Plot is one plot area: its title (may be empty), axes, what is drawn in
// it (in order, the first underneath) and its legend.
type Plot struct {
	Title  string
	X, Y   Axis
	Items  []Item
	Legend []Entry
}

// New is a plot with a title and axis labels, its ranges the data's.
func New(title, x, y string) *Plot {
	return &Plot{Title: title, X: Axis{Label: x, Min: math.NaN(), Max: math.NaN()}, Y: Axis{Label: y, Min: math.NaN(), Max: math.NaN()}}
}

// Add draws items in the plot, above those added before.
func (p *Plot) Add(items ...Item) { p.Items = append(p.Items, items...) }

// AddLegend adds a legend entry: label after the thumbnails of items
// (drawn over each other: a line and its markers, say).
func (p *Plot) AddLegend(label string, items ...Item) {
	p.Legend = append(p.Legend, Entry{Label: label, Thumbs: items})
}

// Entry is one line of a legend.
type Entry struct {
	Label  string
	Thumbs []Item
}

// Item is something drawn in a plot: its data extent (to size the axes)
// and how it draws itself and its legend thumbnail.
type Item interface {
	extent() (xmin, xmax, ymin, ymax float64, ok bool)
	draw(c *canvas, f *frame)
	thumb(c *canvas, x, y, w, h float64)
}

// Shape is a marker's shape.
type Shape int

const (
	NoShape Shape = iota
	Circle        // a filled disc
	Ring          // a circle's outline
	Cross         // an x
)

// Glyph is a marker: its shape, colour and radius (pt).
type Glyph struct {
	Shape  Shape
	Color  color.Color
	Radius float64
}

// Line joins points in order, width Width (pt; 1 when 0), dashed by
// Dashes (pt: on, off, ...) when given, a Marker at each point when its
// Shape is set. A NaN coordinate breaks the line.
type Line struct {
	XYs    []XY
	Color  color.Color
	Width  float64
	Dashes []float64
	Marker Glyph
}

// Points marks each point with a glyph (a scatter).
type Points struct {
	XYs []XY
	Glyph
}

// Bars are one series of bars, one per category (the value of category i
// at Values[i]; NaN, zero or less: no bar), Width points wide, shifted by
// Offset points from the category's centre; on Base[i] when Base is given
// (stacked). Filled with Color, outlined with Stroke when StrokeWidth > 0.
// Groups too wide for their categories are narrowed to fit.
type Bars struct {
	Values      []float64
	Base        []float64
	Color       color.Color
	Stroke      color.Color
	StrokeWidth float64
	Width       float64
	Offset      float64
}

// Band is a filled rectangle in data coordinates (a shaded period).
type Band struct {
	X0, X1, Y0, Y1 float64
	Color          color.Color
}

func xyExtent(xys []XY) (xmin, xmax, ymin, ymax float64, ok bool) {
	xmin, ymin, xmax, ymax = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range xys {
		if math.IsNaN(p.X) || math.IsNaN(p.Y) || math.IsInf(p.X, 0) || math.IsInf(p.Y, 0) {
			continue
		}
		xmin, xmax, ymin, ymax = math.Min(xmin, p.X), math.Max(xmax, p.X), math.Min(ymin, p.Y), math.Max(ymax, p.Y)
		ok = true
	}
	return xmin, xmax, ymin, ymax, ok
}

func (l Line) extent() (float64, float64, float64, float64, bool)   { return xyExtent(l.XYs) }
func (p Points) extent() (float64, float64, float64, float64, bool) { return xyExtent(p.XYs) }

func (b Bars) extent() (xmin, xmax, ymin, ymax float64, ok bool) {
	if len(b.Values) == 0 {
		return 0, 0, 0, 0, false
	}
	ymin, ymax = 0, 0
	for i, v := range b.Values {
		if v > 0 && !math.IsInf(v, 0) {
			ymax = math.Max(ymax, b.base(i)+v)
		}
	}
	return -0.5, float64(len(b.Values)) - 0.5, ymin, ymax, true
}

func (b Bars) base(i int) float64 {
	if i < len(b.Base) && b.Base[i] > 0 && !math.IsInf(b.Base[i], 0) {
		return b.Base[i]
	}
	return 0
}

func (b Band) extent() (float64, float64, float64, float64, bool) {
	return math.Min(b.X0, b.X1), math.Max(b.X0, b.X1), math.Min(b.Y0, b.Y1), math.Max(b.Y0, b.Y1), true
}

// plainTicks marks an axis that has no Ticker: both ends, labelled with
// four significant digits.
type plainTicks struct{}

func (plainTicks) Ticks(min, max float64) []Tick {
	return []Tick{{Value: min, Label: fmtG(min)}, {Value: max, Label: fmtG(max)}}
}
