package runplan

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload"
)

// TestSLOFlag: --slo takes a duration (50ms, 0.5s) or, as before, a bare
// number of milliseconds; anything else is refused with the units it takes,
// never strconv's words.
func TestSLOFlag(t *testing.T) {
	for in, want := range map[string]float64{"50": 50, "50ms": 50, "0.5s": 500, "250us": 0.25, "1.5": 1.5, "0": 0, " 20ms ": 20, "1m": 60000} {
		fs := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
		var ms float64
		MillisVar(fs, &ms, "slo", 0, "p99 objective")
		if err := fs.Parse([]string{"--slo", in}); err != nil || ms != want {
			t.Errorf("--slo %q = %v, %v; want %v", in, ms, err, want)
		}
	}
	for _, in := range []string{"abc", "50 ms", "-5", "-5ms", "NaN", "Inf", "1e400", ""} {
		fs := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
		ms := 7.0
		MillisVar(fs, &ms, "slo", 0, "p99 objective")
		err := fs.Parse([]string{"--slo", in})
		if err == nil {
			t.Errorf("--slo %q accepted as %v", in, ms)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "strconv") || !strings.Contains(msg, "50ms") || !strings.Contains(msg, "milliseconds") {
			t.Errorf("--slo %q: %q; want the units it takes, not strconv's words", in, msg)
		}
	}
}

// TestCheckCPUTarget: the one rule for --cpu-target of sweep, analyze and
// plan.
func TestCheckCPUTarget(t *testing.T) {
	for _, ok := range []float64{0.5, 50, 80, 100} {
		if err := CheckCPUTarget(ok); err != nil {
			t.Errorf("CheckCPUTarget(%v) = %v", ok, err)
		}
	}
	for _, bad := range []float64{0, -1, 100.5, 180} {
		if err := CheckCPUTarget(bad); err == nil || !strings.Contains(err.Error(), "want more than 0 and at most 100") {
			t.Errorf("CheckCPUTarget(%v) = %v", bad, err)
		}
	}
}

// TestTypeSLOFlag: --slo-type NAME=DURATION, repeated or comma-separated;
// a name the workload has no type of is refused naming its types.
func TestTypeSLOFlag(t *testing.T) {
	fs := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
	var slos TypeSLOs
	fs.Var(&slos, "slo-type", "")
	if err := fs.Parse([]string{"--slo-type", "New-Order=50ms", "--slo-type", "Payment=20, Delivery=1s"}); err != nil {
		t.Fatal(err)
	}
	if len(slos) != 3 || slos["New-Order"] != 50 || slos["Payment"] != 20 || slos["Delivery"] != 1000 {
		t.Errorf("parsed %v", slos)
	}
	if got := slos.String(); got != "Delivery=1000ms,New-Order=50ms,Payment=20ms" {
		t.Errorf("String() = %q", got)
	}
	for _, bad := range []string{"New-Order", "=5ms", "x=0", "x=-1ms", "x=fast"} {
		var s TypeSLOs
		if err := s.Set(bad); err == nil || !strings.Contains(err.Error(), "50ms") && !strings.Contains(err.Error(), "NAME=DURATION") {
			t.Errorf("--slo-type %q: %v", bad, err)
		}
	}
	m := workload.Meta{Name: "tpcc", Event: "transaction", Ops: []workload.Op{{Name: "new_order", Type: true}, {Name: "payment", Type: true}}}
	if err := checkTypeSLOs(m, TypeSLOs{"new_order": 5}); err != nil {
		t.Error(err)
	}
	if err := checkTypeSLOs(m, TypeSLOs{"New-Order": 5}); err == nil || !strings.Contains(err.Error(), `tpcc has no transaction type "New-Order" (its types: new_order, payment)`) {
		t.Errorf("unknown type: %v", err)
	}
	oltp := workload.Meta{Name: "oltp_read_write", Event: "transaction", Ops: []workload.Op{{Name: "point_select"}}}
	if err := checkTypeSLOs(oltp, TypeSLOs{"transaction": 5}); err == nil || !strings.Contains(err.Error(), "oltp_read_write has one transaction type (its transaction): its objective is --slo") {
		t.Errorf("a workload of one type (its event): %v", err)
	}
}

// TestTypeSLOsWithin: analyze's --slo-type names types the sweep's steps
// recorded.
func TestTypeSLOsWithin(t *testing.T) {
	sw := &result.Sweep{Steps: []result.SweepStep{{Types: []result.Type{{Name: "a"}, {Name: "b"}}}}}
	if err := (TypeSLOs{"a": 1, "b": 2}).Within(sw); err != nil {
		t.Error(err)
	}
	if err := (TypeSLOs{"c": 1}).Within(sw); err == nil || !strings.Contains(err.Error(), `no transaction type "c" (its types: a, b)`) {
		t.Errorf("c: %v", err)
	}
	if err := (TypeSLOs{"c": 1}).Within(&result.Sweep{}); err == nil || !strings.Contains(err.Error(), "record no transaction types") {
		t.Errorf("no types: %v", err)
	}
}

// TestSLOFlagPercentile: sweep's --slo is on the p99, or on the p95 as
// p95=50ms; another percentile is refused with the two it takes.
func TestSLOFlagPercentile(t *testing.T) {
	for in, want := range map[string]struct {
		ms  float64
		pct string
	}{"20ms": {20, "p99"}, "p95=20ms": {20, "p95"}, "P99=0.5s": {500, "p99"}, " p95 = 7 ": {7, "p95"}} {
		fs := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
		var ms float64
		pct := "p99"
		fs.Var(SLOFlag{&ms, &pct}, "slo", "objective")
		if err := fs.Parse([]string{"--slo", in}); err != nil || ms != want.ms || pct != want.pct {
			t.Errorf("--slo %q = %v on %s, %v; want %v on %s", in, ms, pct, err, want.ms, want.pct)
		}
	}
	for _, in := range []string{"p90=20ms", "p95=", "=20ms", "p95=abc"} {
		fs := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
		var ms float64
		pct := "p99"
		fs.Var(SLOFlag{&ms, &pct}, "slo", "objective")
		if err := fs.Parse([]string{"--slo", in}); err == nil {
			t.Errorf("--slo %q accepted: %v on %s", in, ms, pct)
		}
	}
}
