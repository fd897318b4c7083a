package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/result"
)

// Verdicts of a comparison, per metric and overall.
const (
	Faster        = "faster"
	Slower        = "slower"
	NoDifference  = "no significant difference"
	Mixed         = "mixed"           // overall only: one metric faster, the other slower
	NotEnoughData = "not enough data" // no interval could be computed
)

// Bases of a comparison's confidence intervals.
const (
	BasisRuns      = "runs"      // each run is one sample (repeated runs on both sides)
	BasisIntervals = "intervals" // each measured report interval is one sample
)

// DefaultRounds is the bootstrap's resampling rounds when Compare is given 0.
const DefaultRounds = 10000

// Comparison is a baseline against a candidate: for throughput and each
// latency figure, the candidate's change relative to the baseline with a
// bootstrap 95 % confidence interval, and verdicts.
type Comparison struct {
	// Basis is what the samples are: BasisRuns when both sides have at least
	// two runs, else BasisIntervals (the measured intervals of each side's
	// runs, pooled).
	Basis              string
	BaseRuns, CandRuns int
	Rounds             int
	Seed               uint64
	// Metrics are throughput, then latency avg, p50, p95, p99 and p99.9.
	Metrics []MetricChange
	// Verdict is the overall verdict, on throughput and p99 together:
	// Faster, Slower, NoDifference, Mixed or NotEnoughData; Reason says why
	// in words.
	Verdict, Reason string
	// Notes qualify the comparison (different workloads, partial runs, the
	// intervals basis's optimism).
	Notes []string
}

// MetricChange is one metric's comparison.
type MetricChange struct {
	Name string // "throughput", "avg", "p50", "p95", "p99", "p99.9"
	Unit string // "/s" (throughput: events per second) or "ms"
	// HigherIsBetter is true for throughput, false for latency.
	HigherIsBetter bool
	// Base and Cand are each side's own figure, what the comparison shows:
	// a single run's summary figure (its percentiles from its merged
	// histogram, its throughput its events over its measured seconds);
	// over several runs, the mean of the runs' figures (BasisRuns) or the
	// runs' figure pooled (BasisIntervals: the percentiles of their merged
	// histograms, their events over their measured seconds). A latency
	// figure of a side that completed no event is NaN: it has none.
	Base, Cand float64
	// SampleBase and SampleCand are the sides' means over their samples,
	// what the confidence interval is of: equal to Base and Cand with
	// BasisRuns; with BasisIntervals the mean of the measured intervals'
	// figures (throughput weighted by interval length). The mean of the
	// intervals' percentiles is not a percentile of the run: a tail that
	// falls in a few intervals is averaged away, so it is never shown as
	// the run's figure.
	SampleBase, SampleCand float64
	// SampleChangePct is the relative change of the sample means, the
	// centre of the confidence interval.
	SampleChangePct float64
	// BaseN and CandN are how many samples each side had.
	BaseN, CandN int
	// ChangePct is (Cand − Base) / Base in percent; NaN when Base is 0.
	ChangePct float64
	// CILowPct and CIHighPct bound the percentile bootstrap 95 % confidence
	// interval of SampleChangePct (the same as ChangePct with BasisRuns);
	// NaN when it could not be computed (fewer than two samples on a side,
	// a baseline of 0).
	CILowPct, CIHighPct float64
	// Verdict is Faster, Slower, NoDifference (the interval contains 0) or
	// NotEnoughData. For latency, lower is faster.
	Verdict string
}

// sample is one observation with its weight in a mean.
type sample struct{ v, w float64 }

type metricDef struct {
	name   string
	higher bool
	// lat is the metric's figure of a latency distribution (nil for
	// throughput).
	lat func(result.Latency) float64
}

var metrics = []metricDef{
	{"throughput", true, nil},
	{"avg", false, func(l result.Latency) float64 { return l.AvgMs }},
	{"p50", false, func(l result.Latency) float64 { return l.P50Ms }},
	{"p95", false, func(l result.Latency) float64 { return l.P95Ms }},
	{"p99", false, func(l result.Latency) float64 { return l.P99Ms }},
	{"p99.9", false, func(l result.Latency) float64 { return l.P999Ms }},
}

// run is the metric's figure of a whole run: its summary's, the
// percentiles from its merged histogram.
func (m metricDef) run(r *result.Run) float64 {
	if m.lat == nil {
		return r.Summary.Throughput
	}
	return m.lat(r.Summary.Latency)
}

