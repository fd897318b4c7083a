package sizing

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// The response-time model a plan at an objective predicts with: an
// event's p99 is a part no CPU count shortens (the round trip, I/O, locks,
// the client's own lag: fitted to the measured steps), its CPU service
// time (the demand), and the p99 of its wait for one of c CPUs as an
// M/M/c queue waits, times a scale fitted to the measured steps (a
// database's service times vary less than the exponential's, and its
// wait less). A quota of 0.5 CPU is a queue of one CPU at half its
// capacity; an event still runs at full speed between the quota's
// throttles. Adding a p99 to a p99 leans high: the p99 of a sum is at most
// the sum of the p99s.

// slowed is the service time s on cpus CPUs used as c whole ones (c the
// nearest count, at least 1): each runs at cpus/c of one.
func slowed(cpus, s float64) (c int, se float64) {
	c = max(int(math.Round(cpus)), 1)
	return c, s * float64(c) / cpus
}

// waitP99 is the p99 of the wait for a CPU in an M/M/c queue, in the unit
// of s: cpus CPUs (see slowed), rate events per unit of time each needing s
// of one CPU. The wait is 0 with probability 1 − C (Erlang's C) and else
// exponential at θ = cμ − λ, so P(W > t) = C·e^(−θt): its p99 is 0 when C
// <= 1 %, else ln(C/0.01)/θ. It is +Inf at or past saturation.
func waitP99(cpus, rate, s float64) float64 {
	c, se := slowed(cpus, s)
	a := rate * se
	if !(a < float64(c)) || !(s > 0) {
		return math.Inf(1)
	}
	C := ErlangC(c, a)
	if C <= 0.01 {
		return 0
	}
	return math.Log(C/0.01) / (float64(c)/se - rate)
}

// Objective is a plan at a p99 objective: the fewest vCPUs whose predicted
// p99 at the target rate meets it, and how the model was fitted.
type Objective struct {
	P99Ms float64 `json:"p99_ms"` // the objective
	// MeasuredCPUs is the CPUs the sweep's database had: its cgroup's
	// limit where one held it, else the host's CPUs.
	MeasuredCPUs float64 `json:"measured_cpus"`
	Allotment    string  `json:"allotment"` // where MeasuredCPUs came from
	// ServiceMs is the CPU an event needs (the demand), which queues for
	// CPUs; OtherP99Ms is the rest of the measured p99s: each step's p99
	// less its (scaled) wait for a CPU and its service on the measured
	// CPUs, the median over the steps.
	ServiceMs  float64 `json:"service_ms"`
	OtherP99Ms float64 `json:"other_p99_ms"`
	// WaitScale is what the M/M/c p99 wait is multiplied by, fitted to the
	// measured steps (1: the exponential service of M/M/c).
	WaitScale float64 `json:"wait_scale"`
	fitSteps  int
	// Fit is the model against each measured step, on the measured CPUs.
	Fit []FitPoint `json:"fit"`
	// VCPU is the answer (0: no count meets the objective), with its
	// predicted p99 and utilisation.
	VCPU           int     `json:"vcpu"`
	PredictedP99Ms float64 `json:"predicted_p99_ms,omitempty"`
	UtilisationPct float64 `json:"utilisation_pct,omitempty"`
	// Extrapolated tells that the answer lies outside what the sweep
	// measured (another CPU count, or a rate past its steps).
	Extrapolated bool   `json:"extrapolated"`
	Why          string `json:"why,omitempty"` // when VCPU is 0
}

// FitPoint is one measured step beside the model's p99 for it.
type FitPoint struct {
	Label          string  `json:"label"`
	Rate           float64 `json:"rate"`
	MeasuredP99Ms  float64 `json:"measured_p99_ms"`
	PredictedP99Ms float64 `json:"predicted_p99_ms"`
}

// maxUtilisation is the most a predicted CPU count may be busy: past it
// the tail grows too steeply for a model fitted at lighter loads.
const maxUtilisation = 0.95

// maxStretch is how far, in CPUs, the answer may lie from the CPUs
// measured before the plan refuses to predict it.
const maxStretch = 32

// measuredCPUs is the CPUs the database had in the sweep: its cgroup's
// limit (--db-cgroup, a container's quota) on its first measured step, else
// the host's CPUs.
func measuredCPUs(st result.SweepStep) (float64, string) {
	if st.Host == nil {
		return 0, ""
	}
	for _, g := range st.Host.Cgroups {
		if g.LimitCPUs > 0 && (g.Role == "database" || g.Role == "rightsize and database") {
			return g.LimitCPUs, fmt.Sprintf("the database's cgroup %s held it to %.2f CPUs", g.Path, g.LimitCPUs)
		}
	}
	return float64(st.Host.CPUs), fmt.Sprintf("the host's %d CPUs (no cgroup limit on the database)", st.Host.CPUs)
}

