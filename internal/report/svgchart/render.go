package svgchart

import (
	"encoding/xml"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"
)

// Sizes of the shared style, in points.
const (
	titleSize  = 12
	labelSize  = 11 // axis labels
	tickSize   = 9  // tick labels
	legendSize = 10
	majorTick  = 5 // length of a labelled tick
	minorTick  = 3
	thumbW     = 18 // a legend's thumbnail
	legendRow  = 13 // a legend line's height
	legendGap  = 3 * mm
	mm         = 72 / 25.4
	padTop     = 2 * mm // above the first plot
	padBottom  = 2 * mm // below the last
	padY       = 4 * mm // between two plots
)

var (
	gridColor = color.RGBA{R: 0xd9, G: 0xd9, B: 0xd9, A: 0xff}
	axisColor = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
	textColor = color.RGBA{R: 0x22, G: 0x22, B: 0x22, A: 0xff}
)

// frame maps a plot's data to the page: the data area's corners (y down)
// and the axes' resolved ranges.
type frame struct {
	x0, x1, y0, y1 float64 // y0 the top
	xr, yr         span
}

// span is an axis's resolved range.
type span struct {
	min, max float64
	log      bool
}

// at is the fraction of the span where v lies (0 at min, 1 at max).
func (s span) at(v float64) float64 {
	if s.log {
		return (math.Log10(v) - math.Log10(s.min)) / (math.Log10(s.max) - math.Log10(s.min))
	}
	return (v - s.min) / (s.max - s.min)
}

func (f *frame) x(v float64) float64 { return f.x0 + f.xr.at(v)*(f.x1-f.x0) }
func (f *frame) y(v float64) float64 { return f.y1 - f.yr.at(v)*(f.y1-f.y0) }

// Render draws plots in one column, aligned on their axes, into an SVG of
// width w and height h (plus the room of legends set below the plots),
// which scales to its container's width (width 100%, a viewBox). Each
// plot's legend is drawn outside its plot area: on the right of it, or
// below the figure's plots, one under the other, when the widest legend
// would take more than a third of the width. Every axis must have a label
// (with its unit): a plot without one is an error.
func Render(w, h float64, plots ...*Plot) (string, error) {
	if len(plots) == 0 {
		return "", fmt.Errorf("a chart of no plots")
	}
	type laid struct {
		xr, yr                   span
		xt, yt                   []Tick
		top, bottom, left, right float64
		legW, legH               float64
	}
	ls := make([]laid, len(plots))
	var legW, legH, left, right float64
	for i, p := range plots {
		if p.X.Label == "" || p.Y.Label == "" {
			return "", fmt.Errorf("chart %q, plot %d: an axis has no label (x %q, y %q)", plots[0].Title, i+1, p.X.Label, p.Y.Label)
		}
		l := &ls[i]
		xmin, xmax, ymin, ymax := dataRange(p)
		l.xr, l.xt = resolve(&p.X, xmin, xmax)
		l.yr, l.yt = resolve(&p.Y, ymin, ymax)
		l.top = 8
		if p.Title != "" {
			l.top = titleSize*1.25 + 6
		}
		l.bottom = majorTick + 3 + tickSize + 4 + labelSize + 2
		ytw := 0.0
		for _, t := range l.yt {
			ytw = math.Max(ytw, TextWidth(t.Label, tickSize))
		}
		l.left = 2 + labelSize + 6 + ytw + 3 + majorTick
		l.right = 6
		for _, t := range l.xt {
			if t.Label != "" && l.xr.at(t.Value) > 0.999 {
				l.right = math.Max(l.right, TextWidth(t.Label, tickSize)/2+2)
			}
		}
		for _, e := range p.Legend {
			l.legW = math.Max(l.legW, thumbW+4+TextWidth(e.Label, legendSize))
		}
		l.legH = legendRow * float64(len(p.Legend))
		legW, legH = math.Max(legW, l.legW), legH+l.legH
		left, right = math.Max(left, l.left), math.Max(right, l.right)
	}
	below := legW > w/3
	areaRight := w
	height := h
	switch {
	case below:
		for _, l := range ls {
			if l.legH > 0 {
				height += l.legH + legendGap
			}
		}
	case legW > 0:
		areaRight = w - legW - legendGap
	}
	c := &canvas{}
	fmt.Fprintf(&c.b, `<svg width="100%%" viewBox="0 0 %s %s" xmlns="http://www.w3.org/2000/svg" font-family="%s">`+"\n", num(w), num(height), FontFamily)
	c.rect(0, 0, w, height, "fill:#FFFFFF")
	rowH := (h - padTop - padBottom - padY*float64(len(plots)-1)) / float64(len(plots))
	frames := make([]frame, len(plots))
	for i, p := range plots {
		l := ls[i]
		rowTop := padTop + float64(i)*(rowH+padY)
		f := &frames[i]
		*f = frame{x0: left, x1: areaRight - right, y0: rowTop + l.top, y1: rowTop + rowH - l.bottom, xr: l.xr, yr: l.yr}
		drawPlot(c, p, f, l.xt, l.yt, rowTop)
	}
	y := h
	for i, p := range plots {
		f := frames[i]
		if below {
			if len(p.Legend) > 0 {
				drawLegend(c, p.Legend, f.x0, y)
				y += ls[i].legH + legendGap
			}
			continue
		}
		drawLegend(c, p.Legend, areaRight+legendGap, f.y0)
	}
	c.b.WriteString("</svg>")
	return c.b.String(), nil
}

