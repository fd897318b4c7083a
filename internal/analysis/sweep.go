package analysis

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/rightsize/rightsize/internal/result"
)

// Options are the analysis's choices: the p99 objective of the SLO knee (0:
// none) and the CPU the sweet spot must stay under (percent).
type Options struct {
	SLOMs        float64
	CPUTargetPct float64
	// TypeSLOMs are p95 objectives of transaction types, by name (the
	// type-slo knee); none: no such knee.
	TypeSLOMs map[string]float64
}

// OptionsOf are the options a sweep was run with.
func OptionsOf(sw *result.Sweep) Options {
	return Options{SLOMs: sw.SLOMs, CPUTargetPct: sw.CPUTargetPct, TypeSLOMs: sw.TypeSLOMs}
}

// Result is a sweep as analysed: a copy of its data, its steps in the order
// the methods read them (rising along a load axis; a workload's own steps
// keep theirs) and the options applied, with what the methods found. Knee
// indexes are into its Steps.
type Result struct {
	*result.Sweep
	Knees []Knee `json:"knees"`
	// Knee is the sweep's knee, the one every rendering names (headline,
	// verdict, chart, the configurations' comparison, the planner): the
	// first of KneeMethods that found one (PrimaryKnee); nil when none did,
	// or when the sweep was past its limit from its first step (PastLimit).
	Knee *Knee `json:"knee,omitempty"`
	// PastLimit says, when every step was already past the system's limit
	// (an open loop whose first step fell behind its schedule, or no step
	// within the SLO), that there is no knee in the range and why; "" when
	// some step was below the limit. Then no method's finding is a knee
	// and no service demand is given, so that no VM is planned from it.
	PastLimit   string  `json:"past_limit,omitempty"`
	USL         *USL    `json:"usl,omitempty"`
	USLError    string  `json:"usl_error,omitempty"`
	Demand      *Demand `json:"demand,omitempty"`
	DemandError string  `json:"demand_error,omitempty"`
	// Limited lists the steps the load generator limited (GeneratorLimit):
	// the methods read only the steps before the first of them (Usable).
	Limited []Limited `json:"generator_limited,omitempty"`
	// Stalled lists the other steps in which the load generator stalled
	// (GeneratorStall): each is left out of the methods, the steps after
	// it are kept.
	Stalled []Limited `json:"generator_stalled,omitempty"`
	// Diagnosis is what held the sweep, at which step, and the steps whose
	// figures need a caution (Diagnose); the verdict words it.
	Diagnosis *Diagnosis `json:"diagnosis,omitempty"`
}

// Analyze finds the knees, the service demand and sweet spot, and (over
// threads or instances) the USL fit from the steps, up to the first one
// the load generator limited (its figures and those after it measure the
// client, so no knee is claimed there) and without those in which it
// stalled. Steps that vary the work rather than the load (OwnSteps) get
// no knee, only the generator's checks. sw is not changed: the Result
// holds its own copy. The Result's Diagnosis is made from what they found.
func Analyze(sw *result.Sweep, o Options) *Result {
	r := analyze(sw, o)
	r.Diagnosis = Diagnose(r)
	return r
}

