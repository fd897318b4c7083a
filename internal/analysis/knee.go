package analysis

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/result"
)

// Point is one step of a sweep: the value of the swept axis (threads,
// instances, a rate multiple), the throughput reached, and the p99 response
// time in milliseconds.
type Point struct {
	X, Throughput, P99Ms float64
	// Offered is an open-loop step's intended starts per second (0 in a
	// closed loop).
	Offered float64
	// Label is the step's label ("rate 2x", "threads 4"), as the steps
	// table shows it and the knees' reasons name the step; "" names it by
	// X.
	Label string
	// Types are the step's transaction types (result.SweepStep.Types).
	Types []result.Type
}

// Name is how a sentence names the step: its label, else its axis value.
func (p Point) Name() string {
	if p.Label != "" {
		return p.Label
	}
	return strconv.FormatFloat(p.X, 'g', -1, 64)
}

// KneeMethods are the knee methods in the order a sweep's knee is taken
// from them (PrimaryKnee, the verdict): the first that found one.
var KneeMethods = []string{"search", "slo", "type-slo", "sustained", "marginal", "kneedle"}

// SearchKnee is a capacity search's answer as a knee: the step of the
// highest load that met the objective, when the search found its bracket
// (none when it did not: never met, or met up to its last probe).
func SearchKnee(ps []Point, a *result.Search) Knee {
	const method = "search"
	if a == nil || a.Outcome != "found" {
		return none(method, "no capacity search bracketed the objective")
	}
	for i, p := range ps {
		if p.X == a.X {
			return Knee{Method: method, Index: i, X: p.X, Reason: fmt.Sprintf(
				"the capacity search: %s met %s <= %g ms (%.0f/s done), %s %g did not (the bracket within %.1f%%)",
				p.Name(), a.Percentile, a.SLOMs, p.Throughput, a.Axis, a.Next, 100*a.PrecisionReached)}
		}
	}
	return none(method, fmt.Sprintf("the search's answer (%g) is not among the usable steps", a.X))
}

// SustainedKnee is, in an open loop (steps with an offered rate), the
// highest rate the system sustained: its throughput, and that of every
// step before it, within 5 % of the rate offered, where the next step
// fell behind its schedule. Past it throughput no longer follows the load
// and the response time (counted from the intended starts) climbs with
// the queue. None in a closed loop, when the first step already fell
// behind (the knee is below the range), or when every step was sustained.
// ps must be in increasing X.
func SustainedKnee(ps []Point) Knee {
	const method = "sustained"
	if len(ps) == 0 || ps[0].Offered <= 0 {
		return none(method, "not an open loop (no offered rate)")
	}
	kept := func(p Point) bool { return p.Offered > 0 && p.Throughput >= KeptShare*p.Offered }
	at := -1
	for i, p := range ps {
		if !kept(p) {
			break
		}
		at = i
	}
	switch {
	case at < 0:
		return none(method, fmt.Sprintf("the first step (%s) already fell behind: %.0f/s done of %.0f/s offered, so the knee is below the range", ps[0].Name(), ps[0].Throughput, ps[0].Offered))
	case at == len(ps)-1:
		return none(method, fmt.Sprintf("every step was sustained (throughput within 5%% of the rate offered) up to the last (%s)", ps[at].Name()))
	}
	next := ps[at+1]
	return Knee{Method: method, Index: at, X: ps[at].X, Reason: fmt.Sprintf(
		"%s is the highest rate sustained (%.0f/s done of %.0f/s offered); at %s the system fell behind (%.0f/s of %.0f/s, %.0f%%) while p99 went from %.0f to %.0f ms",
		ps[at].Name(), ps[at].Throughput, ps[at].Offered, next.Name(), next.Throughput, next.Offered, 100*next.Throughput/next.Offered, ps[at].P99Ms, next.P99Ms)}
}

// Knee is one method's answer. Index is -1 when the method found none.
type Knee struct {
	Method string  `json:"method"` // one of KneeMethods
	Index  int     `json:"index"`
	X      float64 `json:"x"`
	Reason string  `json:"reason"`
}

func none(method, why string) Knee { return Knee{Method: method, Index: -1, Reason: why} }

