package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/result"
)

// side makes n synthetic runs of a configuration doing tps events per
// second at a p99 of p99 ms (the other percentiles in proportion), each
// figure off by up to ±noise (a fraction) from run to run and, within a run,
// from interval to interval.
func side(rng *rand.Rand, n int, tps, p99, noise float64, intervals int) []*result.Run {
	jitter := func() float64 { return 1 + noise*(2*rng.Float64()-1) }
	lat := func(p99 float64) result.Latency {
		return result.Latency{AvgMs: p99 * 0.3, P50Ms: p99 * 0.25, P95Ms: p99 * 0.7, P99Ms: p99, P999Ms: p99 * 1.8, MaxMs: p99 * 3}
	}
	var runs []*result.Run
	for i := range n {
		rt, rp := tps*jitter(), p99*jitter()
		r := &result.Run{ID: fmt.Sprintf("r%d", i), Workload: "oltp_read_write",
			Summary: result.Summary{Throughput: rt, Latency: lat(rp)}}
		r.Intervals = append(r.Intervals, result.Interval{Phase: "warmup", DurationS: 1, Events: 1, Rate: 1, Latency: lat(1000)})
		for range intervals {
			it := rt * jitter()
			r.Intervals = append(r.Intervals, result.Interval{Phase: "measure", DurationS: 1, Events: int64(it), Rate: it, Latency: lat(rp * jitter())})
		}
		runs = append(runs, r)
	}
	return runs
}

func TestCompareThroughputDrop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := side(rng, 5, 1000, 10, 0.01, 10)
	cand := side(rng, 5, 900, 10, 0.01, 10)
	c := Compare(base, cand, 0, 42)
	if c.Basis != BasisRuns || c.Rounds != DefaultRounds || c.BaseRuns != 5 || c.CandRuns != 5 {
		t.Errorf("basis %s rounds %d runs %d/%d", c.Basis, c.Rounds, c.BaseRuns, c.CandRuns)
	}
	tp := c.Metric("throughput")
	if tp.Verdict != Slower || math.Abs(tp.ChangePct+10) > 1.5 || tp.CILowPct > tp.ChangePct || tp.CIHighPct < tp.ChangePct || tp.CIHighPct > -8 || tp.CILowPct < -12 {
		t.Errorf("throughput: %+v; want slower, about -10 %% with a tight interval around it", tp)
	}
	if tp.Unit != "/s" || !tp.HigherIsBetter || tp.BaseN != 5 || tp.CandN != 5 {
		t.Errorf("throughput: %+v", tp)
	}
	if p99 := c.Metric("p99"); p99.Verdict != NoDifference {
		t.Errorf("p99 unchanged but %+v", p99)
	}
	if c.Verdict != Slower || !strings.Contains(c.Reason, "throughput slower") {
		t.Errorf("overall %q (%s)", c.Verdict, c.Reason)
	}
	if !c.Regressed(5) || c.Regressed(15) {
		t.Errorf("Regressed(5) = %v, Regressed(15) = %v; want true, false (CI %.2f..%.2f)", c.Regressed(5), c.Regressed(15), tp.CILowPct, tp.CIHighPct)
	}
	if !c.Regressed(0) {
		t.Error("Regressed(0) false for a significant 10 % drop")
	}
	// Swapped, the candidate is the faster.
	s := Compare(cand, base, 0, 42)
	if s.Metric("throughput").Verdict != Faster || s.Verdict != Faster || s.Regressed(0) {
		t.Errorf("swapped: %+v", s)
	}
}

func TestCompareIdenticalDistributions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := side(rng, 5, 1000, 10, 0.05, 10)
	for name, cand := range map[string][]*result.Run{
		"same runs":    base,
		"same configs": side(rng, 5, 1000, 10, 0.05, 10),
	} {
		c := Compare(base, cand, 2000, 7)
		for _, m := range c.Metrics {
			if m.Verdict != NoDifference {
				t.Errorf("%s: %s %s (%.2f%%, CI %.2f..%.2f)", name, m.Name, m.Verdict, m.ChangePct, m.CILowPct, m.CIHighPct)
			}
		}
		if c.Verdict != NoDifference || c.Regressed(0) {
			t.Errorf("%s: overall %s, regressed %v", name, c.Verdict, c.Regressed(0))
		}
	}
}

