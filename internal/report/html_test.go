package report_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
)

const evil = `<script>alert("x")</script><img src=x onerror=alert(1)>`

// runWithSeries is a run with intervals (warm-up and measured) and an
// operation histogram, so that every chart has data.
func runWithSeries(label string) *result.Run {
	r := closedRun()
	r.ID, r.Label = "20261130T000000Z-abcdef", label
	for i := 1; i <= 20; i++ {
		phase := "measure"
		if i <= 5 {
			phase = "warmup"
		}
		r.Intervals = append(r.Intervals, result.Interval{EndS: float64(i), DurationS: 1, Phase: phase, Rate: 1000 + float64(i*10),
			Latency: result.Latency{P99Ms: 4 + float64(i%3)}})
	}
	h := hist.New()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * 10 * time.Microsecond)
	}
	snap, err := h.Snapshot()
	if err != nil {
		panic(err)
	}
	for i := range r.Ops {
		r.Ops[i].Histogram = snap
	}
	return r
}

func sweepOf(runs ...*result.Run) *analysis.Result {
	sw := &result.Sweep{SchemaVersion: result.SchemaVersion, ID: "sw1", Workload: "oltp_read_write", Axis: "threads", HostIsServer: true, CPUTargetPct: 80}
	for i, r := range runs {
		x := float64(int(1) << i)
		sw.Steps = append(sw.Steps, result.SweepStep{Label: r.Label, X: x, Throughput: 100 * x / (1 + 0.1*(x-1)), AvgMs: 1 + x, P95Ms: 2 + x, P99Ms: 3 * x,
			Host: &result.Host{CPUs: 2, CPU: result.CPUPct{User: 10 * x, System: 5 * x, Iowait: 1, Steal: 0.5, Idle: 100 - 15*x - 1.5}}})
	}
	return analysis.Analyze(sw, analysis.OptionsOf(sw))
}

// Every chart of a sweep report is present as inline SVG, with no script
// and no reference to the network.
func TestHTMLChartsSelfContained(t *testing.T) {
	var runs []*result.Run
	for _, l := range []string{"threads 1", "threads 2", "threads 4", "threads 8"} {
		runs = append(runs, runWithSeries(l))
	}
	var b bytes.Buffer
	if err := report.HTML(&b, report.Doc{Title: "t", Runs: runs, Sweep: sweepOf(runs...), Tool: "rightsize test"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// 2 sweep charts + one timeline and one percentile chart per run.
	if n := strings.Count(out, "<svg"); n != 2+2*len(runs) {
		t.Errorf("%d SVG charts, want %d", n, 2+2*len(runs))
	}
	for _, want := range []string{"Response time and host CPU by step", "Throughput by threads", "USL fit", "knee (", "warm-up",
		"Latency percentiles: threads 1", "point_select", "The knee is at", "<table>"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(out, "inst cov%") {
		t.Error("fairness columns in the steps of a sweep of one instance")
	}
	// A step of several instances: their fairness in the step table.
	sw := sweepOf(runs...)
	sw.Sweep.Steps[3].Fairness = &result.Fairness{Min: 45.43, Max: 51.2, CoVPct: 2.66}
	b.Reset()
	if err := report.HTML(&b, report.Doc{Title: "t", Runs: runs, Sweep: sw, Tool: "rightsize test"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<th>slowest inst/s</th><th>fastest inst/s</th><th>inst cov%</th>", "<td>45.4</td><td>51.2</td><td>2.7</td>"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// The SVG namespace names are identifiers, not links.
	offline := strings.NewReplacer(`xmlns="http://www.w3.org/2000/svg"`, "", `xmlns:xlink="http://www.w3.org/1999/xlink"`, "").Replace(out)
	for _, bad := range []string{"<script", "http://", "https://", "src=\"//"} {
		if strings.Contains(offline, bad) {
			t.Errorf("report contains %q: it must open offline with no script", bad)
		}
	}
}

// A label and a database message with markup render as text, in the HTML
// and inside the SVG charts.
func TestHTMLEscapes(t *testing.T) {
	r := runWithSeries(evil)
	r.Instances[0].Notes = []string{"server said: " + evil}
	r.Partial, r.PartialReason = true, "error: "+evil
	r.Options = map[string]any{"tables": evil}
	var b bytes.Buffer
	if err := report.HTML(&b, report.Doc{Title: evil, Runs: []*result.Run{r}, Sweep: sweepOf(r), Tool: "rightsize test"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "<script>alert") || strings.Contains(out, "<img src=x") {
		t.Fatalf("markup from a label or a database message was not escaped:\n%s", out)
	}
	if n := strings.Count(out, "&lt;script&gt;alert("); n < 5 {
		t.Errorf("escaped label appears %d times, want it in the title, tables, parameters, notes and charts", n)
	}
}

func TestRunTableFormats(t *testing.T) {
	a, b, c := closedRun(), openRun(), multiRun()
	a.Label, c.Label = "flash", "hybrid, tier 2"
	rows := report.RunRows([]*result.Run{a, b, c})
	if err := report.SortRuns(rows, "throughput"); err != nil {
		t.Fatal(err)
	}
	if rows[0].Label != "pg17 tuned" {
		t.Errorf("sorted by throughput, first is %q", rows[0].Label)
	}
	if err := report.SortRuns(rows, "colour"); err == nil {
		t.Error("unknown sort column accepted")
	}
	for _, f := range []struct {
		name   string
		format report.Format
	}{{"runs.golden.md", report.Markdown}, {"runs.golden.csv", report.CSV}, {"runs.golden.txt", report.Text}} {
		var buf bytes.Buffer
		if err := report.RunTable(&buf, rows, f.format); err != nil {
			t.Fatal(err)
		}
		golden(t, f.name, buf.String())
	}
	var buf bytes.Buffer
	if err := report.SweepTable(&buf, sweepOf(a, b, c), report.CSV); err != nil {
		t.Fatal(err)
	}
	golden(t, "sweep_steps.golden.csv", buf.String())
}

// TestHTMLWhereItRan: the parameters name each target's server and the
// generator's machine.
func TestHTMLWhereItRan(t *testing.T) {
	r := runWithSeries("")
	r.Instances[0].ServerProduct, r.Instances[0].ServerVersion = "PostgreSQL", "15.20 (Debian 15.20-0+deb12u1)"
	r.Machine = &result.Machine{Hostname: "loadgen", CPUModel: "AMD EPYC 7763 64-Core Processor"}
	r.Config = "24 vCPU"
	var b bytes.Buffer
	if err := report.HTML(&b, report.Doc{Title: "t", Runs: []*result.Run{r}, Tool: "rightsize test"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"postgres://bench@localhost/bench (PostgreSQL 15.20)", "loadgen (AMD EPYC 7763 64-Core Processor)", "<dt>configuration</dt><dd>24 vCPU</dd>"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