// dataRange is the extent of a plot's items; NaN where it has none.
func dataRange(p *Plot) (xmin, xmax, ymin, ymax float64) {
	xmin, ymin, xmax, ymax = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, it := range p.Items {
		if a, b, c, d, ok := it.extent(); ok {
			xmin, xmax, ymin, ymax = math.Min(xmin, a), math.Max(xmax, b), math.Min(ymin, c), math.Max(ymax, d)
		}
	}
	return xmin, xmax, ymin, ymax
}

// resolve is an axis's range (its own Min and Max where set, else the
// data's; a range of one value widened around it) and its ticks.
func resolve(a *Axis, lo, hi float64) (span, []Tick) {
	if len(a.Categories) > 0 {
		lo, hi = -0.5, float64(len(a.Categories))-0.5
	}
	if !math.IsNaN(a.Min) {
		lo = a.Min
	}
	if !math.IsNaN(a.Max) {
		hi = a.Max
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		lo, hi = 0, 1
	}
	if a.Log && lo <= 0 {
		lo = math.Min(hi, 1) / 10
		if hi <= 0 {
			lo, hi = 0.1, 1
		}
	}
	if !(hi > lo) {
		switch {
		case a.Log:
			lo, hi = lo/2, lo*2
		case lo == 0:
			hi = 1
		default:
			lo, hi = lo-math.Abs(lo)/2, hi+math.Abs(hi)/2
		}
	}
	s := span{min: lo, max: hi, log: a.Log}
	var ts []Tick
	switch {
	case len(a.Categories) > 0:
		for i, c := range a.Categories {
			ts = append(ts, Tick{Value: float64(i), Label: c})
		}
	case a.Ticker != nil:
		ts = a.Ticker.Ticks(lo, hi)
	default:
		ts = plainTicks{}.Ticks(lo, hi)
	}
	in := ts[:0:0]
	for _, t := range ts {
		if f := s.at(t.Value); f >= -1e-9 && f <= 1+1e-9 && !math.IsNaN(f) {
			in = append(in, t)
		}
	}
	return s, in
}

// drawPlot draws a plot's grid, items, axes and texts into its frame.
func drawPlot(c *canvas, p *Plot, f *frame, xt, yt []Tick, rowTop float64) {
	for _, t := range xt {
		if t.Label != "" && len(p.X.Categories) == 0 {
			x := f.x(t.Value)
			c.line(x, f.y0, x, f.y1, gridColor, 0.5, nil)
		}
	}
	for _, t := range yt {
		if t.Label != "" {
			y := f.y(t.Value)
			c.line(f.x0, y, f.x1, y, gridColor, 0.5, nil)
		}
	}
	fitBars(p, f)
	for _, it := range p.Items {
		it.draw(c, f)
	}
	c.line(f.x0, f.y1, f.x1, f.y1, axisColor, 0.75, nil)
	c.line(f.x0, f.y0, f.x0, f.y1, axisColor, 0.75, nil)
	for _, t := range xt {
		x, n := f.x(t.Value), float64(minorTick)
		if t.Label != "" {
			n = majorTick
			c.text(x, f.y1+majorTick+3+tickSize*0.8, tickSize, "middle", false, t.Label)
		}
		c.line(x, f.y1, x, f.y1+n, axisColor, 0.75, nil)
	}
	for _, t := range yt {
		y, n := f.y(t.Value), float64(minorTick)
		if t.Label != "" {
			n = majorTick
			c.text(f.x0-majorTick-3, y+tickSize*0.35, tickSize, "end", false, t.Label)
		}
		c.line(f.x0-n, y, f.x0, y, axisColor, 0.75, nil)
	}
	mid := (f.x0 + f.x1) / 2
	c.text(mid, f.y1+majorTick+3+tickSize+4+labelSize*0.8, labelSize, "middle", false, p.X.Label)
	c.text(2+labelSize*0.8, (f.y0+f.y1)/2, labelSize, "middle", true, p.Y.Label)
	if p.Title != "" {
		c.text(mid, rowTop+titleSize, titleSize, "middle", false, p.Title)
	}
}

