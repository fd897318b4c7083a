package tpcc

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/result"
)

// opWith returns an op whose histogram holds n values: 85 % at fast, the rest at slow.
func opWith(t *testing.T, name string, n int, fast, slow time.Duration) result.Op {
	t.Helper()
	h := hist.New()
	for i := range n {
		if i < n*85/100 {
			h.Record(fast)
		} else {
			h.Record(slow)
		}
	}
	snap, err := h.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return result.Op{Name: name, Count: int64(n), Histogram: snap}
}

// section reads the tpcc section Summarize wrote.
func section(t *testing.T, raw json.RawMessage) *Figures {
	t.Helper()
	f, err := FiguresOf(raw)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func sampleRun(t *testing.T) *result.Run {
	ops := []result.Op{
		{Name: "transaction", Kind: "event", Count: 2000},
		opWith(t, "new_order", 900, 10*time.Millisecond, 6*time.Second),
		opWith(t, "payment", 860, 5*time.Millisecond, 20*time.Millisecond),
		opWith(t, "order_status", 80, 2*time.Millisecond, 3*time.Millisecond),
		opWith(t, "delivery", 80, 50*time.Millisecond, 60*time.Millisecond),
		opWith(t, "stock_level", 80, 9*time.Millisecond, 21*time.Second),
	}
	s := result.Summary{Count: 2000, DurationS: 120, Counters: map[string]int64{
		"new_order_rollbacks": 9, "order_lines": 8910, "remote_order_lines": 89,
		"remote_payments": 129, "payments_by_last_name": 516, "order_status_by_last_name": 48,
	}}
	return &result.Run{
		Options: map[string]any{"warehouses": 2, "think-scale": 0.25, "weights": "45,43,4,4,4"},
		Load:    result.Load{Mode: "closed", Threads: 10},
		Summary: s, Ops: ops,
		Instances: []result.InstancePart{{Summary: s, Ops: ops}, {Summary: s, Ops: ops}},
	}
}

func TestSummarize(t *testing.T) {
	r := sampleRun(t)
	if err := New().Summarize(r); err != nil {
		t.Fatal(err)
	}
	f := section(t, r.Section)
	if f == nil {
		t.Fatal("no tpcc section")
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	near("tpmC", f.TpmC, 900/2.0)
	near("NOPM", f.NOPM, 891/2.0)
	near("TPM", f.TPM, 2000/2.0)
	near("rollback %", f.RollbackPct, 1)
	near("remote lines %", f.RemoteOrderLinePct, 100*89/8910.0)
	near("remote payments %", f.RemotePaymentPct, 15)
	near("payments by name %", f.PaymentByNamePct, 60)
	near("order-status by name %", f.OrderStatusByNamePct, 60)
	if f.Terminals != 20 || f.Warehouses != 2 {
		t.Errorf("terminals %d warehouses %d, want 20 (10 x 2 instances) and 2", f.Terminals, f.Warehouses)
	}
	near("ceiling", f.CeilingTpmC, Ceiling(20, 0.25, defaultWeights))
	near("efficiency", f.EfficiencyPct, 100*f.TpmC/f.CeilingTpmC)
	want := map[string]bool{"new_order": false, "payment": true, "order_status": true, "delivery": true, "stock_level": false}
	for _, l := range f.Limits {
		if l.OK != want[l.Name] {
			t.Errorf("%s: p90 %.1f ms vs limit %.0f ms: ok=%v, want %v", l.Name, l.P90Ms, l.LimitMs, l.OK, want[l.Name])
		}
	}
	for _, m := range f.Mix {
		if !m.OK {
			t.Errorf("mix %s %.2f%% below %.0f%%", m.Name, m.Pct, m.MinPct)
		}
	}
	if g := section(t, r.Instances[1].Section); g == nil || g.Terminals != 10 {
		t.Errorf("instance figures %+v", g)
	}
}

func TestSummarizeFromSavedFile(t *testing.T) {
	r := sampleRun(t)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back result.Run
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if err := New().Summarize(&back); err != nil {
		t.Fatal(err)
	}
	if f := section(t, back.Section); f.Warehouses != 2 || f.ThinkScale != 0.25 {
		t.Errorf("options read back from JSON: %+v", f)
	}
}

func TestSummarizeNotes(t *testing.T) {
	r := sampleRun(t)
	r.Options["think-scale"] = 0.0
	r.Options["weights"] = "60,30,4,4,2"
	if err := New().Summarize(r); err != nil {
		t.Fatal(err)
	}
	f := section(t, r.Section)
	if f.CeilingTpmC != 0 || f.EfficiencyPct != 0 {
		t.Errorf("efficiency computed without think time: %v of %v", f.EfficiencyPct, f.CeilingTpmC)
	}
	var below bool
	for _, n := range f.Notes {
		below = below || len(n) > 20 && n[:20] == "--weights below the "
	}
	if !below {
		t.Errorf("no note about the mix below the minimum: %q", f.Notes)
	}
	r.Load.Mode = "open"
	if err := New().Summarize(r); err != nil {
		t.Fatal(err)
	}
	if section(t, r.Section).CeilingTpmC != 0 {
		t.Error("open loop should not have a ceiling")
	}
}

// An efficiency above 100 % (more New-Orders than the terminals' cycles
// allow) says why: too few cycles in the window (tpcc-4x small measured
// 110 % over 30 s at think scale 0.25). At or under 100 %: no such note.
func TestSummarizeNotesEfficiencyAbove100(t *testing.T) {
	has := func(notes []string) bool {
		for _, n := range notes {
			if strings.HasPrefix(n, "efficiency above 100%: the measured 120s hold about 23 of a terminal's 5.2 s cycles") {
				return true
			}
		}
		return false
	}
	r := sampleRun(t) // 10 terminals at think scale 0.25: 450 tpmC of a 51.5 ceiling
	if err := New().Summarize(r); err != nil {
		t.Fatal(err)
	}
	if f := section(t, r.Section); f.EfficiencyPct <= 100 || !has(f.Notes) {
		t.Errorf("efficiency %.0f%%, notes %q", f.EfficiencyPct, f.Notes)
	}
	r = sampleRun(t)
	r.Options["think-scale"] = 0.01
	if err := New().Summarize(r); err != nil {
		t.Fatal(err)
	}
	if f := section(t, r.Section); f.EfficiencyPct > 100 || has(f.Notes) {
		t.Errorf("efficiency %.0f%%, notes %q", f.EfficiencyPct, f.Notes)
	}
}

// TPM as the server counts it: PostgreSQL's commits and rollbacks of the
// run's database less the monitor's own queries (one a sample), MySQL's
// Com_commit and Com_rollback (the whole server's), nothing without them.
func TestServerTPM(t *testing.T) {
	for _, c := range []struct {
		name   string
		s      *result.ServerStats
		tpm    float64
		global bool
	}{
		{"postgres", &result.ServerStats{DurationS: 60, Samples: 100, Counters: map[string]float64{
			"pg_stat_database.xact_commit": 1000, "pg_stat_database.xact_rollback": 10, "workload.new_orders": 450}}, 910, false},
		{"mysql", &result.ServerStats{DurationS: 30, Samples: 300, Counters: map[string]float64{
			"status.Com_commit": 600, "status.Com_rollback": 6}}, 1212, true},
		{"no counters", &result.ServerStats{DurationS: 30, Samples: 300}, 0, false},
		{"not sampled", nil, 0, false},
	} {
		if tpm, global, _ := serverTPM(c.s, failedCalls{}); math.Abs(tpm-c.tpm) > 1e-9 || global != c.global {
			t.Errorf("%s: %v, %v; want %v, %v", c.name, tpm, global, c.tpm, c.global)
		}
	}
}

// NOPM as the database counts it: the districts' next order ids' growth.
func TestServerNOPM(t *testing.T) {
	s := &result.ServerStats{DurationS: 30, Counters: map[string]float64{"workload.new_orders": 450}}
	if got := serverNOPM(s); got != 900 {
		t.Errorf("450 New-Orders in 30 s: NOPM %v, want 900", got)
	}
	if got := serverNOPM(&result.ServerStats{DurationS: 30}); got != 0 {
		t.Errorf("without the counter: %v", got)
	}
	if got := serverNOPM(nil); got != 0 {
		t.Errorf("not sampled: %v", got)
	}
}

// No throughput figure counts a failed call (issue 47): the server counts a
// failed call or a retried attempt as a rollback (measured: run --in-server
// on nine tables of the wrong shape, 33,844 errors in 5 s and 6,733
// rollbacks/s on PostgreSQL, 5,156/s on MariaDB), so TPM from its commits
// and rollbacks leaves them out, and says so; when all it counted were
// failures, it is not reported and the note says why.
func TestSummarizeServerTPMLeavesOutFailedCalls(t *testing.T) {
	run := func(errors, retries int64, commits, rollbacks float64) *Figures {
		t.Helper()
		r := sampleRun(t)
		r.Instances = r.Instances[:1]
		r.Summary.Errors, r.Summary.Retries = errors, retries
		r.Instances[0].Summary = r.Summary
		r.ServerStats = &result.ServerStats{DurationS: 120, Samples: 1200, Counters: map[string]float64{
			"pg_stat_database.xact_commit": commits, "pg_stat_database.xact_rollback": rollbacks}}
		r.Instances[0].ServerStats = r.ServerStats
		if err := New().Summarize(r); err != nil {
			t.Fatal(err)
		}
		for _, h := range r.Figures.Headline {
			if strings.HasPrefix(h.Name, "TPM (server's") && h.Value != section(t, r.Section).ServerTPM {
				t.Errorf("headline %s %v, section %v", h.Name, h.Value, section(t, r.Section).ServerTPM)
			}
		}
		return section(t, r.Section)
	}
	noted := func(f *Figures, prefix string) bool {
		for _, n := range f.Notes {
			if strings.HasPrefix(n, prefix) {
				return true
			}
		}
		return false
	}
	// All failed: 1,200 monitor queries committed, 30,000 failed calls
	// rolled back, and 40 more in the server's window, a little longer.
	f := run(30000, 0, 1200, 30040)
	if f.ServerTPM != 0 {
		t.Errorf("every call failed: server TPM %v, want none", f.ServerTPM)
	}
	if !noted(f, "TPM from the server's commits and rollbacks is not reported: of the 15020/min it counted, the 30000 calls that failed (30000 errors, 0 retried attempts; the server counts each as a rollback) were 15000/min, more than 10%") {
		t.Errorf("no note on the server TPM left out: %q", f.Notes)
	}
	// Some failed: 2,000 transactions, 100 failed calls and 50 retried attempts.
	f = run(100, 50, 1200+2000, 150)
	if want := 2000.0 / 2; math.Abs(f.ServerTPM-want) > 1e-9 {
		t.Errorf("server TPM %v, want %v (the failed calls left out)", f.ServerTPM, want)
	}
	if !noted(f, "TPM (server's commits + rollbacks) leaves out the 150 calls that failed (100 errors, 50 retried attempts; the server counts each as a rollback), 75/min") {
		t.Errorf("no note on the failed calls: %q", f.Notes)
	}
	// None failed: no note.
	f = run(0, 0, 1200+2000, 0)
	if math.Abs(f.ServerTPM-1000) > 1e-9 || noted(f, "TPM") {
		t.Errorf("no failures: server TPM %v, notes %q", f.ServerTPM, f.Notes)
	}
}

// Two instances on one MySQL server: each reads the whole server's
// Com_commit and Com_rollback, both instances' failed calls among them, so
// each leaves out all of them and the run's figure is the largest.
func TestSummarizeServerTPMGlobalLeavesOutEveryInstancesFailures(t *testing.T) {
	r := sampleRun(t)
	server := &result.ServerStats{DurationS: 120, Counters: map[string]float64{"status.Com_commit": 4000, "status.Com_rollback": 300}}
	for i := range r.Instances {
		r.Instances[i].Summary.Errors = 100 + int64(i)*100 // 100 and 200: 300 in all
		r.Instances[i].ServerStats = server
	}
	if err := New().Summarize(r); err != nil {
		t.Fatal(err)
	}
	if f := section(t, r.Section); math.Abs(f.ServerTPM-2000) > 1e-9 {
		t.Errorf("server TPM %v, want 2000 (4,000 commits in 2 minutes, the 300 rollbacks all failed calls)", f.ServerTPM)
	}
	if f := section(t, r.Instances[0].Section); math.Abs(f.ServerTPM-2000) > 1e-9 || len(f.Notes) == 0 {
		t.Errorf("instance 1: server TPM %v, notes %q", f.ServerTPM, f.Notes)
	}
}