// MaxThroughput returns the highest throughput and its index (-1 when none).
func MaxThroughput(ps []Point) (float64, int) {
	best, at := math.Inf(-1), -1
	for i, p := range ps {
		if p.Throughput > best {
			best, at = p.Throughput, i
		}
	}
	return best, at
}

// SLOKnee is the largest step whose p99 meets the objective (sloMs) while
// its throughput is at least 95 % of the sweep's maximum: the most load the
// system takes while still answering in time.
func SLOKnee(ps []Point, sloMs float64) Knee {
	const method = "slo"
	if len(ps) == 0 || sloMs <= 0 {
		return none(method, "no steps, or no --slo given")
	}
	best, _ := MaxThroughput(ps)
	at := -1
	for i, p := range ps {
		if p.P99Ms <= sloMs && p.Throughput >= 0.95*best {
			at = i
		}
	}
	if at < 0 {
		for i, p := range ps {
			if p.P99Ms <= sloMs {
				at = i
			}
		}
		if at < 0 {
			return none(method, fmt.Sprintf("no step keeps p99 within %g ms", sloMs))
		}
		return Knee{Method: method, Index: at, X: ps[at].X, Reason: fmt.Sprintf(
			"the last step within the %g ms p99 objective is %s (p99 %.3g ms), at %.0f%% of the best throughput: the objective binds before throughput peaks",
			sloMs, ps[at].Name(), ps[at].P99Ms, 100*ps[at].Throughput/best)}
	}
	return Knee{Method: method, Index: at, X: ps[at].X, Reason: fmt.Sprintf(
		"%s is the largest step with p99 within %g ms (%.3g ms) and throughput within 5%% of the best (%.0f%%)",
		ps[at].Name(), sloMs, ps[at].P99Ms, 100*ps[at].Throughput/best)}
}

// TypeSLOKnee is the largest step at which every transaction type named in
// sloMs (p95 objectives in ms, by type) meets its objective while its
// throughput is at least 95 % of the sweep's best: the first study's
// knee, where the slowest of the components that matter leaves its
// response-time target. A step without a named type's figures (none
// recorded, or none succeeded) does not meet it. With --slo too, the slo
// knee comes first (KneeMethods).
func TypeSLOKnee(ps []Point, sloMs map[string]float64) Knee {
	const method = "type-slo"
	if len(ps) == 0 || len(sloMs) == 0 {
		return none(method, "no steps, or no --slo-type given")
	}
	names := slices.Sorted(maps.Keys(sloMs))
	// missed names the first type of step p past its objective ("": none).
	missed := func(p Point) string {
		for _, n := range names {
			i := slices.IndexFunc(p.Types, func(t result.Type) bool { return t.Name == n })
			switch {
			case i < 0 || p.Types[i].Count == 0:
				return fmt.Sprintf("%s (no figures)", n)
			case p.Types[i].P95Ms > sloMs[n]:
				return fmt.Sprintf("%s (p95 %.3g ms > %g ms)", n, p.Types[i].P95Ms, sloMs[n])
			}
		}
		return ""
	}
	best, _ := MaxThroughput(ps)
	at, anyMet := -1, -1
	for i, p := range ps {
		if missed(p) == "" {
			anyMet = i
			if p.Throughput >= 0.95*best {
				at = i
			}
		}
	}
	objectives := make([]string, len(names))
	for i, n := range names {
		objectives[i] = fmt.Sprintf("%s p95 ≤ %g ms", n, sloMs[n])
	}
	goal := strings.Join(objectives, ", ")
	switch {
	case anyMet < 0:
		return none(method, fmt.Sprintf("no step meets every type's objective (%s): at %s, %s", goal, ps[0].Name(), missed(ps[0])))
	case at < 0:
		at = anyMet
	}
	why := fmt.Sprintf("%s is the largest step with every type within its objective (%s) at %.0f%% of the best throughput", ps[at].Name(), goal, 100*ps[at].Throughput/best)
	if at+1 < len(ps) {
		if m := missed(ps[at+1]); m != "" {
			why += fmt.Sprintf("; at %s, %s", ps[at+1].Name(), m)
		}
	}
	return Knee{Method: method, Index: at, X: ps[at].X, Reason: why}
}