// fitBars narrows the plot's bar groups that are wider than 90 % of a
// category, keeping their proportions.
func fitBars(p *Plot, f *frame) {
	if f.xr.log {
		return
	}
	half := 0.0
	for _, it := range p.Items {
		if b, ok := it.(Bars); ok {
			half = math.Max(half, math.Abs(b.Offset)+b.Width/2)
		}
	}
	room := 0.45 * math.Abs(f.x(1)-f.x(0))
	if half <= room || half == 0 {
		return
	}
	k := room / half
	for i, it := range p.Items {
		if b, ok := it.(Bars); ok {
			b.Width, b.Offset = b.Width*k, b.Offset*k
			p.Items[i] = b
		}
	}
}

// drawLegend lists entries from (x, y), the top left corner.
func drawLegend(c *canvas, es []Entry, x, y float64) {
	for i, e := range es {
		top := y + float64(i)*legendRow
		for _, it := range e.Thumbs {
			it.thumb(c, x, top+1.5, thumbW, legendRow-3)
		}
		c.text(x+thumbW+4, top+legendRow/2+legendSize*0.35, legendSize, "start", false, e.Label)
	}
}

func (l Line) width() float64 {
	if l.Width > 0 {
		return l.Width
	}
	return 1
}

func (l Line) draw(c *canvas, f *frame) {
	var d strings.Builder
	pen := false
	for _, p := range l.XYs {
		if math.IsNaN(p.X) || math.IsNaN(p.Y) || math.IsInf(p.X, 0) || math.IsInf(p.Y, 0) {
			pen = false
			continue
		}
		cmd := "L"
		if !pen {
			cmd = "M"
		}
		d.WriteString(cmd + num(f.x(p.X)) + "," + num(f.y(p.Y)))
		pen = true
	}
	if d.Len() > 0 {
		c.path(d.String(), strokeStyle(l.Color, l.width(), l.Dashes))
	}
	if l.Marker.Shape != NoShape {
		Points{XYs: l.XYs, Glyph: l.Marker}.draw(c, f)
	}
}

func (l Line) thumb(c *canvas, x, y, w, h float64) {
	c.line(x, y+h/2, x+w, y+h/2, l.Color, l.width(), l.Dashes)
	if l.Marker.Shape != NoShape {
		l.Marker.at(c, x+w/2, y+h/2)
	}
}

func (p Points) draw(c *canvas, f *frame) {
	for _, pt := range p.XYs {
		if math.IsNaN(pt.X) || math.IsNaN(pt.Y) || math.IsInf(pt.X, 0) || math.IsInf(pt.Y, 0) {
			continue
		}
		p.Glyph.at(c, f.x(pt.X), f.y(pt.Y))
	}
}

func (p Points) thumb(c *canvas, x, y, w, h float64) {
	g := p.Glyph
	g.Radius = math.Min(g.Radius, h/2+2) // a large ring's thumbnail keeps to its line
	g.at(c, x+w/2, y+h/2)
}

// at draws the glyph centred on (x, y).
func (g Glyph) at(c *canvas, x, y float64) {
	r := g.Radius
	if r <= 0 {
		r = 2.5
	}
	switch g.Shape {
	case Circle:
		c.path(circle(x, y, r), "fill:"+hex(g.Color))
	case Ring:
		c.path(circle(x, y, r), strokeStyle(g.Color, 1, nil))
	case Cross:
		c.path("M"+num(x-r)+","+num(y-r)+"L"+num(x+r)+","+num(y+r)+"M"+num(x-r)+","+num(y+r)+"L"+num(x+r)+","+num(y-r), strokeStyle(g.Color, 1, nil))
	}
}

