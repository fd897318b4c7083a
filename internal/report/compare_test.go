package report_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
)

// configSweep is configuration name swept over rate multiples 1x..4x: it
// scales up to its ceiling (per 1x), then its p99 climbs.
func configSweep(name string, perX, ceiling float64) analysis.Candidate {
	sw := &result.Sweep{SchemaVersion: result.SchemaVersion, ID: "sw-" + strings.ToLower(name[:1]), Workload: "oltp_read_write", Axis: "rate",
		BaselineRate: 1000, HostIsServer: true, CPUTargetPct: 80}
	var runs []*result.Run
	for _, x := range []float64{1, 2, 3, 4} {
		step := "rate " + strconv.FormatFloat(x, 'g', -1, 64) + "x"
		tp := min(perX*x, ceiling)
		busy := min(95, 30*x)
		sw.Steps = append(sw.Steps, result.SweepStep{Label: step, X: x, Throughput: tp, AvgMs: 2 * x * x * 7436 / ceiling, P95Ms: 4 * x * x, P99Ms: 6 * x * x * x * 7436 / ceiling,
			Host: &result.Host{CPUs: 2, CPU: result.CPUPct{User: busy * 0.8, System: busy * 0.2, Idle: 100 - busy}}})
		runs = append(runs, &result.Run{ID: name + step, Label: name + " " + step, Workload: sw.Workload,
			Options: map[string]any{"sweep_step": step, "tables": 4}, Load: result.Load{Mode: "open", WarmupS: 10, DurationS: 60}})
	}
	return analysis.Candidate{Name: analysis.ConfigOf(sw, runs), Sweep: analysis.Analyze(sw, analysis.OptionsOf(sw)), Runs: runs}
}