func TestCompareLatency(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	base := side(rng, 4, 1000, 10, 0.02, 10)
	up := side(rng, 4, 1000, 13, 0.02, 10) // every percentile 30 % higher
	c := Compare(base, up, 0, 1)
	for _, name := range []string{"avg", "p50", "p95", "p99", "p99.9"} {
		m := c.Metric(name)
		if m.Verdict != Slower || m.HigherIsBetter || m.Unit != "ms" || math.Abs(m.ChangePct-30) > 4 {
			t.Errorf("latency up: %s %+v, want slower by about 30 %%", name, m)
		}
	}
	if c.Verdict != Slower || !c.Regressed(20) || c.Regressed(40) {
		t.Errorf("latency up: overall %s, Regressed(20) %v, Regressed(40) %v", c.Verdict, c.Regressed(20), c.Regressed(40))
	}
	d := Compare(up, base, 0, 1)
	if m := d.Metric("p99"); m.Verdict != Faster || d.Verdict != Faster || d.Regressed(0) {
		t.Errorf("latency down: p99 %+v, overall %s", m, d.Verdict)
	}
	// More throughput bought with a worse p99.
	mixed := Compare(base, side(rng, 4, 1200, 13, 0.02, 10), 0, 1)
	if mixed.Verdict != Mixed || !mixed.Regressed(5) {
		t.Errorf("mixed: overall %s (%s), regressed %v", mixed.Verdict, mixed.Reason, mixed.Regressed(5))
	}
}

func TestCompareIsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	base := side(rng, 3, 1000, 10, 0.1, 10)
	cand := side(rng, 3, 950, 11, 0.1, 10)
	a, b := Compare(base, cand, 500, 99), Compare(base, cand, 500, 99)
	if fmt.Sprintf("%+v", a) != fmt.Sprintf("%+v", b) {
		t.Errorf("same seed, different comparisons:\n%+v\n%+v", a, b)
	}
	c := Compare(base, cand, 500, 100)
	if a.Metric("throughput").CILowPct == c.Metric("throughput").CILowPct && a.Metric("p99").CIHighPct == c.Metric("p99").CIHighPct {
		t.Error("another seed gave the very same intervals")
	}
}

func TestCompareIntervalsBasis(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	base := side(rng, 1, 1000, 10, 0.02, 30)
	cand := side(rng, 1, 900, 10, 0.02, 30)
	c := Compare(base, cand, 0, 3)
	if c.Basis != BasisIntervals || len(c.Notes) == 0 || !strings.Contains(c.Notes[0], "intervals") {
		t.Fatalf("basis %s, notes %q", c.Basis, c.Notes)
	}
	tp := c.Metric("throughput")
	if tp.BaseN != 30 || tp.CandN != 30 {
		t.Errorf("samples %d/%d, want the 30 measured intervals a side (warm-up excluded)", tp.BaseN, tp.CandN)
	}
	// The samples' mean (the interval's centre) is the weighted mean of
	// the interval rates; the figure shown is the run's own.
	var ev, secs float64
	for _, iv := range base[0].Intervals[1:] {
		ev, secs = ev+iv.Rate*iv.DurationS, secs+iv.DurationS
	}
	if math.Abs(tp.SampleBase-ev/secs) > 1e-9 || tp.Base != base[0].Summary.Throughput {
		t.Errorf("base %.3f (samples %.3f), want %.3f (samples %.3f)", tp.Base, tp.SampleBase, base[0].Summary.Throughput, ev/secs)
	}
	if tp.Verdict != Slower || math.Abs(tp.ChangePct+10) > 2 || !c.Regressed(5) || c.Regressed(15) {
		t.Errorf("throughput %+v; Regressed(5) %v, Regressed(15) %v", tp, c.Regressed(5), c.Regressed(15))
	}
	// (p99 is not checked: the two runs' p99 drew ±2 % apart, which 30
	// intervals a side resolve as significant. That is the basis's
	// optimism the note warns of: it cannot see run-to-run variation.)
	// One run against three: still intervals, pooled on the side with three.
	m := Compare(base, side(rng, 3, 1000, 10, 0.02, 30), 0, 3)
	if m.Basis != BasisIntervals || m.Metric("throughput").CandN != 90 {
		t.Errorf("1 vs 3 runs: basis %s, candidate samples %d", m.Basis, m.Metric("throughput").CandN)
	}
}

func TestCompareNotEnoughData(t *testing.T) {
	base := []*result.Run{{Workload: "w", Summary: result.Summary{Throughput: 100}}}
	cand := []*result.Run{{Workload: "v", Summary: result.Summary{Throughput: 50}, Partial: true, PartialReason: "interrupted"}}
	c := Compare(base, cand, 100, 1)
	for _, m := range c.Metrics {
		if m.Verdict != NotEnoughData || !math.IsNaN(m.CILowPct) {
			t.Errorf("%s: %+v", m.Name, m)
		}
	}
	if c.Verdict != NotEnoughData || c.Regressed(0) {
		t.Errorf("overall %s, regressed %v", c.Verdict, c.Regressed(0))
	}
	notes := strings.Join(c.Notes, "\n")
	if !strings.Contains(notes, "different workloads (w, v)") || !strings.Contains(notes, "partial") {
		t.Errorf("notes:\n%s", notes)
	}
}