// MarginalKnee is where more load stops paying: the last step before the
// throughput gained per unit of the axis falls under frac of the first
// step's gain, or before throughput falls while p99 rises (the tipping
// point). ps must be in increasing X.
func MarginalKnee(ps []Point, frac float64) Knee {
	const method = "marginal"
	if len(ps) < 3 {
		return none(method, "fewer than 3 steps")
	}
	slope := func(i int) float64 { return (ps[i].Throughput - ps[i-1].Throughput) / (ps[i].X - ps[i-1].X) }
	initial := slope(1)
	if initial <= 0 {
		return Knee{Method: method, Index: 0, X: ps[0].X, Reason: fmt.Sprintf("throughput does not grow past the first step (%s)", ps[0].Name())}
	}
	for i := 2; i < len(ps); i++ {
		gain := ps[i].Throughput/ps[i-1].Throughput - 1
		more := ps[i].X/ps[i-1].X - 1
		p99 := 0.0
		if ps[i-1].P99Ms > 0 {
			p99 = ps[i].P99Ms/ps[i-1].P99Ms - 1
		}
		if ps[i].Throughput < ps[i-1].Throughput && ps[i].P99Ms > ps[i-1].P99Ms {
			return Knee{Method: method, Index: i - 1, X: ps[i-1].X, Reason: fmt.Sprintf(
				"tipping point at %s: going to %s lost %.0f%% of the throughput while p99 rose %.0f%%",
				ps[i-1].Name(), ps[i].Name(), -100*gain, 100*p99)}
		}
		if slope(i) < frac*initial {
			return Knee{Method: method, Index: i - 1, X: ps[i-1].X, Reason: fmt.Sprintf(
				"throughput stops scaling at %s: %+.0f%% throughput for %+.0f%% load going to %s, while p99 rose %.0f%%",
				ps[i-1].Name(), 100*gain, 100*more, ps[i].Name(), 100*p99)}
		}
	}
	return none(method, fmt.Sprintf("throughput still grows by at least %.0f%% of the first step's gain at the last step (%s)", 100*frac, ps[len(ps)-1].Name()))
}

// KneedleMinBend is how far above the chord (a share of the normalised
// range) a step must lie for Kneedle to call it a knee: a curve bent less
// is straight (a bend of 0 % was reported as a knee).
const KneedleMinBend = 0.05

// Kneedle finds the knee of the throughput curve as Satopää et al. (2011)
// define it for a concave, increasing curve: with both axes normalised to
// [0, 1], the point farthest above the straight line from the first to the
// last point.
func Kneedle(ps []Point) Knee {
	const method = "kneedle"
	if len(ps) < 3 {
		return none(method, "fewer than 3 steps")
	}
	x0, x1 := ps[0].X, ps[len(ps)-1].X
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, p := range ps {
		ymin, ymax = min(ymin, p.Throughput), max(ymax, p.Throughput)
	}
	if x1 <= x0 || ymax <= ymin {
		return none(method, "the curve is flat or its axis does not grow")
	}
	best, at := 0.0, -1
	for i, p := range ps {
		d := (p.Throughput-ymin)/(ymax-ymin) - (p.X-x0)/(x1-x0)
		if d > best {
			best, at = d, i
		}
	}
	if at < 0 {
		return none(method, "no point lies above the line from the first to the last step: no knee in the range")
	}
	if best < KneedleMinBend {
		return none(method, fmt.Sprintf("the throughput curve is straight: no step lies more than %.0f%% of the range above the chord (the most: %.1f%% at %s)", 100*KneedleMinBend, 100*best, ps[at].Name()))
	}
	return Knee{Method: method, Index: at, X: ps[at].X, Reason: fmt.Sprintf(
		"the throughput curve bends most at %s (%.0f%% of the range above the chord from %s to %s)", ps[at].Name(), 100*best, ps[0].Name(), ps[len(ps)-1].Name())}
}

// keptAll reports whether every step of an open loop did what it was
// offered (KeptShare).
func keptAll(ps []Point) bool {
	for _, p := range ps {
		if p.Offered <= 0 || p.Throughput < KeptShare*p.Offered {
			return false
		}
	}
	return true
}
