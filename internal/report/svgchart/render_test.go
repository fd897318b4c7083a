package svgchart

import (
	"encoding/xml"
	"errors"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
)

var (
	blue = color.RGBA{R: 0x4e, G: 0x79, B: 0xa7, A: 0xff}
	red  = color.RGBA{R: 0xe1, G: 0x57, B: 0x59, A: 0xff}
)

// steps ticks every integer of the range, labelled.
type steps struct{}

func (steps) Ticks(min, max float64) []Tick {
	var ts []Tick
	for v := math.Ceil(min); v <= max; v++ {
		ts = append(ts, Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
	}
	return ts
}

// decades ticks a log axis at the powers of ten.
type decades struct{}

func (decades) Ticks(min, max float64) []Tick {
	var ts []Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		v := math.Pow(10, e)
		ts = append(ts, Tick{Value: v, Label: "1e" + strconv.FormatFloat(e, 'g', -1, 64)})
	}
	return ts
}

type text struct {
	x, y float64
	s    string
}

type svg struct {
	w, h  float64
	texts []text
	paths []string // their styles
}

// parse reads an SVG as XML (failing the test when it is not well formed)
// into its texts and paths.
func parse(t *testing.T, s string) svg {
	t.Helper()
	var out svg
	d := xml.NewDecoder(strings.NewReader(s))
	var cur *text
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, s)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch e.Name.Local {
			case "svg":
				var x, y float64
				if _, err := fmtSscan(attr["viewBox"], &x, &y, &out.w, &out.h); err != nil || attr["width"] != "100%" {
					t.Errorf("svg element %v: want width 100%% and a viewBox", attr)
				}
			case "text":
				x, _ := strconv.ParseFloat(attr["x"], 64)
				y, _ := strconv.ParseFloat(attr["y"], 64)
				cur = &text{x: x, y: y}
			case "path":
				out.paths = append(out.paths, attr["style"])
			}
		case xml.CharData:
			if cur != nil {
				cur.s += string(e)
			}
		case xml.EndElement:
			if e.Name.Local == "text" && cur != nil {
				out.texts = append(out.texts, *cur)
				cur = nil
			}
		}
	}
	return out
}

func fmtSscan(s string, vs ...*float64) (int, error) {
	f := strings.Fields(s)
	if len(f) != len(vs) {
		return 0, errors.New("fields")
	}
	for i, v := range vs {
		x, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return i, err
		}
		*v = x
	}
	return len(vs), nil
}

func (s svg) find(t *testing.T, label string) []text {
	t.Helper()
	var out []text
	for _, x := range s.texts {
		if x.s == label {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no text %q in %+v", label, s.texts)
	}
	return out
}

func TestTextWidth(t *testing.T) {
	for _, c := range []struct {
		s    string
		want float64
	}{{"0", 5.56}, {"1,000", 4*5.56 + 2.78}, {"iii", 3 * 2.22}, {"MMM", 3 * 8.33}, {"σ", 5.56}, {"表", 10}, {"", 0}} {
		if got := TextWidth(c.s, 10); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("TextWidth(%q, 10) = %g, want %g", c.s, got, c.want)
		}
	}
}

// A plot's texts (title, axis labels, legend) are escaped: the SVG is
// well-formed XML and reads back as the text given.
func TestRenderEscapes(t *testing.T) {
	evil := `<script>alert("x")</script> & 'y'`
	p := New(evil, "x "+evil, "y (ms)")
	p.X.Nominal(evil, "b")
	l := Line{XYs: []XY{{0, 1}, {1, 2}}, Color: blue}
	p.Add(l)
	p.AddLegend(evil, l)
	out, err := Render(680, 227, p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "<script") {
		t.Fatalf("unescaped text in %s", out)
	}
	if n := len(parse(t, out).find(t, evil)); n != 3 {
		t.Errorf("the text appears %d times, want 3 (title, category, legend)", n)
	}
	parse(t, out).find(t, "x "+evil)
}

func TestRenderRefusesAnUnlabelledAxis(t *testing.T) {
	p := New("t", "x (s)", "")
	p.Add(Line{XYs: []XY{{0, 0}, {1, 1}}})
	if _, err := Render(680, 227, p); err == nil || !strings.Contains(err.Error(), "no label") {
		t.Errorf("a plot without a y label: err %v", err)
	}
	if _, err := Render(680, 227); err == nil {
		t.Error("a chart of no plots drawn")
	}
}