func twoConfigs(t *testing.T) analysis.ConfigComparison {
	t.Helper()
	a := configSweep("24 vCPU", 3000, 7436)
	b := configSweep("12 vCPU", 3000, 6300)
	b.Runs[0].Options["tables"] = 8
	c, err := analysis.CompareConfigs([]analysis.Candidate{b, a}, "rate 3x")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCompareHeadline(t *testing.T) {
	h := report.CompareHeadline(twoConfigs(t))
	if want := "24 vCPU: 7,436/s at rate 3x, +18 % over 12 vCPU (6,300/s)."; h[0] != want {
		t.Errorf("headline %q, want %q", h[0], want)
	}
	if len(h) != 3 || !strings.HasPrefix(h[1], "24 vCPU: knee at rate ") || !strings.HasPrefix(h[2], "12 vCPU: knee at rate ") {
		t.Errorf("knee lines %q", h[1:])
	}
}

// The comparison's tables in Markdown, CSV and text.
func TestCompareTablesGolden(t *testing.T) {
	c := twoConfigs(t)
	for _, f := range []struct {
		name string
		f    report.Format
	}{{"compare.golden.md", report.Markdown}, {"compare.golden.csv", report.CSV}, {"compare.golden.txt", report.Text}} {
		var buf bytes.Buffer
		if err := report.CompareReport(&buf, c, f.f); err != nil {
			t.Fatal(err)
		}
		golden(t, f.name, buf.String())
	}
}

// The headline leads the text and Markdown forms.
func TestCompareReportHeadlineFirst(t *testing.T) {
	c := twoConfigs(t)
	for _, f := range []report.Format{report.Text, report.Markdown} {
		var buf bytes.Buffer
		if err := report.CompareReport(&buf, c, f); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(buf.String(), "\n")
		if !strings.Contains(first, "24 vCPU: 7,436/s at rate 3x") {
			t.Errorf("format %d starts with %q, not the headline", f, first)
		}
	}
}

func TestSortConfigs(t *testing.T) {
	c := twoConfigs(t)
	if err := report.SortConfigs(c.Rows, "config"); err != nil || c.Rows[0].Config != "12 vCPU" {
		t.Errorf("by config: %v, first %q", err, c.Rows[0].Config)
	}
	if err := report.SortConfigs(c.Rows, "throughput"); err != nil || c.Rows[0].Config != "24 vCPU" || c.Rows[0].Rank != 1 {
		t.Errorf("by throughput: %v, first %q", err, c.Rows[0].Config)
	}
	if err := report.SortConfigs(c.Rows, "target"); err == nil || !strings.Contains(err.Error(), "config, throughput, avg or p99") {
		t.Errorf("by target: %v, want an error naming the keys", err)
	}
}

func TestGrouped(t *testing.T) {
	for v, want := range map[float64]string{7436: "7,436", 6300.4: "6,300", 1234567: "1,234,567", 999: "999", 42.51: "42.5", -12345: "-12,345"} {
		if got := report.Grouped(v); got != want {
			t.Errorf("Grouped(%g) = %q, want %q", v, got, want)
		}
	}
}

// The HTML page: the headline before the first chart, one overlaid chart
// per figure, configuration names escaped, no script.
func TestCompareHTML(t *testing.T) {
	c := twoConfigs(t)
	c.Rows[1].Config = "<b>12 vCPU</b>"
	c.Configs[0].Name = "<b>12 vCPU</b>"
	var b bytes.Buffer
	extra := &result.Run{ID: "r9", Label: "a run on its own", Workload: "oltp_read_write"}
	if err := report.CompareHTML(&b, report.CompareDoc{Comparison: c, Runs: []*result.Run{extra}, Tool: "rightsize test"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	head, svg := strings.Index(out, `class="headline"`), strings.Index(out, "<svg")
	if head < 0 || svg < 0 || head > svg {
		t.Errorf("headline at %d, first chart at %d: the headline must come first", head, svg)
	}
	if n := strings.Count(out, "<svg"); n != 5 {
		t.Errorf("%d charts, want 5 (the grouped bars, throughput, avg, p99, CPU)", n)
	}
	for _, want := range []string{"Throughput by rate", "p99 response time by rate", "Host CPU busy by rate", "Configurations at rate 3x",
		"&lt;b&gt;12 vCPU&lt;/b&gt;", "tables (12 vCPU 8, 24 vCPU 4)", "<h2>Runs</h2>", "a run on its own"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The host's CPU is a share: its axis ends at 100 %.
	cpu := out[strings.Index(out, "Host CPU busy by"):]
	cpu = cpu[:strings.Index(cpu, "</figure>")]
	if !strings.Contains(cpu, ">100</text>") || strings.Contains(cpu, ">120</text>") {
		t.Errorf("the CPU chart's axis does not end at 100 %%")
	}
	if strings.Contains(out, "<b>12 vCPU</b>") || strings.Contains(out, "<script") {
		t.Errorf("page has an unescaped name or a script")
	}
}

// A comparison over the workload's own steps (fileio's read mixes) names
// the winner and no knee: none is sought there.
func TestCompareHeadlineOwnSteps(t *testing.T) {
	own := func(name string, iops float64) analysis.Candidate {
		sw := &result.Sweep{ID: "sw-" + name, Workload: "fileio", Axis: "read %", OwnSteps: true, Config: name}
		for _, x := range []float64{100, 90, 70} {
			sw.Steps = append(sw.Steps, result.SweepStep{Label: "read " + strconv.FormatFloat(x, 'g', -1, 64) + "%", X: x, Throughput: iops * x / 100})
		}
		return analysis.Candidate{Name: name, Sweep: analysis.Analyze(sw, analysis.OptionsOf(sw))}
	}
	c, err := analysis.CompareConfigs([]analysis.Candidate{own("t1 o32 b16k", 30000), own("t1 o32 b4k", 50000)}, "")
	if err != nil {
		t.Fatal(err)
	}
	h := report.CompareHeadline(c)
	if len(h) != 1 || !strings.HasPrefix(h[0], "t1 o32 b4k: ") || strings.Contains(strings.Join(h, " "), "knee") {
		t.Errorf("headline %q: want the winner alone, no knee", h)
	}
}

// compareHTML is the comparison page of c, with runs beside it.
func compareHTML(t *testing.T, c analysis.ConfigComparison, runs ...*result.Run) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.CompareHTML(&b, report.CompareDoc{Comparison: c, Runs: runs, Tool: "rightsize test"}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// figures are the page's charts: each <figure> from its caption to its end.
func figures(out string) []string {
	var fs []string
	for _, f := range strings.Split(out, `<figure class="chart">`)[1:] {
		fs = append(fs, f[:strings.Index(f, "</figure>")])
	}
	return fs
}

// The comparison's first chart, after the headline and before the
// overlaid curves: each configuration's average response time as bars
// grouped by step, the host's CPU busy as lines under it, a legend of the
// configurations' names.
func TestCompareHTMLGroupedBars(t *testing.T) {
	c := twoConfigs(t)
	c.Configs[0].Name = "<b>12 vCPU</b>"
	out := compareHTML(t, c)
	const title = "Average response time (bars) and host CPU busy (lines) by rate"
	head, bars, curves := strings.Index(out, `class="headline"`), strings.Index(out, title), strings.Index(out, "Throughput by rate")
	if head < 0 || bars < head || curves < bars {
		t.Fatalf("headline at %d, grouped bars at %d, throughput curves at %d: want them in that order", head, bars, curves)
	}
	fs := figures(out)
	if len(fs) == 0 || !strings.Contains(fs[0], title) {
		t.Fatalf("the first chart is not the grouped bars")
	}
	for _, want := range []string{">24 vCPU</text>", ">&lt;b&gt;12 vCPU&lt;/b&gt;</text>", ">host CPU busy (%)</text>", ">100</text>",
		">1x</text>", ">4x</text>", ">avg response time (ms)</text>"} {
		if !strings.Contains(fs[0], want) {
			t.Errorf("the grouped chart lacks %s", want)
		}
	}
	// Two bars a step: eight bars, each a filled path of one of the two
	// first colours.
	if a, b := strings.Count(fs[0], "fill:#4E79A7"), strings.Count(fs[0], "fill:#F28E2B"); a < 4 || b < 4 {
		t.Errorf("bars: %d of the first colour, %d of the second, want 4 and 4 (and the legend's)", a, b)
	}
}

// Without host samples the grouped chart is the bars alone.
func TestCompareHTMLGroupedBarsNoHost(t *testing.T) {
	c := twoConfigs(t)
	for _, cf := range c.Configs {
		for i := range cf.Sweep.Steps {
			cf.Sweep.Steps[i].Host = nil
		}
	}
	fs := figures(compareHTML(t, c))
	if len(fs) == 0 || !strings.Contains(fs[0], "Average response time by rate") || strings.Contains(fs[0], "host CPU") {
		t.Errorf("without host samples, the first chart is not the bars alone")
	}
}

var svgText = regexp.MustCompile(`<text x="([-0-9.e]+)"[^>]*>([^<]*)</text>`)

// Every chart of the comparison is drawn by svgOf: it scales to the page
// and its legend (the configurations' names) lies right of the plot area,
// beyond every other text of the chart (tick labels included).
func TestCompareHTMLLegendsOutside(t *testing.T) {
	c := twoConfigs(t)
	out := compareHTML(t, c)
	if n, m := strings.Count(out, "<svg"), strings.Count(out, `<svg width="100%" viewBox=`); n == 0 || n != m {
		t.Errorf("%d of %d charts scale to the page's width", m, n)
	}
	names := map[string]bool{}
	for _, cf := range c.Configs {
		names[cf.Name] = true
	}
	for i, f := range figures(out) {
		legend, other := -1.0, 0.0
		for _, m := range svgText.FindAllStringSubmatch(f, -1) {
			x, _ := strconv.ParseFloat(m[1], 64)
			switch {
			case names[m[2]] && (legend < 0 || x < legend):
				legend = x
			case !names[m[2]]:
				other = max(other, x)
			}
		}
		if legend < 0 || legend <= other {
			t.Errorf("chart %d: legend at x %.1f, other text up to %.1f: want the legend right of the plot", i+1, legend, other)
		}
	}
}

// The runs table shows a short target, the full one on hover.
func TestCompareHTMLShortTarget(t *testing.T) {
	r := &result.Run{ID: "r9", Label: "a run on its own", Workload: "oltp_read_write",
		Instances: []result.InstancePart{{Target: "postgres://bench@db-primary.example.com:5432/sbtest?sslmode=disable"}}}
	out := compareHTML(t, twoConfigs(t), r)
	if want := `<td title="postgres://bench@db-primary.example.com:5432/sbtest?sslmode=disable">db-primary.example.com:5432/sbtest</td>`; !strings.Contains(out, want) {
		t.Errorf("runs table lacks %s", want)
	}
}

// The curves' axes say their units: the sweep's axis title, the event the
// results count per second.
func TestCompareHTMLAxisUnits(t *testing.T) {
	c := twoConfigs(t)
	for _, cf := range c.Configs {
		for _, r := range cf.Runs {
			r.Event = "transaction"
		}
	}
	fs := figures(compareHTML(t, c))
	for _, f := range fs {
		if !strings.Contains(f, ">rate (multiple of the baseline)</text>") {
			t.Errorf("chart %.60q: no axis title with its unit", f)
		}
	}
	if len(fs) < 1 || !strings.Contains(strings.Join(fs, ""), ">throughput (transaction/s)</text>") {
		t.Errorf("no throughput axis in transaction/s")
	}
}

// The curves' x axis is ticked once at each step, however many
// configurations swept it (a label drawn once per configuration looks bold).
func TestCompareHTMLStepTicksOnce(t *testing.T) {
	for i, f := range figures(compareHTML(t, twoConfigs(t)))[1:] {
		if n := strings.Count(f, ">3</text>"); n != 1 {
			t.Errorf("curves %d: the step 3x ticked %d times, want once", i+1, n)
		}
	}
}
