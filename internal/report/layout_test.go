package report

import (
	"bytes"
	"fmt"
	"image/color"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/report/svgchart"
	"github.com/rightsize/rightsize/internal/result"
)

// The first eight series of a chart have eight different colours, solid;
// past eight each series has a dash pattern, and no two series share
// both colour and pattern.
func TestPaletteNoRepeats(t *testing.T) {
	seen := map[string]int{}
	colours := map[color.Color]int{}
	for i := 0; i < 32; i++ {
		c, d := seriesStyle(i)
		if i < 8 {
			if d != nil {
				t.Errorf("series %d: dashed %v, want solid within the first eight", i, d)
			}
			if j, ok := colours[c]; ok {
				t.Errorf("series %d repeats the colour of series %d", i, j)
			}
			colours[c] = i
		} else if len(d) == 0 {
			t.Errorf("series %d: solid, want a dash pattern past eight series", i)
		}
		k := fmt.Sprint(c, d)
		if j, ok := seen[k]; ok {
			t.Errorf("series %d looks like series %d (%s)", i, j, k)
		}
		seen[k] = i
	}
	if c, _ := seriesStyle(0); c == colWarm {
		t.Error("the warm-up's shade is a series colour")
	}
}

func opsOf(kinds ...string) []result.Op {
	ops := make([]result.Op, len(kinds))
	for i, k := range kinds {
		name := fmt.Sprintf("%s_%d", k, i)
		if k == "event" {
			name = "transaction"
		}
		ops[i] = result.Op{Name: name, Kind: k, Count: 10, Histogram: "h"}
	}
	return ops
}

// No percentile chart holds more than six series: TPC-C's event and five
// transactions fit in one; oltp_read_write's twelve statements are split
// by kind, reads before writes, each chart keeping the event's line.
func TestGroupOpsAtMostSix(t *testing.T) {
	readWrite := opsOf("event", "other", "read", "read", "read", "read", "read", "write", "write", "write", "write", "other")
	for _, c := range []struct {
		name  string
		ops   []result.Op
		kinds []string
	}{
		{"tpcc", opsOf("event", "write", "write", "read", "write", "read"), []string{""}},
		{"oltp_read_write", readWrite, []string{"read", "write", "other"}},
		{"twenty reads", opsOf(append([]string{"event"}, slices.Repeat([]string{"read"}, 20)...)...), []string{"read", "read", "read", "read"}},
		{"no event", opsOf(slices.Repeat([]string{"write"}, 7)...), []string{"write", "write"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			gs := groupOps(c.ops)
			var kinds []string
			count := map[string]int{}
			for _, g := range gs {
				kinds = append(kinds, g.Kind)
				if len(g.Ops) > maxSeries {
					t.Errorf("chart %q holds %d series, want at most %d", g.Kind, len(g.Ops), maxSeries)
				}
				if c.ops[0].Kind == "event" && g.Ops[0].Kind != "event" {
					t.Errorf("chart %q lacks the event's line first", g.Kind)
				}
				for _, op := range g.Ops {
					count[op.Name]++
				}
			}
			if !slices.Equal(kinds, c.kinds) {
				t.Errorf("charts %q, want %q", kinds, c.kinds)
			}
			for _, op := range c.ops {
				want := 1
				if op.Kind == "event" {
					want = len(gs)
				}
				if count[op.Name] != want {
					t.Errorf("%s is in %d charts, want %d", op.Name, count[op.Name], want)
				}
			}
		})
	}
	if gs := groupOps([]result.Op{{Name: "x", Kind: "read"}}); gs != nil {
		t.Errorf("operations without a histogram make charts: %v", gs)
	}
}

func TestShortTarget(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://postgres@127.0.0.1:5432/rightsize_test?sslmode=disable": "127.0.0.1:5432/rightsize_test",
		"mysql://root@db.example.com:3306/sbtest":                           "db.example.com:3306/sbtest",
		"postgres://bench@localhost/bench":                                  "localhost/bench",
		"sqlite:rightsize-data/sbtest.db":                                   "sqlite:sbtest.db",
		"sqlite:file:/var/tmp/a/b.db?_journal=WAL":                          "sqlite:b.db",
		"4 × postgres://u@db1:5432/sbtest_1, …":                             "4 × db1:5432/sbtest_1, …",
		"/dev/nvme0n1": "/dev/nvme0n1",
		"/mnt/a/very/long/path/of/the/storage/under/test/fileio.dat": "…/fileio.dat",
		"": "",
	} {
		if got := ShortTarget(in); got != want {
			t.Errorf("ShortTarget(%q) = %q, want %q", in, got, want)
		}
	}
}

func sweepStep(threads int) *result.Run {
	return &result.Run{ID: "sw1", Label: fmt.Sprintf("threads %d", threads), Workload: "oltp_read_write",
		Tool:      result.Tool{Name: "rightsize", Version: "test"},
		Load:      result.Load{Mode: "closed", Threads: threads, DurationS: 3, WarmupS: 1, IntervalS: 1},
		Instances: []result.InstancePart{{Target: "sqlite:rightsize-data/sbtest.db", Notes: []string{"SQLite allows one writer", "WAL mode"}}},
		Options:   map[string]any{"table-size": 1000, "tables": 1, "sweep_step": fmt.Sprintf("threads %d", threads)},
	}
}

