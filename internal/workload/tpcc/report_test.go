package tpcc

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// reportRun is a two-instance TPC-C run as its summary shows it, the
// figures Summarize would add set by hand (moved here from package report,
// which knows no workload).
func reportRun() *result.Run {
	lat := func(avg, p95, p99, max float64) result.Latency {
		return result.Latency{AvgMs: avg, P50Ms: avg * 0.9, P95Ms: p95, P99Ms: p99, P999Ms: (p99 + max) / 2, MaxMs: max}
	}
	s := result.Summary{
		Unit: "transactions", Throughput: 1803.2, Count: 108192, Latency: lat(2.2, 3.02, 4.11, 12.25),
		QPS: 36064, Reads: 1514688, Writes: 432768, Other: 216384, DurationS: 60,
	}
	a, b := s, s
	a.Throughput, a.Count = 1000, 60000
	b.Throughput, b.Count = 803.2, 48192
	b.Errors, b.ErrorsByClass = 3, map[string]int64{"connection": 3}
	b.Reconnects = 3
	r := &result.Run{
		SchemaVersion: result.SchemaVersion,
		Workload:      "tpcc",
		Event:         "transaction",
		Load:          result.Load{Mode: "closed", Threads: 8, WarmupS: 10, DurationS: 60, IntervalS: 1},
		Summary:       s,
		Warmup:        &result.Summary{DurationS: 10},
		Ops: []result.Op{
			{Name: "transaction", Kind: "event", Count: 108192, Rate: 1803.2, Latency: s.Latency},
			{Name: "point_select", Kind: "read", Count: 1081920, Rate: 18032, Latency: lat(0.123, 0.2, 0.3, 4.5)},
			{Name: "commit", Kind: "other", Count: 108192, Rate: 1803.2, Errors: 12, Latency: lat(0.5, 1, 2, 30)},
		},
		Instances: []result.InstancePart{
			{Index: 0, Target: "mysql://bench@db1/bench", Dialect: "mysql", Summary: a, Notes: []string{"binlog is on", "no TLS"}},
			{Index: 1, Target: "mysql://bench@db2/bench", Dialect: "mysql", Summary: b, Notes: []string{"innodb_flush_log_at_trx_commit=2", "no TLS"}},
		},
	}
	f := &Figures{
		Warehouses: 10, Terminals: 200, ThinkScale: 0.25, TpmC: 1210.4, NOPM: 1198.2, TPM: 2689.9,
		CeilingTpmC: 1028.8 * 1.25, EfficiencyPct: 94.1,
		Mix: []Mix{
			{Name: "new_order", Count: 12104, Pct: 45, OK: true},
			{Name: "payment", Count: 11500, Pct: 42.75, MinPct: 43, OK: false},
			{Name: "order_status", Count: 1076, Pct: 4, MinPct: 4, OK: true},
			{Name: "delivery", Count: 1076, Pct: 4, MinPct: 4, OK: true},
			{Name: "stock_level", Count: 1143, Pct: 4.25, MinPct: 4, OK: true},
		},
		RollbackPct: 1.02, RemoteOrderLinePct: 0.99, RemotePaymentPct: 15.1, PaymentByNamePct: 60.2, OrderStatusByNamePct: 59.8,
		Limits: []Limit{
			{Name: "new_order", P90Ms: 12.5, LimitMs: 5000, OK: true},
			{Name: "payment", P90Ms: 8, LimitMs: 5000, OK: true},
			{Name: "order_status", P90Ms: 4, LimitMs: 5000, OK: true},
			{Name: "delivery", P90Ms: 5100, LimitMs: 5000, OK: false},
			{Name: "stock_level", P90Ms: 15, LimitMs: 20000, OK: true},
		},
		Notes: []string{"Delivery runs inline"},
	}
	r.Figures = f.generic(len(r.Instances))
	for i := range r.Instances {
		g := *f
		g.TpmC, g.NOPM = f.TpmC/2, f.NOPM/2
		r.Instances[i].Figures = g.headline()
	}
	return r
}

// TestSummaryTPCC: TPC-C's figures as the text summary shows them, through
// report's generic rendering of a run's figures.
func TestSummaryTPCC(t *testing.T) {
	var b bytes.Buffer
	if err := report.Summary(&b, reportRun()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"\nTPC-C, 2 instances of 10 warehouse(s), 200 terminal(s), think scale 0.25: tpmC 1210, NOPM 1198, all transactions 2690/min, efficiency 94.1%, ceiling 1286 tpmC\n",
		"mix below minimum",
		"p90 over limit",
		"rolled back New-Orders 1.02%, remote order lines 0.99%, remote Payments 15.10%, Payments by last name 60.2%, Order-Status by last name 59.8%",
		"\nlimit checks: 7 of 9 met; not met: payment mix 42.75% (minimum 43%), delivery p90 5100.00 ms (limit 5000 ms)\n",
		"\nnote: Delivery runs inline\n",
		"\n    tpmC 605, NOPM 599\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("TPC-C summary lacks %q:\n%s", want, out)
		}
	}
	var row []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "delivery") {
			row = strings.Fields(l)
		}
	}
	if strings.Join(row, " ") != "delivery 1076 4.00 4 5100.00 5000 p90 over limit" {
		t.Errorf("delivery row %q", row)
	}
	path := filepath.Join("testdata", "summary_tpcc.golden.txt")
	if *update {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("output differs from %s (run with -update if intended):\n got:\n%s\nwant:\n%s", path, out, want)
	}
}