// analyze is Analyze but for the diagnosis.
func analyze(sw *result.Sweep, o Options) *Result {
	cp := *sw
	cp.Steps = slices.Clone(sw.Steps)
	cp.SLOMs, cp.CPUTargetPct, cp.TypeSLOMs = o.SLOMs, o.CPUTargetPct, o.TypeSLOMs
	r := &Result{Sweep: &cp}
	if !cp.OwnSteps {
		// The methods read the steps in rising order of the load axis.
		slices.SortStableFunc(cp.Steps, func(a, b result.SweepStep) int { return cmp.Compare(a.X, b.X) })
	}
	r.Limited = limits(cp.Steps, cp.Embedded, cp.HostIsServer)
	r.Stalled = stalls(cp.Steps, r.Limited)
	if cp.OwnSteps {
		return r // the steps vary the work, not the load
	}
	use := r.Used()
	ps := pick(r.Points(), use)
	if len(ps) == 0 {
		r.DemandError, r.USLError = "the load generator limited every step", "the load generator limited every step"
		return r
	}
	r.Knees = []Knee{MarginalKnee(ps, 0.2), Kneedle(ps)}
	if ps[0].Offered > 0 {
		sk := SustainedKnee(ps)
		if keptAll(ps) {
			// Throughput followed the offered rate at every step: the
			// curve's shape is the schedule's, not the system's limit.
			for i, k := range r.Knees {
				if k.Index >= 0 {
					r.Knees[i] = none(k.Method, "every step kept up with the rate offered, so the throughput curve is the load's shape, not a limit's (it found: "+k.Reason+")")
				}
			}
		}
		r.Knees = append(r.Knees, sk)
	}
	if o.SLOMs > 0 {
		r.Knees = append(r.Knees, SLOKnee(ps, o.SLOMs))
	}
	if len(o.TypeSLOMs) > 0 {
		r.Knees = append(r.Knees, TypeSLOKnee(ps, o.TypeSLOMs))
	}
	if cp.Search != nil {
		r.Knees = append(r.Knees, SearchKnee(ps, cp.Search))
	}
	for i := range r.Knees {
		if r.Knees[i].Index >= 0 {
			r.Knees[i].Index = use[r.Knees[i].Index] // into Steps
		}
	}
	if r.PastLimit = pastLimit(ps, o.SLOMs, cp.Steps[use[0]].Label); r.PastLimit != "" {
		for i, k := range r.Knees {
			if k.Index >= 0 {
				r.Knees[i] = none(k.Method, fmt.Sprintf("not a knee: %s (it found: %s)", r.PastLimit, k.Reason))
			}
		}
		r.DemandError = r.PastLimit + ": no VM is planned from a sweep that never ran below its limit; sweep from a lower load"
	} else {
		if k, ok := FirstKnee(r.Knees, len(r.Steps)); ok {
			r.Knee = &k
		}
		r.Demand, r.DemandError = demandOf(pickSteps(cp.Steps, use), o.CPUTargetPct)
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

// demandOf is the service demand of steps (all with host figures), or why
// there is none.
func demandOf(steps []result.SweepStep, cpuTargetPct float64) (*Demand, string) {
	var ls []Load
	cpus := 0
	for _, st := range steps {
		if st.Host == nil {
			return nil, "no host CPU figures for every step"
		}
		cpus = st.Host.CPUs
		ls = append(ls, Load{X: st.X, Throughput: st.Throughput, P99Ms: st.P99Ms, BusyPct: st.Host.CPU.Busy(), Label: st.Label})
	}
	d, err := ServiceDemand(ls, cpus, cpuTargetPct)
	if err != nil {
		return nil, err.Error()
	}
	return &d, ""
}

// pastLimit says why no step of ps (rising; the first labelled first) was
// below the system's limit: an open loop whose first step already fell
// behind its schedule (under 95 % of the rate offered done), or no step
// within the SLO (sloMs > 0); "" when some step was.
func pastLimit(ps []Point, sloMs float64, first string) string {
	if len(ps) == 0 {
		return ""
	}
	p := ps[0]
	if p.Offered > 0 && p.Throughput < 0.95*p.Offered {
		return fmt.Sprintf("no step kept up: the system was past its limit at the first step (%s: %.0f/s done of %.0f/s offered, %.0f%%)",
			first, p.Throughput, p.Offered, 100*p.Throughput/p.Offered)
	}
	if sloMs <= 0 {
		return ""
	}
	for _, q := range ps {
		if q.P99Ms <= sloMs {
			return ""
		}
	}
	return fmt.Sprintf("no step met the SLO (p99 within %g ms): the system was past its limit at the first step (%s: p99 %.4g ms)", sloMs, first, p.P99Ms)
}

// Used are the indexes of the steps the knee methods, the demand and the
// fit read: those before the first step the generator limited (Usable),
// less those in which it stalled.
func (r *Result) Used() []int {
	var out []int
	for i := range r.Usable() {
		if !r.StalledAt(i) {
			out = append(out, i)
		}
	}
	return out
}

// StalledAt reports whether the generator stalled in step i (Stalled).
func (r *Result) StalledAt(i int) bool {
	return slices.ContainsFunc(r.Stalled, func(l Limited) bool { return l.Index == i })
}

func pick(ps []Point, at []int) []Point {
	out := make([]Point, len(at))
	for i, j := range at {
		out[i] = ps[j]
	}
	return out
}

func pickSteps(steps []result.SweepStep, at []int) []result.SweepStep {
	out := make([]result.SweepStep, len(at))
	for i, j := range at {
		out[i] = steps[j]
	}
	return out
}

// Points are the steps as the knee methods read them.
func (r *Result) Points() []Point {
	ps := make([]Point, len(r.Steps))
	for i, st := range r.Steps {
		ps[i] = Point{X: st.X, Throughput: st.Throughput, P99Ms: st.P99Ms, Offered: st.Offered, Label: st.Label, Types: st.Types}
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

// OptionsOver are the options of sw with a command line's over them: the
// p99 objective sloMs when sloSet; the CPU target cpuTargetPct when
// cpuTargetSet, or when the sweep recorded none (analyze's --slo and
// --cpu-target).
func OptionsOver(sw *result.Sweep, sloMs float64, sloSet bool, cpuTargetPct float64, cpuTargetSet bool) Options {
	o := OptionsOf(sw)
	if sloSet {
		o.SLOMs = sloMs
	}
	if cpuTargetSet || o.CPUTargetPct == 0 {
		o.CPUTargetPct = cpuTargetPct
	}
	return o
}
