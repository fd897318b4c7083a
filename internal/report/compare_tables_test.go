package report_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
)

// sweepOf is a configuration swept over axis at xs, its steps doing
// tp(x) events/s, each step's result made by decorate (nil: none).
func configSwept(name, id, workload, axis string, xs []float64, tp func(x float64) float64, decorate func(r *result.Run, x float64)) analysis.Candidate {
	sw := &result.Sweep{SchemaVersion: result.SchemaVersion, ID: id, Workload: workload, Axis: axis, Config: name, HostIsServer: true}
	var runs []*result.Run
	for _, x := range xs {
		step := fmt.Sprintf("%s %g", axis, x)
		sw.Steps = append(sw.Steps, result.SweepStep{Label: step, X: x, Throughput: tp(x), AvgMs: x, P95Ms: 2 * x, P99Ms: 3 * x})
		r := &result.Run{ID: id + step, Label: name + " " + step, Workload: workload, Config: name,
			Options: map[string]any{"sweep_step": step}, Load: result.Load{WarmupS: 1, DurationS: 5}}
		if decorate != nil {
			decorate(r, x)
		}
		runs = append(runs, r)
	}
	return analysis.Candidate{Name: name, Sweep: analysis.Analyze(sw, analysis.OptionsOf(sw)), Runs: runs}
}

func compareGolden(t *testing.T, name string, cs []analysis.Candidate, f report.Format) analysis.ConfigComparison {
	t.Helper()
	c, err := analysis.CompareConfigs(cs, "")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.CompareReport(&buf, c, f); err != nil {
		t.Fatal(err)
	}
	golden(t, name, buf.String())
	return c
}

// Configurations swept three times each: the table's means with the
// sweeps and the interval, the headline's lead with its interval.
func TestCompareRepeatsGolden(t *testing.T) {
	var cs []analysis.Candidate
	for i, k := range []float64{100, 103, 97} {
		cs = append(cs, configSwept("HCI", fmt.Sprintf("h%d", i), "oltp_read_write", "threads", []float64{1, 2, 4}, func(x float64) float64 { return 1.2 * k * x }, nil))
		cs = append(cs, configSwept("two-tier", fmt.Sprintf("t%d", i), "oltp_read_write", "threads", []float64{1, 2, 4}, func(x float64) float64 { return k * x }, nil))
	}
	c := compareGolden(t, "compare_repeats.golden.txt", cs, report.Text)
	if h := report.CompareHeadline(c)[0]; !strings.Contains(h, "+20 % over two-tier (400/s); 95 % interval +") || !strings.Contains(h, "over 3 and 3 sweeps") {
		t.Errorf("headline %q, want the lead with its interval", h)
	}
}

// An instance sweep: aggregate, per instance and fairness by instance
// count for each configuration.
func TestCompareInstancesGolden(t *testing.T) {
	fair := func(r *result.Run, x float64) {
		r.Fairness = &result.Fairness{Min: 90 - x, Max: 110 + x, CoVPct: x / 2}
	}
	hci := configSwept("HCI", "h", "oltp_read_write", "instances", []float64{4, 8, 16}, func(x float64) float64 { return 100 * x }, fair)
	two := configSwept("two-tier", "t", "oltp_read_write", "instances", []float64{4, 8, 16}, func(x float64) float64 { return 400 + 50*x }, nil)
	compareGolden(t, "compare_instances.golden.md", []analysis.Candidate{two, hci}, report.Markdown)
}

// TPC-C's figures and limit checks at the compared step, one row per
// configuration.
func TestCompareFiguresGolden(t *testing.T) {
	figs := func(tpmC float64, ok bool) func(r *result.Run, x float64) {
		return func(r *result.Run, x float64) {
			r.Figures = &result.Figures{Title: "TPC-C", Headline: []result.Figure{{Name: "tpmC", Value: tpmC * x}, {Name: "NOPM", Value: 0.99 * tpmC * x}, {Name: "efficiency", Value: 90, Unit: "%", Decimals: 1}},
				Checks: []result.Check{{Name: "new-order p90", Got: 4 * x, Limit: 5000, Unit: "ms", OK: true, Decimals: 2}, {Name: "delivery p90", Got: 5100, Limit: 5000, Unit: "ms", OK: ok, Decimals: 2}}}
		}
	}
	a := configSwept("X-IO ISE860 AFA", "a", "tpcc", "threads", []float64{15, 30}, func(x float64) float64 { return 10 * x }, figs(600, true))
	b := configSwept("HDD tier", "b", "tpcc", "threads", []float64{15, 30}, func(x float64) float64 { return 2 * x }, figs(120, false))
	compareGolden(t, "compare_figures.golden.txt", []analysis.Candidate{b, a}, report.Text)
}

// Storage patterns: each configuration's table with the read mixes as
// columns and per-VM and per-GB rows.
func TestCompareFileioGolden(t *testing.T) {
	pattern := func(scale float64) func(r *result.Run, x float64) {
		return func(r *result.Run, x float64) {
			iops := scale * (200 - x)
			r.Figures = &result.Figures{Title: "t1 o32 b16k, random, direct I/O", Column: fmt.Sprintf("%g%% read", x),
				Headline: []result.Figure{{Name: "IOPS", Value: iops}, {Name: "IOPS per VM", Value: iops / 50, Decimals: 1}, {Name: "IOPS per GB", Value: iops / 2048, Decimals: 2}}}
		}
	}
	nvme := configSwept("NVMe", "n", "fileio", "read", []float64{100, 70}, func(x float64) float64 { return 1000 * (200 - x) }, pattern(1000))
	sata := configSwept("SATA SSD", "s", "fileio", "read", []float64{100, 70}, func(x float64) float64 { return 200 * (200 - x) }, pattern(200))
	for _, cf := range []analysis.Candidate{nvme, sata} {
		cf.Sweep.OwnSteps = true
	}
	compareGolden(t, "compare_fileio.golden.txt", []analysis.Candidate{sata, nvme}, report.Text)
}

