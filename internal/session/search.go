package session

import (
	"cmp"
	"context"
	"slices"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// search runs a capacity search's probes, each an ordinary measured step
// with its warm-up, until the search has its answer (analysis.NextProbe).
func (s *session) search(ctx context.Context) error {
	p := s.plan
	spec := analysis.SearchSpec{Axis: p.Search.Axis, SLOMs: p.SLO, Percentile: p.SLOPct, Precision: p.Search.Precision, MaxSteps: p.Search.MaxSteps, Start: 1}
	if spec.Axis == "rate" {
		spec.Start = s.baseline
	}
	var probes []result.SearchProbe
	for {
		x, ans := analysis.NextProbe(spec, probes)
		if ans != nil {
			live := float64(s.live(p.Steps[0]))
			if ans.Capacity > 0 && live > 0 {
				ans.CapacityPerInstance = ans.Capacity / live
			}
			s.out.Search = ans
			return nil
		}
		runs := 0
		for _, pr := range probes {
			if pr.X == x {
				runs++
			}
		}
		l := p.SearchStep(x, runs)
		st := s.position(len(probes), spec.MaxSteps, l)
		st.Search = true
		res, err := s.runPosition(ctx, st)
		if err != nil {
			return err
		}
		hostIsServer, embedded := s.hostFacts()
		step := s.sweepStep(res, l, st.Path)
		probe := analysis.ProbeOf(spec, step, highestMet(probes, x), analysis.GeneratorLimit(step, embedded, hostIsServer))
		probe.Result = step.Result
		probes = append(probes, probe)
		for _, o := range s.obs {
			o.Probed(st, probe)
		}
	}
}

// highestMet is the highest probe under x that met the objective (nil:
// none).
func highestMet(probes []result.SearchProbe, x float64) *result.SearchProbe {
	var best *result.SearchProbe
	for i, p := range probes {
		if p.Met && p.X < x && (best == nil || p.X > best.X) {
			best = &probes[i]
		}
	}
	return best
}

// searchSteps are a search's steps as a sweep holds them: one per axis
// value, in increasing value; of a probe run several times, the run whose
// searched latency is the median (of two, the higher).
func searchSteps(steps []result.SweepStep, a *result.Search) []result.SweepStep {
	lat := func(st result.SweepStep) float64 {
		if a.Percentile == "p95" {
			return st.P95Ms
		}
		return st.P99Ms
	}
	byX := map[float64][]result.SweepStep{}
	var xs []float64
	for _, st := range steps {
		if _, ok := byX[st.X]; !ok {
			xs = append(xs, st.X)
		}
		byX[st.X] = append(byX[st.X], st)
	}
	slices.Sort(xs)
	out := make([]result.SweepStep, 0, len(xs))
	for _, x := range xs {
		runs := byX[x]
		slices.SortStableFunc(runs, func(a, b result.SweepStep) int { return cmp.Compare(lat(a), lat(b)) })
		out = append(out, runs[len(runs)/2])
	}
	return out
}