// figure is one side's own figure of the metric (MetricChange.Base): a
// run's summary figure, the mean of several runs' with BasisRuns, and
// with BasisIntervals their figure pooled: events over measured seconds,
// the percentiles of their merged event histograms (the mean of the runs'
// figures when a run kept no histogram). A latency figure of a side that
// completed no event is NaN: it has none.
func (m metricDef) figure(runs []*result.Run, basis string) float64 {
	if m.lat != nil && !slices.ContainsFunc(runs, func(r *result.Run) bool { return r.Summary.Throughput > 0 }) {
		return math.NaN() // no event, no response time
	}
	if len(runs) == 1 {
		return m.run(runs[0])
	}
	if basis == BasisIntervals {
		if m.lat == nil {
			var n int64
			var secs float64
			for _, r := range runs {
				n, secs = n+r.Summary.Count, secs+r.Summary.DurationS
			}
			if secs > 0 {
				return float64(n) / secs
			}
		} else if l, ok := pooledLatency(runs); ok {
			return m.lat(l)
		}
	}
	return mean(m.samples(runs, BasisRuns))
}

// pooledLatency is the latency of runs' events together, from their
// merged event histograms (Ops[0]); false when a run kept none.
func pooledLatency(runs []*result.Run) (result.Latency, bool) {
	all := hist.New()
	for _, r := range runs {
		if len(r.Ops) == 0 || r.Ops[0].Histogram == "" {
			return result.Latency{}, false
		}
		h, err := hist.FromSnapshot(r.Ops[0].Histogram)
		if err != nil {
			return result.Latency{}, false
		}
		all.Merge(h)
	}
	if all.Count() == 0 {
		return result.Latency{}, false
	}
	return result.LatencyOf(all), true
}

// samples returns one side's samples of a metric.
func (m metricDef) samples(runs []*result.Run, basis string) []sample {
	var out []sample
	for _, r := range runs {
		if basis == BasisRuns {
			if v := m.run(r); !math.IsNaN(v) {
				out = append(out, sample{v, 1})
			}
			continue
		}
		for _, iv := range r.Intervals {
			if iv.Phase != "measure" || iv.DurationS <= 0 {
				continue
			}
			if m.lat == nil { // throughput: a stalled interval counts, as 0/s
				out = append(out, sample{iv.Rate, iv.DurationS})
				continue
			}
			if iv.Events > 0 { // latency: an interval without events has none
				out = append(out, sample{m.lat(iv.Latency), 1})
			}
		}
	}
	return out
}

func mean(s []sample) float64 {
	var sum, w float64
	for _, x := range s {
		sum += x.v * x.w
		w += x.w
	}
	if w == 0 {
		return math.NaN()
	}
	return sum / w
}

// resampledMean is the mean of len(s) draws from s with replacement.
func resampledMean(rng *rand.Rand, s []sample) float64 {
	var sum, w float64
	for range s {
		x := s[rng.IntN(len(s))]
		sum += x.v * x.w
		w += x.w
	}
	if w == 0 {
		return math.NaN()
	}
	return sum / w
}

// Compare compares candidate runs with baseline runs (at least one each;
// several are repeated runs of the same configuration). For each metric the
// change is the relative difference of the candidate's mean from the
// baseline's, and its 95 % confidence interval is a percentile bootstrap:
// rounds times (DefaultRounds when 0 or less), each side's samples are
// resampled with replacement, independently, and the relative difference of
// the resampled means is taken; the interval is the 2.5th to 97.5th
// percentiles of those. With at least two runs on each side the samples are
// the runs (BasisRuns); otherwise they are the measured intervals of each
// side's runs (BasisIntervals), which vary less than whole runs do, so that
// interval is narrower than repeated runs would give (said in Notes). The
// result depends only on the inputs and seed.
func Compare(base, cand []*result.Run, rounds int, seed uint64) Comparison {
	if rounds <= 0 {
		rounds = DefaultRounds
	}
	c := Comparison{Basis: BasisRuns, BaseRuns: len(base), CandRuns: len(cand), Rounds: rounds, Seed: seed}
	if len(base) < 2 || len(cand) < 2 {
		c.Basis = BasisIntervals
		c.Notes = append(c.Notes, "with a single run on a side, the samples are the runs' measured report intervals: "+
			"neighbouring intervals are alike, so the confidence intervals are narrower than repeated runs would give; repeat each run (3 or more) for a sounder verdict")
	}
	for i, m := range metrics {
		mc := MetricChange{Name: m.name, Unit: "ms", HigherIsBetter: m.higher}
		if m.higher {
			mc.Unit = "/s"
		}
		bs, cs := m.samples(base, c.Basis), m.samples(cand, c.Basis)
		mc.BaseN, mc.CandN = len(bs), len(cs)
		mc.SampleBase, mc.SampleCand = mean(bs), mean(cs)
		mc.SampleChangePct = rel(mc.SampleBase, mc.SampleCand)
		mc.Base, mc.Cand = m.figure(base, c.Basis), m.figure(cand, c.Basis)
		mc.ChangePct = rel(mc.Base, mc.Cand)
		mc.CILowPct, mc.CIHighPct = math.NaN(), math.NaN()
		if !math.IsNaN(mc.SampleChangePct) {
			// One stream per metric, so that a metric's interval does not
			// depend on which metrics come before it.
			mc.CILowPct, mc.CIHighPct = changeCI(bs, cs, rounds, rand.NewPCG(seed, 0x9e3779b97f4a7c15+uint64(i)))
		}
		mc.Verdict = verdict(mc)
		c.Metrics = append(c.Metrics, mc)
	}
	workloads := map[string]bool{}
	var names []string
	for _, side := range [][]*result.Run{base, cand} {
		for _, r := range side {
			if !workloads[r.Workload] {
				workloads[r.Workload] = true
				names = append(names, r.Workload)
			}
			if r.Partial {
				c.Notes = append(c.Notes, fmt.Sprintf("run %s %s is partial (%s)", r.ID, r.Label, r.PartialReason))
			}
		}
	}
	if len(names) > 1 {
		c.Notes = append(c.Notes, fmt.Sprintf("the runs are of different workloads (%s): their figures count different events", strings.Join(names, ", ")))
	}
	if tp := c.Metric("throughput"); tp.Base == 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("the baseline's throughput is 0/s: no change in percent can be taken from it (the candidate's: %.2f/s)", tp.Cand))
	}
	c.Verdict, c.Reason = overall(c.Metric("throughput"), c.Metric("p99"))
	return c
}