// A sweep's steps table names each step by its own label, not by the
// result's, which carries the sweep's --label (a study's is its id and
// step: "20261202T061642Z-06ec98/instances instances 4").
func TestStepsTableUsesTheStepsLabels(t *testing.T) {
	cf := configSwept("HCI", "h", "oltp_read_write", "instances", []float64{4, 8}, func(x float64) float64 { return 100 * x }, func(r *result.Run, x float64) {
		r.Label = "20261202T061642Z-06ec98/instances " + r.Options["sweep_step"].(string)
	})
	var buf bytes.Buffer
	if err := report.Steps(&buf, cf.Runs); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "06ec98") || !strings.Contains(buf.String(), "instances 8") {
		t.Errorf("steps table:\n%s", buf.String())
	}
}

// tpccFigures are TPC-C-like figures: a headline, a table, details,
// checks (one not met) and a note.
func tpccFigures(tpmC float64) *result.Figures {
	return &result.Figures{Title: "TPC-C, 1 warehouse(s)", Headline: []result.Figure{{Name: "tpmC", Value: tpmC}, {Name: "NOPM", Value: tpmC - 2}},
		Tables:  []result.Table{{Columns: []string{"transaction", "mix %"}, Rows: [][]string{{"new_order", "44.9"}, {"payment", "43.1"}}}},
		Details: []result.Figure{{Name: "rolled back New-Orders", Value: 1, Unit: "%", Decimals: 2}},
		Checks:  []result.Check{{Name: "delivery p90", Got: 5100, Limit: 5000, Unit: "ms", Decimals: 2}},
		Notes:   []string{"Delivery runs inline"}}
}

// A single run's page leads with its own figures (tpmC, the checks) and
// shows them whole before the charts; a sweep's, one row per step.
func TestHTMLShowsTheWorkloadsFigures(t *testing.T) {
	r := runWithSeries("tpcc run")
	r.Figures = tpccFigures(332)
	var b bytes.Buffer
	if err := report.HTML(&b, report.Doc{Runs: []*result.Run{r}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	answer, _, _ := strings.Cut(page[strings.Index(page, `id="answer"`):], "</section>")
	if !strings.Contains(answer, "TPC-C, 1 warehouse(s): tpmC 332, NOPM 330; limit checks: 0 of 1 met; not met: delivery p90 5100.00 ms (limit 5000 ms).") {
		t.Errorf("answer block: %s", answer)
	}
	figs, charts := strings.Index(page, "The workload's figures"), strings.Index(page, "<h2>Charts</h2>")
	if figs < 0 || charts < 0 || figs > charts || !strings.Contains(page, "<td>new_order</td><td>44.9</td>") || !strings.Contains(page, "rolled back New-Orders 1.00%") || !strings.Contains(page, "Delivery runs inline") {
		t.Errorf("figures section at %d, charts at %d:\n%s", figs, charts, page[max(figs, 0):])
	}
	var runs []*result.Run
	for i, tpmC := range []float64{100, 180} {
		s := runWithSeries(fmt.Sprintf("sweep step %d", i))
		s.Options = map[string]any{"sweep_step": fmt.Sprintf("threads %d", i+1)}
		s.Figures = tpccFigures(tpmC)
		runs = append(runs, s)
	}
	b.Reset()
	if err := report.HTML(&b, report.Doc{Runs: runs}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<td>threads 2</td><td>180</td><td>178</td><td>0 of 1 met") {
		t.Errorf("no row per step in:\n%s", b.String())
	}
}

// Each configuration's database's view at the compared step: its wait
// classes, top wait, commits and server CPU, one row per configuration.
func TestCompareShowsTheServersWaits(t *testing.T) {
	server := func(lockShare float64) func(r *result.Run, x float64) {
		return func(r *result.Run, x float64) {
			locks := int64(100 * lockShare * x)
			r.ServerStats = &result.ServerStats{Source: "pg_stat_activity", Samples: 100, Active: 100*int64(x) + locks, DurationS: 10,
				Waits:    []result.Wait{{Type: "CPU", Samples: 100 * int64(x)}, {Type: "Lock", Event: "transactionid", Samples: locks}},
				Counters: map[string]float64{"pg_stat_database.xact_commit": 1000 * x}}
			r.Host = &result.Host{CPUs: 2, ServerCPU: []result.ServerCPU{{Server: "postgres (PID 1)", UsedCPUs: 0.5 * x}}}
		}
	}
	a := configSwept("hot", "a", "oltp_update_non_index", "threads", []float64{1, 4}, func(x float64) float64 { return 100 * x }, server(3))
	b := configSwept("spread", "b", "oltp_update_non_index", "threads", []float64{1, 4}, func(x float64) float64 { return 150 * x }, server(0))
	c, err := analysis.CompareConfigs([]analysis.Candidate{a, b}, "")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.CompareReport(&buf, c, report.Text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"What the database's sessions did at threads 4 (average active sessions)",
		"configuration  active   CPU  row/table locks                top wait  commits/s  server CPUs",
		"   spread    4.00  4.00                0             on CPU 100%        400         2.00",
		"      hot   16.00  4.00            12.00  Lock:transactionid 75%        400         2.00"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, buf.String())
		}
	}
}
