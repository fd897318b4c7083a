package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/result"
)

// SearchSpec is how a capacity search probes (sweep --rate search,
// --threads search): from Start it grows the load by Growth until a probe
// misses the objective, then bisects between the highest probe that met
// it and the lowest that did not, until their distance is within
// Precision of the lower or MaxSteps probes have run.
type SearchSpec struct {
	// Axis is "rate" (an open loop's events/s per instance) or "threads"
	// (a closed loop's virtual users per instance).
	Axis string
	// SLOMs is the objective, in milliseconds, on Percentile ("p99", the
	// default, or "p95") of the response time.
	SLOMs      float64
	Percentile string
	Start      float64
	// Growth (default 2), Precision (default 0.05), MaxSteps (default 12).
	Growth    float64
	Precision float64
	MaxSteps  int
	// Ceiling is the most the search may probe (0: no limit): the
	// generator's, when known beforehand.
	Ceiling float64
	// Noise is the band around the objective, as a share of it (default
	// 0.1), within which a probe's latency is too close to trust once: it
	// is run again, and the majority of its runs decides.
	Noise float64
	// MinGain (threads; default 0.1): a probe that adds less throughput
	// per added virtual user than this share of the throughput per user
	// at the highest probe that met the objective has stopped growing.
	MinGain float64
}

// Search defaults, and KeptShare: an open-loop probe kept up with its
// rate when it did at least this share of it (SustainedKnee's test).
const (
	DefaultGrowth    = 2
	DefaultPrecision = 0.05
	DefaultMaxSteps  = 12
	DefaultNoise     = 0.1
	DefaultMinGain   = 0.1
	KeptShare        = 0.95
	// keptNear is how close to KeptShare the share done must be for a
	// probe to be run again.
	keptNear = 0.02
	// maxRuns is the most runs of one probe (a probe near the boundary is
	// run again; two that disagree get a third).
	maxRuns = 3
)

// WithDefaults fills the spec's unset fields with the defaults.
func (s SearchSpec) WithDefaults() SearchSpec {
	if s.Percentile == "" {
		s.Percentile = "p99"
	}
	if s.Growth <= 1 {
		s.Growth = DefaultGrowth
	}
	if s.Precision <= 0 {
		s.Precision = DefaultPrecision
	}
	if s.MaxSteps <= 0 {
		s.MaxSteps = DefaultMaxSteps
	}
	if s.Noise <= 0 {
		s.Noise = DefaultNoise
	}
	if s.MinGain <= 0 {
		s.MinGain = DefaultMinGain
	}
	return s
}

// ProbeOf judges step st as a probe of the search: whether its latency
// met the objective and, in an open loop, it kept up with the rate
// offered, or, in a closed loop, it still added throughput over below
// (the highest probe under it that met the objective; nil: none).
// generator is why the load generator limited the step
// (GeneratorLimit; "": it did not).
func ProbeOf(spec SearchSpec, st result.SweepStep, below *result.SearchProbe, generator string) result.SearchProbe {
	spec = spec.WithDefaults()
	lat := st.P99Ms
	if spec.Percentile == "p95" {
		lat = st.P95Ms
	}
	p := result.SearchProbe{X: st.X, Label: st.Label, Offered: st.Offered, Throughput: st.Throughput, LatencyMs: lat, Generator: generator, Met: true}
	var why []string
	if lat > spec.SLOMs {
		p.Met = false
		why = append(why, fmt.Sprintf("%s %s ms over the objective's %g ms", spec.Percentile, msText(lat), spec.SLOMs))
	}
	p.Near = math.Abs(lat-spec.SLOMs) <= spec.Noise*spec.SLOMs
	switch {
	case spec.Axis == "rate" && st.Offered > 0:
		done := st.Throughput / st.Offered
		if done < KeptShare {
			p.Met = false
			why = append(why, fmt.Sprintf("fell behind the rate (%.0f%% of %.4g/s done)", 100*done, st.Offered))
		}
		p.Near = p.Near || math.Abs(done-KeptShare) <= keptNear
	case spec.Axis == "threads" && below != nil && st.X > below.X && below.X > 0 && below.Throughput > 0:
		gain := (st.Throughput - below.Throughput) / (st.X - below.X)
		perUser := below.Throughput / below.X
		if gain < spec.MinGain*perUser {
			p.Met = false
			why = append(why, fmt.Sprintf("throughput stopped growing (%.3g/s per added virtual user, under %.0f%% of the %.3g/s per user at %s)", gain, 100*spec.MinGain, perUser, below.Label))
		}
	}
	p.Why = strings.Join(why, "; ")
	return p
}