// TestCompareShowsTheRunsOwnPercentiles: with one run a side the samples
// are the report intervals, but the figures shown as each side's p99 are
// the runs' own (from their merged histograms), not the mean of the
// intervals' p99s, which understates a tail that falls in a few intervals.
func TestCompareShowsTheRunsOwnPercentiles(t *testing.T) {
	mk := func(id string, tailMs float64) *result.Run {
		r := &result.Run{ID: id, Workload: "w", Summary: result.Summary{Throughput: 100, Count: 1000, DurationS: 10,
			Latency: result.Latency{AvgMs: 6, P50Ms: 5, P95Ms: 8, P99Ms: tailMs, P999Ms: 2 * tailMs}}}
		for i := range 10 {
			p99 := 5.0
			if i == 9 {
				p99 = tailMs // the whole tail in one interval
			}
			r.Intervals = append(r.Intervals, result.Interval{Phase: "measure", DurationS: 1, Events: 100, Rate: 100,
				Latency: result.Latency{AvgMs: 6, P50Ms: 5, P95Ms: 8, P99Ms: p99, P999Ms: 2 * p99}})
		}
		return r
	}
	c := Compare([]*result.Run{mk("a", 1303)}, []*result.Run{mk("b", 1400)}, 500, 1)
	p99 := c.Metric("p99")
	if p99.Base != 1303 || p99.Cand != 1400 {
		t.Errorf("p99 shown %.1f / %.1f; want the runs' own 1303 / 1400 (not the intervals' mean %.1f)", p99.Base, p99.Cand, p99.SampleBase)
	}
	if want := (9*5.0 + 1303) / 10; math.Abs(p99.SampleBase-want) > 1e-9 {
		t.Errorf("the intervals' mean p99 %.3f, want %.3f (what the confidence interval is of)", p99.SampleBase, want)
	}
	if math.Abs(p99.ChangePct-100*(1400.0/1303-1)) > 1e-9 {
		t.Errorf("change %.3f %%, want the change of the shown figures", p99.ChangePct)
	}
	if tp := c.Metric("throughput"); tp.Base != 100 || tp.Cand != 100 {
		t.Errorf("throughput shown %.1f / %.1f, want the runs' 100 / 100", tp.Base, tp.Cand)
	}
}

// TestComparePoolsASideOfSeveralRuns: one run against three (the
// intervals basis), the side of three shows the percentiles of its runs'
// merged histograms and its events over its seconds.
func TestComparePoolsASideOfSeveralRuns(t *testing.T) {
	mk := func(ms ...int) *result.Run {
		h := hist.New()
		for _, m := range ms {
			h.Record(time.Duration(m) * time.Millisecond)
		}
		snap, err := h.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		l := result.LatencyOf(h)
		return &result.Run{Workload: "w", Summary: result.Summary{Throughput: float64(len(ms)) / 10, Count: int64(len(ms)), DurationS: 10, Latency: l},
			Ops: []result.Op{{Name: "e", Kind: "event", Histogram: snap}}}
	}
	ones := func(n, ms int) []int { return slices.Repeat([]int{ms}, n) }
	three := []*result.Run{mk(ones(100, 1)...), mk(ones(100, 1)...), mk(append(ones(95, 1), ones(5, 500)...)...)}
	three[2].Summary.DurationS, three[2].Summary.Throughput = 20, 5
	c := Compare([]*result.Run{mk(ones(100, 1)...)}, three, 200, 1)
	p99 := c.Metric("p99")
	// 5 of 300 events at 500 ms: the pooled p99 is 500 ms; the runs' mean
	// p99 is (1 + 1 + 500) / 3.
	if math.Abs(p99.Cand-500) > 5 {
		t.Errorf("pooled p99 %.1f ms, want about 500 (the mean of the runs' p99s is %.1f)", p99.Cand, (1+1+three[2].Summary.Latency.P99Ms)/3)
	}
	if tp := c.Metric("throughput"); math.Abs(tp.Cand-7.5) > 1e-9 {
		t.Errorf("pooled throughput %.3f, want 300 events / 40 s (not the runs' mean rate 8.33)", tp.Cand)
	}
}
