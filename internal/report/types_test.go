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

// typedRun is a run of three transaction types, two of them frequent.
func typedRun() *result.Run {
	r := closedRun()
	r.Summary.Types = []result.Type{
		{Name: "new_order", Count: 450, SharePct: 45, AvgMs: 10, P95Ms: 20, P99Ms: 30, Frequent: true},
		{Name: "payment", Count: 430, SharePct: 43, AvgMs: 5, P95Ms: 9, P99Ms: 12, Frequent: true},
		{Name: "delivery", Count: 120, SharePct: 12, AvgMs: 50, P95Ms: 90, P99Ms: 99},
	}
	r.Summary.SlowestFrequent = "new_order"
	return r
}

func TestSummaryListsTheTransactionTypes(t *testing.T) {
	var b bytes.Buffer
	if err := report.Summary(&b, typedRun()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"transaction types (* frequent: the most used that make up 80 % of the mix); the slowest of the frequently used by p95: new_order:",
		"new_order *    450     45.0  10.000  20.000  30.000       0",
		"delivery    120     12.0  50.000  90.000  99.000       0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// One type (the event) is the headline: no table.
	one := closedRun()
	one.Summary.Types = []result.Type{{Name: "transaction", Count: 10, SharePct: 100, Frequent: true}}
	b.Reset()
	if err := report.Summary(&b, one); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "transaction types") {
		t.Errorf("a table of one type:\n%s", b.String())
	}
}

func TestSweepShowsEachTypeByStep(t *testing.T) {
	var runs []*result.Run
	for _, l := range []string{"threads 1", "threads 2"} {
		runs = append(runs, runWithSeries(l))
	}
	sw := sweepOf(runs...)
	for i := range sw.Steps {
		k := float64(i + 1)
		sw.Steps[i].Types = []result.Type{
			{Name: "new_order", Count: 450, P95Ms: 20 * k, Frequent: true},
			{Name: "payment", Count: 430, P95Ms: 9 * k * k, Frequent: true},
			{Name: "delivery", Count: 120, P95Ms: 90},
		}
		sw.Steps[i].SlowestFrequent = map[bool]string{true: "new_order", false: "payment"}[i == 0]
	}
	var b bytes.Buffer
	if err := report.SweepDocument(&b, report.Doc{Sweep: sw}, report.Text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"p95 response time (ms) of each transaction type by step; * the step's slowest of the frequently used:",
		"new_order     45.0   20.000 *     40.000",
		"payment     43.0      9.000   36.000 *",
		"delivery     12.0     90.000     90.000",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("sweep report lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := report.HTML(&b, report.Doc{Sweep: sw, Runs: runs}); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{"<h2>Transaction types</h2>", "Frequent transaction types and host CPU by step", "<td>40.000</td>", "new_order p95", "payment p95"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(html, "delivery p95") {
		t.Errorf("the chart shows delivery, which is not frequent")
	}
}

func TestReportOfRunsListsTheirTypes(t *testing.T) {
	var b bytes.Buffer
	if err := report.Render(&b, report.Input{Runs: []*result.Run{typedRun()}}, report.Options{Format: report.Markdown}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Transaction types (* frequent", "| new_order * | 450 | 45.0 | 10.000 | 20.000 | 30.000 | 0 |", "| delivery | 120 | 12.0 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("Markdown report lacks %q:\n%s", want, b.String())
		}
	}
}

// The CSV formats carry the transaction types as columns: the slowest of
// the frequently used and each type's share, p95 and p99; a run of one
// type has them empty.
func TestCSVCarriesTheTypes(t *testing.T) {
	one := closedRun()
	one.Label = "one"
	runs := []*result.Run{typedRun(), one}
	var b bytes.Buffer
	if err := report.RunTable(&b, report.RunRows(runs), report.CSV); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], ",slowest frequent,new_order share %,new_order p95 ms,new_order p99 ms,payment share %,payment p95 ms,payment p99 ms,delivery share %,delivery p95 ms,delivery p99 ms") ||
		!strings.HasSuffix(lines[1], ",new_order,45.0,20.000,30.000,43.0,9.000,12.000,12.0,90.000,99.000") || !strings.HasSuffix(lines[2], ",1,,,,,,,,,,") {
		t.Errorf("runs CSV:\n%s", b.String())
	}
	b.Reset()
	rows := []report.StepRow{{Label: "rate 1x", Types: typedRun().Summary.Types, Slowest: "new_order"}}
	if err := report.StepCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ",slowest frequent,new_order share %") || !strings.Contains(b.String(), ",new_order,45.0,20.000,30.000,") {
		t.Errorf("steps CSV:\n%s", b.String())
	}
}

// A comparison of configurations shows each one's transaction types at
// the compared step.
func TestCompareShowsTheTypes(t *testing.T) {
	var cs []analysis.Candidate
	for i, name := range []string{"16 vCPU", "24 vCPU"} {
		c := configSwept(name, fmt.Sprint("s", i), "order-entry", "rate", []float64{1, 2}, func(x float64) float64 { return 100 * x }, nil)
		for j := range c.Sweep.Steps {
			k := float64(i + 1)
			c.Sweep.Steps[j].Types = []result.Type{{Name: "new_order", Count: 45, P95Ms: 10 / k, Frequent: true}, {Name: "payment", Count: 43, P95Ms: 4, Frequent: true}}
			c.Sweep.Steps[j].SlowestFrequent = map[bool]string{true: "new_order", false: "payment"}[i == 0]
		}
		cs = append(cs, c)
	}
	c, err := analysis.CompareConfigs(cs, "")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.CompareReport(&b, c, report.Text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Transaction types at rate 2: p95 ms; * the configuration's slowest of the frequently used:", "16 vCPU   10.000 *    4.000", "24 vCPU      5.000  4.000 *"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, b.String())
		}
	}
}