// msText is a response time in milliseconds as words show it: 3
// significant digits, whole milliseconds from 100.
func msText(ms float64) string {
	if ms >= 100 {
		return strconv.FormatFloat(math.Round(ms), 'f', 0, 64)
	}
	return strconv.FormatFloat(ms, 'g', 3, 64)
}

// probeVerdict is the search's view of one axis value: its runs, and whether
// they met the objective (the majority), or need another run.
type probeVerdict struct {
	x          float64
	runs, met  int
	again      bool    // run it again before deciding
	generator  bool    // the generator limited it: no probeVerdict on the system
	throughput float64 // mean over its runs that met the objective
}

// probeVerdicts groups the probes by axis value, in increasing value.
func probeVerdicts(probes []result.SearchProbe) []probeVerdict {
	var vs []probeVerdict
	for _, p := range probes {
		i := slices.IndexFunc(vs, func(v probeVerdict) bool { return v.x == p.X })
		if i < 0 {
			vs = append(vs, probeVerdict{x: p.X})
			i = len(vs) - 1
		}
		v := &vs[i]
		v.runs++
		if p.Met {
			v.throughput += (p.Throughput - v.throughput) / float64(v.met+1)
			v.met++
		}
		v.generator = v.generator || p.Generator != ""
		// A run near the boundary is repeated; two that disagree get a
		// third.
		v.again = p.Near && v.runs < maxRuns && (v.runs == 1 || (v.met != 0 && v.met != v.runs))
	}
	slices.SortFunc(vs, func(a, b probeVerdict) int { return cmp.Compare(a.x, b.x) })
	return vs
}

func (v probeVerdict) good() bool { return !v.generator && 2*v.met > v.runs }

// settled: the value was run twice or more and the majority of its runs
// agrees by two or more (two alike, or two of three).
func (v probeVerdict) settled() bool {
	return v.runs >= 2 && (v.met == v.runs || v.met == 0 || v.runs >= maxRuns)
}

// NextProbe is the search's next probe given the probes so far, in the
// order they ran: the axis value to probe, or, when the search is over,
// its answer (nil while it goes on). A probe near the boundary is run
// again first.
func NextProbe(spec SearchSpec, probes []result.SearchProbe) (float64, *result.Search) {
	spec = spec.WithDefaults()
	if len(probes) == 0 {
		return spec.tidy(spec.Start), nil
	}
	vs := probeVerdicts(probes)
	last := probes[len(probes)-1]
	if i := slices.IndexFunc(vs, func(v probeVerdict) bool { return v.x == last.X }); vs[i].again && len(probes) < spec.MaxSteps {
		return last.X, nil
	}
	lo, hi, ceiling := -1, -1, spec.Ceiling
	for i, v := range vs {
		switch {
		case v.generator:
			if ceiling == 0 || v.x < ceiling {
				ceiling = v.x
			}
		case v.good():
			lo = i
		}
	}
	for i := lo + 1; i < len(vs); i++ {
		if !vs[i].generator && !vs[i].good() {
			hi = i
			break
		}
	}
	if len(probes) >= spec.MaxSteps {
		why := fmt.Sprintf("the budget of %d probes ran out", spec.MaxSteps)
		if i := slices.IndexFunc(vs, func(v probeVerdict) bool { return v.x == last.X }); vs[i].again {
			why += fmt.Sprintf(" before the last probe (%g), near the boundary, could be run again", last.X)
		}
		return 0, spec.answer(probes, vs, lo, hi, why)
	}
	switch {
	case lo < 0 && hi < 0 && ceiling > 0:
		return 0, spec.answer(probes, vs, lo, hi, "the load generator limited every probe")
	case lo < 0:
		// Not even the lightest probe met the objective: go lower.
		low := vs[0].x
		if ceiling > 0 {
			low = min(low, ceiling)
		}
		next := spec.tidy(low / spec.Growth)
		if spec.Axis == "threads" && low <= 1 || next <= 0 || next >= low {
			return 0, spec.answer(probes, vs, lo, hi, "the lightest load possible missed the objective")
		}
		return next, nil
	case hi < 0:
		return spec.grow(probes, vs, lo, ceiling)
	}
	a, b := vs[lo].x, vs[hi].x
	narrow := spec.Axis == "threads" && b-a <= 1 || (b-a)/a <= spec.Precision
	if narrow {
		// The bracket's ends are the probes nearest the boundary: each
		// is trusted once it has been run twice with the same verdict (a
		// third run decides two that disagree), so that one noisy run
		// (a checkpoint, a neighbour on the host) does not set it.
		for _, i := range []int{hi, lo} {
			if !vs[i].settled() && vs[i].runs < maxRuns {
				return vs[i].x, nil
			}
		}
		if spec.Axis == "threads" && b-a <= 1 {
			return 0, spec.answer(probes, vs, lo, hi, "the bracket is one virtual user wide, each end run twice")
		}
		return 0, spec.answer(probes, vs, lo, hi, fmt.Sprintf("the bracket is within %.0f%%, each end run twice", 100*spec.Precision))
	}
	next := spec.tidy((a + b) / 2)
	if next <= a || next >= b {
		return 0, spec.answer(probes, vs, lo, hi, "the bracket cannot be split further")
	}
	return next, nil
}