// Ticks land where their values are: the range's ends at the plot area's
// edges, a log axis' 10 halfway between 1 and 100; ticks outside the
// range are left out.
func TestRenderTicksAndScales(t *testing.T) {
	p := New("", "x", "y")
	p.X.Ticker, p.Y.Ticker = steps{}, decades{}
	p.X.Min, p.X.Max = 0, 4
	p.Y.Log, p.Y.Min, p.Y.Max = true, 1, 100
	p.Add(Line{XYs: []XY{{0, 1}, {4, 100}}, Color: blue})
	s := parse(t, mustRender(t, 680, 227, p))
	x0, x4 := s.find(t, "0")[0].x, s.find(t, "4")[0].x
	if x2 := s.find(t, "2")[0].x; math.Abs(x2-(x0+x4)/2) > 0.02 {
		t.Errorf("x tick 2 at %g, want halfway between %g and %g", x2, x0, x4)
	}
	y1, y100 := s.find(t, "1e0")[0].y, s.find(t, "1e2")[0].y
	if y10 := s.find(t, "1e1")[0].y; math.Abs(y10-(y1+y100)/2) > 0.02 || y100 >= y1 {
		t.Errorf("y ticks 1, 10, 100 at %g, %g, %g: want 10 halfway, 100 on top", y1, y10, y100)
	}
	for _, x := range s.texts {
		if x.s == "5" || x.s == "1e3" {
			t.Errorf("tick %q outside the range drawn", x.s)
		}
	}
}

// The legend sits right of the plot area, beyond every other text; a wide
// one goes below the plots, the SVG growing by its height.
func TestRenderLegendPlacement(t *testing.T) {
	mk := func(name string) *Plot {
		p := New("title", "x (s)", "y (ms)")
		p.X.Ticker, p.Y.Ticker = steps{}, steps{}
		l := Line{XYs: []XY{{0, 0}, {3, 3}}, Color: blue}
		p.Add(l)
		p.AddLegend(name, l)
		return p
	}
	s := parse(t, mustRender(t, 680, 227, mk("series")))
	leg := s.find(t, "series")[0]
	for _, x := range s.texts {
		if x.s != "series" && x.x >= leg.x {
			t.Errorf("text %q at x %g, the legend at %g: want the legend right of all", x.s, x.x, leg.x)
		}
	}
	if s.h != 227 || leg.x < 0.85*680 {
		t.Errorf("short legend at x %g, height %g: want it right, the height 227", leg.x, s.h)
	}
	long := strings.Repeat("a long configuration name ", 5)
	s = parse(t, mustRender(t, 680, 227, mk(long)))
	leg = s.find(t, long)[0]
	if s.h <= 227 || leg.y <= 227 {
		t.Errorf("long legend at y %g, height %g: want it below the plots, the SVG taller", leg.y, s.h)
	}
}

// Plots of one figure share their plot area's left edge, whatever their
// tick labels' widths; bars centre on their category, side by side by
// their offsets, and a group too wide for its category is narrowed.
func TestRenderAlignsPlotsAndBars(t *testing.T) {
	top := New("t", "step", "ms")
	top.X.Nominal("a", "b")
	top.Y.Ticker = steps{}
	top.Add(Bars{Values: []float64{1, 2}, Color: blue, Width: 10, Offset: -5}, Bars{Values: []float64{1, 2}, Color: red, Width: 10, Offset: 5})
	bottom := New("", "step", "%")
	bottom.X.Nominal("a", "b")
	bottom.Y.Ticker, bottom.Y.Min, bottom.Y.Max = steps{}, 0, 100000
	bottom.Add(Line{XYs: []XY{{0, 1}, {1, 99999}}, Color: blue})
	s := parse(t, mustRender(t, 680, 363, top, bottom))
	as := s.find(t, "a")
	if len(as) != 2 || math.Abs(as[0].x-as[1].x) > 0.01 {
		t.Errorf("category a at %v: want the same x in both plots", as)
	}
	if n := strings.Count(strings.Join(s.paths, "\n"), "fill:#4E79A7"); n != 2 {
		t.Errorf("%d blue bars, want 2", n)
	}
	wide := New("t", "step", "ms")
	wide.X.Nominal("a", "b", "c")
	wide.Add(Bars{Values: []float64{1, 2, 3}, Color: blue, Width: 400})
	out := mustRender(t, 680, 227, wide)
	for _, d := range strings.Split(out, "\n") {
		if strings.Contains(d, "fill:#4E79A7") {
			i := strings.Index(d, "h")
			w, _ := strconv.ParseFloat(d[i+1:strings.Index(d, "v")], 64)
			if w > 0.9*680/3 {
				t.Errorf("a bar %g pt wide in a category of at most %g", w, 680.0/3)
			}
		}
	}
}

func mustRender(t *testing.T, w, h float64, plots ...*Plot) string {
	t.Helper()
	out, err := Render(w, h, plots...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