// changeCI is the percentile bootstrap 95 % confidence interval of the
// relative change (percent) from base's mean to cand's: rounds times each
// side is resampled with replacement, independently, from src. NaN, NaN
// with fewer than two samples on a side, or when most rounds had no
// change to take (a baseline mean of 0).
func changeCI(base, cand []sample, rounds int, src rand.Source) (lo, hi float64) {
	if len(base) < 2 || len(cand) < 2 {
		return math.NaN(), math.NaN()
	}
	rng := rand.New(src)
	diffs := make([]float64, 0, rounds)
	for range rounds {
		if d := rel(resampledMean(rng, base), resampledMean(rng, cand)); !math.IsNaN(d) {
			diffs = append(diffs, d)
		}
	}
	if len(diffs) <= rounds/2 {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(diffs)
	return stat.Quantile(0.025, stat.Empirical, diffs, nil), stat.Quantile(0.975, stat.Empirical, diffs, nil)
}

// rel is the relative change from a to b in percent, NaN when a is 0 or
// either is not a number.
func rel(a, b float64) float64 {
	if a == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return (b - a) / a * 100
}

func verdict(m MetricChange) string {
	lo, hi := m.CILowPct, m.CIHighPct
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return NotEnoughData
	}
	if lo <= 0 && hi >= 0 {
		return NoDifference
	}
	if (lo > 0) == m.HigherIsBetter {
		return Faster
	}
	return Slower
}

// overall combines throughput's and p99's verdicts.
func overall(tp, p99 MetricChange) (string, string) {
	reason := fmt.Sprintf("throughput %s, p99 %s", tp.Verdict, p99.Verdict)
	var faster, slower, known int
	for _, v := range []string{tp.Verdict, p99.Verdict} {
		switch v {
		case Faster:
			faster++
		case Slower:
			slower++
		}
		if v != NotEnoughData {
			known++
		}
	}
	switch {
	case known == 0:
		return NotEnoughData, reason
	case faster > 0 && slower > 0:
		return Mixed, reason
	case slower > 0:
		return Slower, reason
	case faster > 0:
		return Faster, reason
	}
	return NoDifference, reason
}

// Metric returns the comparison of the named metric ("throughput", "p99",
// ...), or a zero MetricChange with NotEnoughData when there is none.
func (c Comparison) Metric(name string) MetricChange {
	for _, m := range c.Metrics {
		if m.Name == name {
			return m
		}
	}
	nan := math.NaN()
	return MetricChange{Name: name, Base: nan, Cand: nan, SampleBase: nan, SampleCand: nan, ChangePct: nan, SampleChangePct: nan, CILowPct: nan, CIHighPct: nan, Verdict: NotEnoughData}
}

// Regressed reports whether the candidate is significantly worse than the
// baseline by more than failIfSlowerPct percent on throughput or p99: the
// whole confidence interval lies beyond the threshold on the bad side, i.e.
// its bound closest to zero is worse than it. For throughput, the interval's
// upper bound is below −P % (throughput fell by more than P % at 95 %
// confidence); for p99, its lower bound is above +P %. A metric without an
// interval (NotEnoughData) never counts as a regression. With P = 0 any
// significant slowdown is one.
func (c Comparison) Regressed(failIfSlowerPct float64) bool {
	p := math.Abs(failIfSlowerPct)
	tp, p99 := c.Metric("throughput"), c.Metric("p99")
	return (!math.IsNaN(tp.CIHighPct) && tp.CIHighPct < -p) || (!math.IsNaN(p99.CILowPct) && p99.CILowPct > p)
}

// TooFew returns the first of the named metrics that has too few samples
// for an interval (NotEnoughData), and false when each has one: a gate
// that cannot see must not pass silently.
func (c Comparison) TooFew(names ...string) (MetricChange, bool) {
	for _, name := range names {
		if m := c.Metric(name); m.Verdict == NotEnoughData {
			return m, true
		}
	}
	return MetricChange{}, false
}
