package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

// system is a simulated system under test: what a step at x does.
type system func(x float64, run int) result.SweepStep

// searchOn runs a search on sys to its answer, as the session does.
func searchOn(t *testing.T, spec SearchSpec, sys system, generator func(x float64) string) *result.Search {
	t.Helper()
	var probes []result.SearchProbe
	for range 100 {
		x, ans := NextProbe(spec, probes)
		if ans != nil {
			return ans
		}
		runs := 0
		var below *result.SearchProbe
		for i, p := range probes {
			if p.X == x {
				runs++
			}
			if p.Met && p.X < x && (below == nil || p.X > below.X) {
				below = &probes[i]
			}
		}
		gen := ""
		if generator != nil {
			gen = generator(x)
		}
		probes = append(probes, ProbeOf(spec, sys(x, runs), below, gen))
	}
	t.Fatalf("the search did not end in 100 probes: %+v", probes)
	return nil
}

// openLoop is a queue of capacity cap: p99 grows as the rate nears it
// (2 ms + 10 ms·r/(cap-r)), throughput follows the rate up to it; noise
// moves p99 by up to ±noise (a deterministic pattern by x and run).
func openLoop(cap, noise float64) system {
	return func(r float64, run int) result.SweepStep {
		p99 := 1e6
		if r < cap {
			p99 = 2 + 10*r/(cap-r)
		}
		p99 *= 1 + noise*math.Sin(r*7.3+float64(run)*2.1)
		return result.SweepStep{Label: "rate", X: r, Offered: r, Throughput: math.Min(r, cap), P99Ms: p99, P95Ms: p99 / 2}
	}
}

// A rate search brackets the rate where p99 passes the objective (20 ms
// at 642.9/s here) within the precision, in at most the budget, and says
// how precise it got.
func TestSearchRateFindsTheBoundary(t *testing.T) {
	spec := SearchSpec{Axis: "rate", SLOMs: 20, Start: 100}
	a := searchOn(t, spec, openLoop(1000, 0), nil)
	t.Logf("%+v", a)
	if a.Outcome != "found" || a.X > 642.9 || a.Next < 642.9 || a.PrecisionReached > DefaultPrecision {
		t.Fatalf("answer %+v: want a bracket around 642.9/s within 5%%", a)
	}
	if len(a.Probes) > DefaultMaxSteps || a.Capacity != a.X {
		t.Errorf("%d probes, capacity %v at %v", len(a.Probes), a.Capacity, a.X)
	}
	// On p95 (half the p99 here) the boundary moves up: 2+10r/(cap-r) = 40 at 791.7/s.
	spec.Percentile = "p95"
	if a := searchOn(t, spec, openLoop(1000, 0), nil); a.Outcome != "found" || a.X > 791.7 || a.Next < 791.7 {
		t.Errorf("p95 answer %+v, want a bracket around 791.7/s", a)
	}
}

// A probe whose p99 is within the noise of the objective is run again,
// and the answer still brackets the boundary within the noise.
func TestSearchRepeatsProbesNearTheBoundary(t *testing.T) {
	a := searchOn(t, SearchSpec{Axis: "rate", SLOMs: 20, Start: 100}, openLoop(1000, 0.08), nil)
	t.Logf("%+v", a)
	seen, again := map[float64]int{}, false
	for _, p := range a.Probes {
		seen[p.X]++
		again = again || seen[p.X] > 1
		if seen[p.X] > maxRuns {
			t.Errorf("probe %v run %d times", p.X, seen[p.X])
		}
	}
	if !again {
		t.Errorf("no probe near the boundary was run again: %+v", a.Probes)
	}
	// p99 ×(1 ± 0.08) moves the boundary between 2+10r/(1000-r) = 20/1.08
	// and 20/0.92: 624/s to 663/s.
	if a.Outcome != "found" && a.Outcome != "always_met" || a.X < 550 || a.X > 663 {
		t.Errorf("answer %+v, want the highest good rate near 624..663/s", a)
	}
}

// A system that never meets the objective gets no capacity, and says so.
func TestSearchNeverMeets(t *testing.T) {
	slow := func(r float64, _ int) result.SweepStep {
		return result.SweepStep{X: r, Offered: r, Throughput: r, P99Ms: 50}
	}
	a := searchOn(t, SearchSpec{Axis: "rate", SLOMs: 20, Start: 100}, slow, nil)
	if a.Outcome != "never_met" || a.Capacity != 0 || a.X != 0 {
		t.Errorf("answer %+v, want never_met without a capacity", a)
	}
	for _, p := range a.Probes {
		if p.X > 100 {
			t.Errorf("probed %v above the start though nothing met the objective", p.X)
		}
	}
}