// planObjective fits the model to the sweep's measured steps (demand:
// CPU seconds per event) and finds the fewest vCPUs that carry rate with
// a predicted p99 within sloMs.
func planObjective(sw *analysis.Result, demand, rate, sloMs float64) *Objective {
	used := sw.Used()
	if len(used) == 0 || !(demand > 0) || !(sloMs > 0) {
		return nil
	}
	first := sw.Steps[used[0]]
	cpus, from := measuredCPUs(first)
	if cpus <= 0 || first.P99Ms <= 0 {
		return nil
	}
	s := demand * 1000 // ms
	o := &Objective{P99Ms: sloMs, MeasuredCPUs: cpus, Allotment: from, ServiceMs: s}
	if !o.fit(sw, used, cpus, sloMs) {
		return nil
	}
	most := 0.0
	for _, i := range used {
		st := sw.Steps[i]
		o.Fit = append(o.Fit, FitPoint{Label: st.Label, Rate: st.Throughput, MeasuredP99Ms: st.P99Ms,
			PredictedP99Ms: o.predict(cpus, st.Throughput)})
		most = max(most, st.Throughput)
	}
	if o.OtherP99Ms+s >= sloMs {
		o.Why = fmt.Sprintf("the measured p99s less their wait for CPUs leave %.3g ms (the median over %d steps) that no CPU count shortens, and %.3g ms of CPU service: over the objective (%.3g ms) whatever the count", o.OtherP99Ms, o.fitSteps, s, sloMs)
		return o
	}
	for c := 1; c <= maxStretch*max(int(math.Ceil(cpus)), 1); c++ {
		rho := rate * demand / float64(c)
		if rho > maxUtilisation {
			continue
		}
		p := o.predict(float64(c), rate)
		if p <= sloMs {
			o.VCPU, o.PredictedP99Ms, o.UtilisationPct = c, p, 100*rho
			o.Extrapolated = float64(c) != cpus || rate > most*1.05
			return o
		}
	}
	o.Why = fmt.Sprintf("no count up to %d vCPUs (%dx the %.2f measured) meets it: too far from what the sweep measured to predict", maxStretch*max(int(math.Ceil(cpus)), 1), maxStretch, cpus)
	return o
}

// predict is the model's p99 in ms on cpus CPUs at rate events a second.
func (o *Objective) predict(cpus, rate float64) float64 {
	return o.OtherP99Ms + o.ServiceMs + o.WaitScale*waitP99(cpus, rate/1000, o.ServiceMs)
}

// The wait's scale is bounded: a database's service times vary less than
// an exponential's (the M/M/c wait errs high, by (1 + Cs²)/2 in the
// Allen-Cunneen approximation), but a fit of a few noisy steps must not
// wish the queue away.
const minWaitScale, maxWaitScale = 0.1, 1.5

// fit fits the model to the measured steps within the objective that kept
// up with their rate, on the measured CPUs: each
// step's p99 less its service is the part no CPU count shortens plus the
// M/M/c p99 wait times a scale, by least squares over the steps; without
// a spread of waits to fit the scale from (every step too light to wait),
// the scale is 1. The part no CPU count shortens is then the median of
// the steps' p99 less their service and scaled wait.
func (o *Objective) fit(sw *analysis.Result, used []int, cpus, sloMs float64) bool {
	se := o.ServiceMs
	var xs, ys []float64
	for _, i := range used {
		st := sw.Steps[i]
		if st.P99Ms > sloMs || st.Offered > 0 && st.Throughput < 0.95*st.Offered {
			continue // past the objective, or fell behind: not the region predicted
		}
		if w := waitP99(cpus, st.Throughput/1000, o.ServiceMs); !math.IsInf(w, 1) && st.P99Ms > 0 {
			xs, ys = append(xs, w), append(ys, st.P99Ms-se)
		}
	}
	if len(xs) == 0 {
		return false
	}
	o.WaitScale = 1
	if len(xs) >= 2 && stat.Variance(xs, nil) > 1e-12 {
		_, slope := stat.LinearRegression(xs, ys, nil, false)
		o.WaitScale = min(max(slope, minWaitScale), maxWaitScale)
	}
	rest := make([]float64, len(xs))
	for i := range xs {
		rest[i] = max(ys[i]-o.WaitScale*xs[i], 0)
	}
	slices.Sort(rest)
	o.OtherP99Ms = rest[len(rest)/2]
	if len(rest)%2 == 0 {
		o.OtherP99Ms = (rest[len(rest)/2-1] + rest[len(rest)/2]) / 2
	}
	o.fitSteps = len(rest)
	return true
}

// sentence says the objective's answer, for the reasons.
func (o *Objective) sentence(ruleVCPU int, cpuTarget float64) string {
	if o.VCPU == 0 {
		return fmt.Sprintf("at the objective (p99 <= %.3g ms): none: %s", o.P99Ms, o.Why)
	}
	where := "interpolated: the CPUs and rates the sweep measured"
	if o.Extrapolated {
		where = fmt.Sprintf("extrapolated from %.2f measured CPUs", o.MeasuredCPUs)
	}
	return fmt.Sprintf("at the objective (p99 <= %.3g ms): %d vCPU(s), predicted p99 %.3g ms at %.0f%% CPU (%s; %.3g ms of CPU per event and its p99 wait for the CPUs, M/M/c's times %.2f as fitted to the %d measured steps, plus %.3g ms at the p99 that no CPU count shortens); the %.0f%% CPU rule alone gives %d",
		o.P99Ms, o.VCPU, o.PredictedP99Ms, o.UtilisationPct, where, o.ServiceMs, o.WaitScale, o.fitSteps, o.OtherP99Ms, cpuTarget, ruleVCPU)
}
