package analysis

import (
	"cmp"
	"slices"

	"github.com/rightsize/rightsize/internal/result"
)

// Options are the analysis's choices: the p99 objective of the SLO knee (0:
// none) and the CPU the sweet spot must stay under (percent).
type Options struct {
	SLOMs        float64
	CPUTargetPct float64
}

// OptionsOf are the options a sweep was run with.
func OptionsOf(sw *result.Sweep) Options {
	return Options{SLOMs: sw.SLOMs, CPUTargetPct: sw.CPUTargetPct}
}

// Result is a sweep as analysed: a copy of its data, its steps in the order
// the methods read them (rising along a load axis; a workload's own steps
// keep theirs) and the options applied, with what the methods found. Knee
// indexes are into its Steps.
type Result struct {
	*result.Sweep
	Knees       []Knee  `json:"knees"`
	USL         *USL    `json:"usl,omitempty"`
	USLError    string  `json:"usl_error,omitempty"`
	Demand      *Demand `json:"demand,omitempty"`
	DemandError string  `json:"demand_error,omitempty"`
	// Limited lists the steps the load generator limited (GeneratorLimit):
	// the methods read only the steps before the first of them (Usable).
	Limited []Limited `json:"generator_limited,omitempty"`
}

// Analyze finds the knees, the service demand and sweet spot, and (over
// threads or instances) the USL fit from the steps, up to the first one
// the load generator limited: its figures and those after it measure the
// client, so no knee is claimed there. Steps that vary the work rather
// than the load (OwnSteps) get none. sw is not changed: the Result holds
// its own copy.
func Analyze(sw *result.Sweep, o Options) *Result {
	cp := *sw
	cp.Steps = slices.Clone(sw.Steps)
	cp.SLOMs, cp.CPUTargetPct = o.SLOMs, o.CPUTargetPct
	r := &Result{Sweep: &cp}
	if cp.OwnSteps {
		return r // the steps vary the work, not the load
	}
	// The methods read the steps in rising order of the load axis.
	slices.SortStableFunc(cp.Steps, func(a, b result.SweepStep) int { return cmp.Compare(a.X, b.X) })
	r.Limited = limits(cp.Steps, cp.Embedded, cp.HostIsServer)
	ps := r.Points()[:r.Usable()]
	if len(ps) == 0 {
		r.DemandError, r.USLError = "the load generator limited every step", "the load generator limited every step"
		return r
	}
	r.Knees = []Knee{MarginalKnee(ps, 0.2), Kneedle(ps)}
	if ps[0].Offered > 0 {
		r.Knees = append(r.Knees, SustainedKnee(ps))
	}
	if o.SLOMs > 0 {
		r.Knees = append(r.Knees, SLOKnee(ps, o.SLOMs))
	}
	var ls []Load
	cpus := 0
	for _, st := range cp.Steps[:len(ps)] {
		if st.Host == nil {
			ls = nil
			break
		}
		cpus = st.Host.CPUs
		ls = append(ls, Load{X: st.X, Throughput: st.Throughput, P99Ms: st.P99Ms, BusyPct: st.Host.CPU.Busy()})
	}
	if ls == nil {
		r.DemandError = "no host CPU figures for every step"
	} else if d, err := ServiceDemand(ls, cpus, o.CPUTargetPct); err != nil {
		r.DemandError = err.Error()
	} else {
		r.Demand = &d
	}
	if cp.Axis == "threads" || cp.Axis == "instances" {
		xs, ys := make([]float64, len(ps)), make([]float64, len(ps))
		for i, p := range ps {
			xs[i], ys[i] = p.X, p.Throughput
		}
		if u, err := FitUSL(xs, ys, 200, 1); err == nil {
			r.USL = &u
		} else {
			r.USLError = err.Error()
		}
	}
	return r
}

// Points are the steps as the knee methods read them.
func (r *Result) Points() []Point {
	ps := make([]Point, len(r.Steps))
	for i, st := range r.Steps {
		ps[i] = Point{X: st.X, Throughput: st.Throughput, P99Ms: st.P99Ms, Offered: st.Offered}
	}
	return ps
}

// Hosts are the steps' host figures (nil where none were sampled).
func (r *Result) Hosts() []*result.Host {
	hs := make([]*result.Host, len(r.Steps))
	for i, st := range r.Steps {
		hs[i] = st.Host
	}
	return hs
}