// A sweep's steps share most parameters: those are listed once, and per
// step only what differs (the load and the sweep_step option), as are
// notes.
func TestParamsOnce(t *testing.T) {
	runs := []*result.Run{sweepStep(1), sweepStep(2), sweepStep(4)}
	runs[2].Instances[0].Notes = append(runs[2].Instances[0].Notes, "4 threads queued on the lock")
	v := paramsOnce(runs)
	if !slices.Equal(v.Keys, []string{"load", "sweep_step"}) {
		t.Errorf("differing parameters %q, want load and sweep_step", v.Keys)
	}
	shared := map[string]string{}
	for _, e := range v.Shared.Entries {
		shared[e[0]] = e[1]
	}
	if shared["options"] != "table-size=1000 tables=1" || shared["workload"] != "oltp_read_write" || shared["load"] != "" {
		t.Errorf("shared parameters %q", v.Shared.Entries)
	}
	if !slices.Equal(v.Shared.Notes, []string{"SQLite allows one writer", "WAL mode"}) {
		t.Errorf("shared notes %q", v.Shared.Notes)
	}
	if len(v.Rows) != 3 || !slices.Equal(v.Rows[1].Cells, []string{"closed loop, 2 threads", "threads 2"}) ||
		len(v.Rows[0].Notes) != 0 || !slices.Equal(v.Rows[2].Notes, []string{"4 threads queued on the lock"}) {
		t.Errorf("per-step rows %+v", v.Rows)
	}
	var b bytes.Buffer
	if err := HTML(&b, Doc{Title: "t", Runs: runs, Tool: "rightsize test"}); err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]int{"SQLite allows one writer": 1, "table-size=1000": 1, "closed loop, 4 threads": 1, "4 threads queued on the lock": 1} {
		if n := strings.Count(b.String(), text); n != want {
			t.Errorf("the report shows %q %d times, want %d", text, n, want)
		}
	}
	if one := paramsOnce(runs[:1]); one.Keys != nil || one.Shared.Name != "threads 1" || len(one.Shared.Entries) < 6 {
		t.Errorf("one run's parameters: %+v", one)
	}
}

// The runs table shows a short target and keeps the full one on hover.
func TestHTMLShortTargetWithTitle(t *testing.T) {
	r := sweepStep(1)
	r.Instances[0].Target = "postgres://bench@db-primary.example.com:5432/sbtest?sslmode=disable"
	var b bytes.Buffer
	if err := HTML(&b, Doc{Title: "t", Runs: []*result.Run{r}, Tool: "rightsize test"}); err != nil {
		t.Fatal(err)
	}
	if want := `<td title="postgres://bench@db-primary.example.com:5432/sbtest?sslmode=disable">db-primary.example.com:5432/sbtest</td>`; !strings.Contains(b.String(), want) {
		t.Errorf("runs table lacks %s", want)
	}
}

func TestTickLabels(t *testing.T) {
	for _, c := range []struct {
		v, step float64
		want    string
	}{
		{0, 500, "0"}, {1500, 500, "1,500"}, {2000, 1000, "2,000"}, {25000, 5000, "25k"}, {12500, 500, "12.5k"},
		{2.5e6, 5e5, "2.5M"}, {0.5, 0.5, "0.5"}, {0.02, 0.01, "0.02"}, {1, 0.2, "1"}, {-0.0, 0.1, "0"},
	} {
		if got := tickLabel(c.v, c.step); got != c.want {
			t.Errorf("tickLabel(%g, %g) = %q, want %q", c.v, c.step, got, c.want)
		}
	}
	for _, r := range [][2]float64{{0, 2498}, {0, 100}, {0, 0.7}, {3, 97}} {
		var labels []string
		for _, tk := range (niceTicks{}).Ticks(r[0], r[1]) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if len(labels) < 3 || len(labels) > 11 {
			t.Errorf("range %v: labels %q, want 3 to 11 at 1-2-5 steps", r, labels)
		}
	}
}

// Every chart's axes are labelled; a plot without a label is refused, so a
// new chart cannot ship without one. The legend is drawn outside the plot
// area, to the right of it.
func TestChartsLabelAxesLegendOutside(t *testing.T) {
	p := newPlot("t", "x (s)", "")
	if _, err := svgOf(chartH, p); err == nil || !strings.Contains(err.Error(), "no label") {
		t.Errorf("a plot without a y label: err %v", err)
	}
	h := hist.New()
	for i := 1; i <= 100; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	snap, err := h.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	svg, err := opPercentileChart("t", []result.Op{{Name: "a_long_operation_name", Count: 1, Histogram: snap}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(svg, `<svg width="100%" viewBox=`) {
		t.Errorf("the SVG does not scale to the page: %.80s", svg)
	}
	// A short legend sits right of the plot area, beyond the data's
	// right edge (the x axis ends at chartW less the legend's width).
	q := newPlot("t", "x (s)", "y (ms)")
	l := svgchart.Line{XYs: []svgchart.XY{{X: 0, Y: 0}, {X: 1, Y: 1}}}
	q.Add(l)
	q.AddLegend("series", l)
	out, err := svgOf(chartH, q)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<text x="([0-9.]+)"[^>]*>series</text>`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no legend text in %s", out)
	}
	x, _ := strconv.ParseFloat(m[1], 64)
	if x < 0.85*float64(chartW) {
		t.Errorf("legend text at x %.1f pt of %.1f: inside the plot area", x, float64(chartW))
	}
}