func circle(x, y, r float64) string {
	return "M" + num(x-r) + "," + num(y) + "a" + num(r) + "," + num(r) + " 0 1,0 " + num(2*r) + ",0" + "a" + num(r) + "," + num(r) + " 0 1,0 " + num(-2*r) + ",0Z"
}

func (b Bars) style() string {
	s := "fill:" + hex(b.Color)
	if b.StrokeWidth > 0 {
		s += ";stroke:" + hex(b.Stroke) + ";stroke-width:" + num(b.StrokeWidth)
	}
	return s
}

func (b Bars) draw(c *canvas, f *frame) {
	for i, v := range b.Values {
		if !(v > 0) || math.IsInf(v, 0) {
			continue
		}
		lo, hi := b.base(i), b.base(i)+v
		y0, y1 := f.y(math.Min(hi, f.yr.max)), f.y(math.Max(lo, f.yr.min))
		if y1 <= y0 {
			continue
		}
		x := f.x(float64(i)) + b.Offset - b.Width/2
		c.rect(x, y0, b.Width, y1-y0, b.style())
	}
}

func (b Bars) thumb(c *canvas, x, y, w, h float64) { c.rect(x, y, w, h, b.style()) }

func (b Band) draw(c *canvas, f *frame) {
	x0, x1 := f.x(math.Max(math.Min(b.X0, b.X1), f.xr.min)), f.x(math.Min(math.Max(b.X0, b.X1), f.xr.max))
	y0, y1 := f.y(math.Min(math.Max(b.Y0, b.Y1), f.yr.max)), f.y(math.Max(math.Min(b.Y0, b.Y1), f.yr.min))
	if x1 > x0 && y1 > y0 {
		c.rect(x0, y0, x1-x0, y1-y0, "fill:"+hex(b.Color))
	}
}

func (b Band) thumb(c *canvas, x, y, w, h float64) { c.rect(x, y, w, h, "fill:"+hex(b.Color)) }

// canvas collects the SVG's elements.
type canvas struct{ b strings.Builder }

func (c *canvas) path(d, style string) {
	c.b.WriteString(`<path d="` + d + `" style="` + style + `"/>` + "\n")
}

func (c *canvas) rect(x, y, w, h float64, style string) {
	c.path("M"+num(x)+","+num(y)+"h"+num(w)+"v"+num(h)+"h"+num(-w)+"Z", style)
}

func (c *canvas) line(x0, y0, x1, y1 float64, col color.Color, width float64, dashes []float64) {
	c.path("M"+num(x0)+","+num(y0)+"L"+num(x1)+","+num(y1), strokeStyle(col, width, dashes))
}

// text writes s (escaped) with its baseline at y, anchored at x (start,
// middle or end), turned a quarter anticlockwise about (x, y) when up.
func (c *canvas) text(x, y, size float64, anchor string, up bool, s string) {
	fmt.Fprintf(&c.b, `<text x="%s" y="%s" font-size="%s" fill="%s"`, num(x), num(y), num(size), hex(textColor))
	if anchor != "start" {
		c.b.WriteString(` text-anchor="` + anchor + `"`)
	}
	if up {
		c.b.WriteString(` transform="rotate(-90 ` + num(x) + " " + num(y) + `)"`)
	}
	c.b.WriteString(">")
	_ = xml.EscapeText(&c.b, []byte(s)) // a strings.Builder does not fail
	c.b.WriteString("</text>\n")
}

func strokeStyle(col color.Color, width float64, dashes []float64) string {
	s := "fill:none;stroke:" + hex(col) + ";stroke-width:" + num(width)
	if len(dashes) > 0 {
		ds := make([]string, len(dashes))
		for i, d := range dashes {
			ds[i] = num(d)
		}
		s += ";stroke-dasharray:" + strings.Join(ds, ",")
	}
	return s
}

// hex is a colour as #RRGGBB (black when nil).
func hex(c color.Color) string {
	if c == nil {
		return "#000000"
	}
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// num writes a coordinate with at most two decimals.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