// A system that always meets it is probed up to the budget, and the
// answer says the capacity is above the heaviest probe, not at it.
func TestSearchAlwaysMeets(t *testing.T) {
	fast := func(r float64, _ int) result.SweepStep {
		return result.SweepStep{X: r, Offered: r, Throughput: r, P99Ms: 1}
	}
	a := searchOn(t, SearchSpec{Axis: "rate", SLOMs: 20, Start: 100, MaxSteps: 5}, fast, nil)
	if a.Outcome != "always_met" || a.X != 1600 || a.Next != 0 || !strings.Contains(a.Stopped, "budget") {
		t.Errorf("answer %+v, want always_met at 1600/s (100·2⁴), stopped by the budget", a)
	}
	// With a ceiling (the generator's), it stops there.
	a = searchOn(t, SearchSpec{Axis: "rate", SLOMs: 20, Start: 100, Ceiling: 500}, fast, nil)
	if a.Outcome != "always_met" || a.X != 500 || !strings.Contains(a.Stopped, "ceiling") {
		t.Errorf("answer %+v, want always_met at the ceiling 500/s", a)
	}
	// A probe the generator limited is no verdict on the system: the
	// search stops under it.
	gen := func(r float64) string {
		if r > 700 {
			return "the generator used 95% of the host's CPU"
		}
		return ""
	}
	a = searchOn(t, SearchSpec{Axis: "rate", SLOMs: 20, Start: 100}, fast, gen)
	if a.Outcome != "always_met" || a.X > 700 || !strings.Contains(a.Stopped, "generator") {
		t.Errorf("answer %+v, want always_met under the generator's limit (700/s)", a)
	}
}

// A rate the system falls behind is not met, whatever its latency.
func TestSearchRateFallsBehind(t *testing.T) {
	behind := func(r float64, _ int) result.SweepStep {
		return result.SweepStep{X: r, Offered: r, Throughput: math.Min(r, 300), P99Ms: 5}
	}
	a := searchOn(t, SearchSpec{Axis: "rate", SLOMs: 20, Start: 100}, behind, nil)
	if a.Outcome != "found" || a.X > 300/KeptShare || a.Next < 300 || a.X < 280 {
		t.Errorf("answer %+v, want the bracket at the 300/s the system keeps up with", a)
	}
}

// Searching the users of a closed loop: the most before throughput stops
// growing (here it saturates at 8 users, 800/s, with p99 far within the
// objective), bracketed to one user.
func TestSearchThreads(t *testing.T) {
	closed := func(n float64, _ int) result.SweepStep {
		tp := math.Min(100*n, 800)
		return result.SweepStep{X: n, Throughput: tp, P99Ms: 3 * n * 1000 / tp}
	}
	a := searchOn(t, SearchSpec{Axis: "threads", SLOMs: 100, Start: 1}, closed, nil)
	t.Logf("%+v", a)
	if a.Outcome != "found" || a.X != 8 || a.Next != 9 || a.Capacity != 800 {
		t.Errorf("answer %+v, want 8 users (800/s), 9 the first that adds nothing", a)
	}
	// On a tight objective the latency decides: p99 = 30 ms up to 8
	// users, then 3.75 ms per user: 20 users pass 75 ms.
	a = searchOn(t, SearchSpec{Axis: "threads", SLOMs: 25, Start: 1}, closed, nil)
	if a.Outcome != "never_met" {
		t.Errorf("answer %+v, want never_met: 30 ms at one user", a)
	}
}

// One noisy run (a checkpoint, say) at a load the system takes does not
// set the answer: the bracket's ends are each run twice, a third run
// decides, and the search goes on past the fluke.
func TestSearchConfirmsTheBracket(t *testing.T) {
	calm := openLoop(1000, 0)
	spiky := func(r float64, run int) result.SweepStep {
		st := calm(r, run)
		if r == 600 && run == 0 {
			st.P99Ms = 400 // the first run at 600/s hit a checkpoint
		}
		return st
	}
	a := searchOn(t, SearchSpec{Axis: "rate", SLOMs: 20, Start: 100, MaxSteps: 16}, spiky, nil)
	t.Logf("%+v", a)
	if a.Outcome != "found" || a.X < 600 || a.X > 642.9 || a.Next < 642.9 {
		t.Errorf("answer %+v, want the bracket around 642.9/s despite the fluke at 600/s", a)
	}
	runs := map[float64]int{}
	for _, p := range a.Probes {
		runs[p.X]++
	}
	if runs[600] != 3 || runs[a.X] < 2 || runs[a.Next] < 2 {
		t.Errorf("runs by rate %v: want 600/s run three times and each end of the bracket twice", runs)
	}
}