// grow is the next probe while every probe has met the objective (vs[lo]
// the highest): Growth times it, up to the ceiling (the spec's, or a probe
// the generator limited); the answer once the ceiling is reached.
func (spec SearchSpec) grow(probes []result.SearchProbe, vs []probeVerdict, lo int, ceiling float64) (float64, *result.Search) {
	next := spec.tidy(vs[lo].x * spec.Growth)
	if ceiling <= 0 || next < ceiling {
		return next, nil
	}
	// probed: the ceiling is a probe the generator limited.
	probed := slices.ContainsFunc(vs, func(v probeVerdict) bool { return v.generator && v.x == ceiling })
	limit := "the ceiling of the load the generator may offer"
	if probed {
		limit = "the load generator's limit"
	}
	if ceiling <= vs[lo].x*(1+spec.Precision) {
		return 0, spec.answer(probes, vs, lo, -1, "it met the objective up to "+limit)
	}
	if probed {
		next = spec.tidy((vs[lo].x + ceiling) / 2) // under the generator's limit
	} else {
		next = spec.tidy(ceiling)
	}
	if next <= vs[lo].x || next >= ceiling && probed {
		return 0, spec.answer(probes, vs, lo, -1, "it met the objective up to "+limit)
	}
	return next, nil
}

// tidy rounds an axis value: whole virtual users; a rate to 3
// significant digits (4 past 1000), which keeps the labels short without
// moving a probe by more than half a percent.
func (s SearchSpec) tidy(x float64) float64 {
	if s.Axis == "threads" {
		return math.Max(1, math.Floor(x))
	}
	if x <= 0 {
		return 0
	}
	digits := 3.0
	if x >= 1000 {
		digits = 4
	}
	scale := math.Pow(10, digits-1-math.Floor(math.Log10(x)))
	return math.Round(x*scale) / scale
}

// answer is the search's answer: the bracket vs[lo] (the highest value
// that met the objective; -1: none) and vs[hi] (the lowest above it that
// did not; -1: none), stopped for why.
func (s SearchSpec) answer(probes []result.SearchProbe, vs []probeVerdict, lo, hi int, why string) *result.Search {
	a := &result.Search{Axis: s.Axis, SLOMs: s.SLOMs, Percentile: s.Percentile, Precision: s.Precision, MaxSteps: s.MaxSteps, Probes: probes}
	if lo >= 0 {
		a.X, a.Capacity = vs[lo].x, vs[lo].throughput
	}
	if hi >= 0 {
		a.Next = vs[hi].x
	}
	switch {
	case lo >= 0 && hi >= 0:
		a.Outcome = "found"
		a.PrecisionReached = (a.Next - a.X) / a.X
	case lo >= 0:
		a.Outcome = "always_met"
	case slices.ContainsFunc(vs, func(v probeVerdict) bool { return !v.generator }):
		a.Outcome = "never_met"
	default:
		a.Outcome = "budget"
	}
	a.Stopped = why
	return a
}
