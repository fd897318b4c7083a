package sizing

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

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
	// limit where one held it, else the host's CPUs; MostCPUs the most of
	// any step where its steps had several (--db-cpus), else absent.
	MeasuredCPUs float64 `json:"measured_cpus"`
	MostCPUs     float64 `json:"most_measured_cpus,omitempty"`
	Allotment    string  `json:"allotment"` // where MeasuredCPUs came from
	// ServiceMs is the CPU an event needs (the demand), which queues for
	// CPUs; OtherP99Ms is the rest of the measured p99s: each step's p99
	// less its (scaled) wait for a CPU and its service on the measured
	// CPUs, the median over the steps.
	ServiceMs  float64 `json:"service_ms"`
	OtherP99Ms float64 `json:"other_p99_ms"`
	// ServiceLowMs and ServiceHighMs are the demand's spread: the least
	// and the most CPU per event of the fitted steps that measured the
	// server's own CPU (absent with fewer than two).
	ServiceLowMs  float64 `json:"service_low_ms,omitempty"`
	ServiceHighMs float64 `json:"service_high_ms,omitempty"`
	// WaitScale is what the M/M/c p99 wait is multiplied by, fitted to the
	// measured steps (1: the exponential service of M/M/c).
	WaitScale float64 `json:"wait_scale"`
	// Share is the usable share of the CPUs: the wait is an M/M/c queue's
	// on Share × the CPUs, fitted so that the model misses the objective
	// where the sweep did, between the most a step carried within it and
	// the least past it (1 where no step missed it); ShareFrom says which
	// steps it was fitted to.
	Share     float64 `json:"usable_share"`
	ShareFrom string  `json:"usable_share_from,omitempty"`
	fitSteps  int
	// Fit is the model against each measured step, on the measured CPUs.
	Fit []FitPoint `json:"fit"`
	// VCPU is the answer (0: no count meets the objective), with its
	// predicted p99 and utilisation.
	VCPU           int     `json:"vcpu"`
	PredictedP99Ms float64 `json:"predicted_p99_ms,omitempty"`
	UtilisationPct float64 `json:"utilisation_pct,omitempty"`
	// PredictedP99LowMs and PredictedP99HighMs are the answer's p99 at the
	// demand's spread (absent without one).
	PredictedP99LowMs  float64 `json:"predicted_p99_low_ms,omitempty"`
	PredictedP99HighMs float64 `json:"predicted_p99_high_ms,omitempty"`
	// At are the predictions on the allotments plan --predict-cpus asked.
	At []Prediction `json:"at,omitempty"`
	// Extrapolated tells that the answer lies outside what the sweep
	// measured (another CPU count, or a rate past its steps).
	Extrapolated bool   `json:"extrapolated"`
	Why          string `json:"why,omitempty"` // when VCPU is 0
}

// Prediction is the model on one allotment of CPUs: the most events a
// second whose predicted p99 meets the objective (the capacity at the
// objective, at most maxUtilisation busy) and the p99 at the target rate
// (0: none, the rate is past the queue's capacity), each with the
// demand's spread (Low: the least CPU per event, High: the most; absent
// without a spread).
type Prediction struct {
	CPUs            float64 `json:"cpus"`
	Capacity        float64 `json:"capacity_at_objective"`
	CapacityLow     float64 `json:"capacity_low,omitempty"`
	CapacityHigh    float64 `json:"capacity_high,omitempty"`
	P99Ms           float64 `json:"p99_ms_at_target"`
	P99LowMs        float64 `json:"p99_low_ms,omitempty"`
	P99HighMs       float64 `json:"p99_high_ms,omitempty"`
	UtilisationPct  float64 `json:"utilisation_pct"`
	CPUsMeasured    bool    `json:"cpus_measured"`
	CapacityReached bool    `json:"capacity_bounded_by_utilisation,omitempty"`
}

// FitPoint is one measured step beside the model's p99 for it.
type FitPoint struct {
	Label          string  `json:"label"`
	CPUs           float64 `json:"cpus"`
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

// measuredCPUs is the CPUs the database had at a step: its cgroup's limit
// (--db-cpus, --db-cgroup, a container's quota), else the host's CPUs.
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
	least, most := cpus, cpus
	for _, i := range used {
		c, _ := measuredCPUs(sw.Steps[i])
		least, most = min(least, c), max(most, c)
	}
	if most > least {
		o.MeasuredCPUs, o.MostCPUs = least, most
		o.Allotment = fmt.Sprintf("the database's cgroup held it to %.3g to %.3g CPUs over the steps", least, most)
	}
	if !o.fit(sw, used, sloMs) {
		return nil
	}
	fastest := 0.0
	for _, i := range used {
		st := sw.Steps[i]
		c, _ := measuredCPUs(st)
		o.Fit = append(o.Fit, FitPoint{Label: st.Label, CPUs: c, Rate: st.Throughput, MeasuredP99Ms: st.P99Ms,
			PredictedP99Ms: finite(o.predict(c, st.Throughput))})
		fastest = max(fastest, st.Throughput)
	}
	if o.OtherP99Ms+s >= sloMs {
		o.Why = fmt.Sprintf("the measured p99s less their wait for CPUs leave %.3g ms (the median over %d steps) that no CPU count shortens, and %.3g ms of CPU service: over the objective (%.3g ms) whatever the count", o.OtherP99Ms, o.fitSteps, s, sloMs)
		return o
	}
	stretch := maxStretch * max(int(math.Ceil(most)), 1)
	for c := 1; c <= stretch; c++ {
		rho := rate * demand / float64(c)
		if rho > maxUtilisation {
			continue
		}
		p := o.predict(float64(c), rate)
		if p <= sloMs {
			o.VCPU, o.PredictedP99Ms, o.UtilisationPct = c, p, 100*rho
			o.PredictedP99LowMs, o.PredictedP99HighMs = o.spread(func(service float64) float64 { return finite(o.predictWith(service, float64(c), rate)) })
			o.Extrapolated = float64(c) < least || float64(c) > most || rate > fastest*1.05
			return o
		}
	}
	o.Why = fmt.Sprintf("no count up to %d vCPUs (%dx the %.3g measured) meets it: too far from what the sweep measured to predict", stretch, maxStretch, most)
	return o
}

// spread is f at the demand's spread (the least and the most CPU per
// event); zeros without one.
func (o *Objective) spread(f func(serviceMs float64) float64) (low, high float64) {
	if !(o.ServiceLowMs > 0 && o.ServiceHighMs > o.ServiceLowMs) {
		return 0, 0
	}
	return f(o.ServiceLowMs), f(o.ServiceHighMs)
}

// PredictAt is the model on cpus CPUs: its capacity at the objective and
// its p99 at rate, with the demand's spread.
func (o *Objective) PredictAt(cpus, rate float64) Prediction {
	p := Prediction{CPUs: cpus, P99Ms: finite(o.predict(cpus, rate)), UtilisationPct: 100 * rate * o.ServiceMs / 1000 / cpus,
		CPUsMeasured: cpus >= o.MeasuredCPUs && cpus <= max(o.MostCPUs, o.MeasuredCPUs)}
	p.Capacity, p.CapacityReached = o.capacity(o.ServiceMs, cpus)
	if o.ServiceLowMs > 0 {
		// The least CPU per event carries the most.
		p.CapacityHigh, _ = o.capacity(o.ServiceLowMs, cpus)
		p.CapacityLow, _ = o.capacity(o.ServiceHighMs, cpus)
	}
	p.P99LowMs, p.P99HighMs = o.spread(func(service float64) float64 { return finite(o.predictWith(service, cpus, rate)) })
	return p
}

// finite is x, or 0 when the model has no finite figure (a rate at or
// past the queue's capacity): JSON has no infinity, and 0 is "none".
func finite(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0
	}
	return x
}

// capacity is the most events a second on cpus CPUs, each needing
// serviceMs of CPU, whose predicted p99 meets the objective, and whether
// maxUtilisation bounded it rather than the objective; 0 when even a
// light load misses it. The predicted p99 grows with the rate, so a
// bisection finds it.
func (o *Objective) capacity(serviceMs, cpus float64) (float64, bool) {
	hi := maxUtilisation * o.usable() * cpus / serviceMs * 1000
	if o.predictWith(serviceMs, cpus, hi) <= o.P99Ms {
		return hi, true
	}
	lo := 0.0
	if o.predictWith(serviceMs, cpus, hi*1e-6) > o.P99Ms {
		return 0, false
	}
	for range 60 {
		mid := (lo + hi) / 2
		if o.predictWith(serviceMs, cpus, mid) <= o.P99Ms {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, false
}

// predict is the model's p99 in ms on cpus CPUs at rate events a second.
func (o *Objective) predict(cpus, rate float64) float64 {
	return o.predictWith(o.ServiceMs, cpus, rate)
}

// predictWith is predict for events that need serviceMs of CPU each.
func (o *Objective) predictWith(serviceMs, cpus, rate float64) float64 {
	return o.OtherP99Ms + serviceMs + o.WaitScale*waitP99(o.usable()*cpus, rate/1000, serviceMs)
}

// usable is Share, 1 when not fitted.
func (o *Objective) usable() float64 {
	if o.Share > 0 {
		return o.Share
	}
	return 1
}

// The wait's scale is bounded: a database's service times vary less than
// an exponential's (the M/M/c wait errs high, by (1 + Cs²)/2 in the
// Allen-Cunneen approximation), but a fit of a few noisy steps must not
// wish the queue away.
const minWaitScale, maxWaitScale = 0.1, 1.5

// fit fits the model to the measured steps within the objective that kept
// up with their rate and left their CPUs under maxUtilisation busy, each
// on its own CPUs: each step's p99 less its service is the part no CPU
// count shortens plus the M/M/c p99 wait times a scale, by least squares
// over the steps; without a spread of waits to fit the scale from (every
// step too light to wait), the scale is 1. The part no CPU count shortens
// is then the median of the steps' p99 less their service and scaled
// wait. The steps that measured the server's own CPU give the demand's
// spread.
func (o *Objective) fit(sw *analysis.Result, used []int, sloMs float64) bool {
	var within []result.SweepStep
	var demands []float64
	for _, i := range used {
		st := sw.Steps[i]
		cpus, _ := measuredCPUs(st)
		if !metObjective(st, sloMs) || st.Throughput*o.ServiceMs/1000/cpus > maxUtilisation || !(st.P99Ms > 0) {
			continue // past the objective, fell behind, or a saturated closed loop: not the region predicted
		}
		within = append(within, st)
		if u, ok := st.Host.ServerUsedCPUs(); ok && st.Throughput > 0 {
			demands = append(demands, 1000*u/st.Throughput)
		}
	}
	if len(within) == 0 {
		return false
	}
	if len(demands) >= 2 {
		o.ServiceLowMs, o.ServiceHighMs = slices.Min(demands), slices.Max(demands)
	}
	if len(demands) == len(within) && len(demands) >= 2 {
		// The CPU per event where the objective holds: past it a queue of
		// sessions spends more on each (contention, throttled lock holders).
		o.ServiceMs = stat.Quantile(0.5, stat.Empirical, slices.Sorted(slices.Values(demands)), nil)
	}
	o.Share = 1
	o.fitWait(within, true)
	if o.fitShare(sw, used, sloMs, false) {
		// The crossing fixes the queue's capacity: the wait is M/M/c's on
		// the usable share, and the part no CPU count shortens is fitted
		// again under it.
		for range 4 {
			o.fitWait(within, false)
			o.fitShare(sw, used, sloMs, true)
		}
		o.fitWait(within, false)
	}
	return true
}

// metObjective reports whether step st kept its p99 within sloMs and
// kept up with the rate offered it (95 %).
func metObjective(st result.SweepStep, sloMs float64) bool {
	return st.P99Ms <= sloMs && !(st.Offered > 0 && st.Throughput < 0.95*st.Offered)
}

// fitWait fits the part no CPU count shortens to the steps within the
// objective, on Share of their CPUs, and with scale the wait's scale:
// each step's p99 less its service is that part plus the M/M/c p99 wait
// times the scale, by least squares; without a spread of waits to fit the
// scale from (every step too light to wait), or without scale, it is 1.
// The part is then the median of the steps' p99 less their service and
// scaled wait.
func (o *Objective) fitWait(within []result.SweepStep, scale bool) {
	var xs, ys []float64
	for _, st := range within {
		cpus, _ := measuredCPUs(st)
		if w := waitP99(o.usable()*cpus, st.Throughput/1000, o.ServiceMs); !math.IsInf(w, 1) {
			xs, ys = append(xs, w), append(ys, st.P99Ms-o.ServiceMs)
		}
	}
	o.WaitScale, o.fitSteps = 1, len(xs)
	if len(xs) == 0 {
		o.OtherP99Ms = 0
		return
	}
	if scale && len(xs) >= 2 && stat.Variance(xs, nil) > 1e-12 {
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
}

// minShare is the least usable share of the CPUs the fit gives.
const minShare = 0.1

// fitShare fits Share on each allotment the sweep measured that has both
// a step within the objective and a heavier one past it, where the model
// on all the CPUs would still meet the objective past the rate the sweep
// missed it at: the share whose capacity at the objective is the
// geometric mean of the most the steps within it carried and the least
// rate offered past it; the median over the allotments. refit fits it
// again (the part no CPU count shortens fitted anew) on every such
// allotment. Where no step missed the objective there is nothing to
// fit it to, and it stays.
func (o *Objective) fitShare(sw *analysis.Result, used []int, sloMs float64, refit bool) bool {
	type bracket struct{ met, missed float64 }
	by := map[float64]*bracket{}
	for _, i := range used {
		st := sw.Steps[i]
		cpus, _ := measuredCPUs(st)
		b := by[cpus]
		if b == nil {
			b = &bracket{}
			by[cpus] = b
		}
		if metObjective(st, sloMs) {
			b.met = max(b.met, st.Throughput)
		}
	}
	for _, i := range used {
		st := sw.Steps[i]
		cpus, _ := measuredCPUs(st)
		offered := max(st.Offered, st.Throughput)
		if b := by[cpus]; !metObjective(st, sloMs) && offered > b.met && (b.missed == 0 || offered < b.missed) {
			b.missed = offered
		}
	}
	var shares []float64
	var from []string
	for _, cpus := range slices.Sorted(maps.Keys(by)) {
		b := by[cpus]
		if b.met <= 0 || b.missed <= 0 {
			continue
		}
		o.Share = 1
		if c, _ := o.capacity(o.ServiceMs, cpus); c <= b.missed && !refit {
			continue // the model, on all the CPUs, already misses the objective by the rate the sweep did
		}
		target := math.Sqrt(b.met * b.missed)
		lo, hi := minShare, 1.0
		for range 50 {
			o.Share = (lo + hi) / 2
			if c, _ := o.capacity(o.ServiceMs, cpus); c < target {
				lo = o.Share
			} else {
				hi = o.Share
			}
		}
		shares = append(shares, (lo+hi)/2)
		from = append(from, fmt.Sprintf("on %.3g CPUs within it at %.4g/s, past it at %.4g/s", cpus, b.met, b.missed))
	}
	if len(shares) == 0 {
		o.Share, o.ShareFrom = 1, ""
		return false
	}
	slices.Sort(shares)
	o.Share = stat.Quantile(0.5, stat.Empirical, shares, nil)
	o.ShareFrom = strings.Join(from, "; ")
	return true
}

// sentence says the objective's answer, for the reasons.
func (o *Objective) sentence(ruleVCPU int, cpuTarget float64) string {
	if o.VCPU == 0 {
		return fmt.Sprintf("at the objective (p99 <= %.3g ms): none: %s", o.P99Ms, o.Why)
	}
	where := "interpolated: the CPUs and rates the sweep measured"
	if o.Extrapolated {
		where = fmt.Sprintf("extrapolated from %s measured CPUs", o.measured())
	}
	spread := ""
	if o.PredictedP99HighMs > 0 {
		spread = fmt.Sprintf(" (%.3g to %.3g ms with the demand's spread over the steps, %.3g to %.3g ms of CPU per event)", o.PredictedP99LowMs, o.PredictedP99HighMs, o.ServiceLowMs, o.ServiceHighMs)
	}
	share := ""
	if o.ShareFrom != "" {
		share = fmt.Sprintf(" on %.0f%% of the CPUs, the share at which the model misses the objective where the sweep did (%s)", 100*o.Share, o.ShareFrom)
	}
	return fmt.Sprintf("at the objective (p99 <= %.3g ms): %d vCPU(s), predicted p99 %.3g ms%s at %.0f%% CPU (%s; %.3g ms of CPU per event and its p99 wait for the CPUs, M/M/c's times %.2f%s, as fitted to the %d measured steps within the objective, plus %.3g ms at the p99 that no CPU count shortens); the %.0f%% CPU rule alone gives %d",
		o.P99Ms, o.VCPU, o.PredictedP99Ms, spread, o.UtilisationPct, where, o.ServiceMs, o.WaitScale, share, o.fitSteps, o.OtherP99Ms, cpuTarget, ruleVCPU)
}

// measured is the measured CPUs: "0.5", or "0.5 to 1.5".
func (o *Objective) measured() string {
	if o.MostCPUs > o.MeasuredCPUs {
		return fmt.Sprintf("%.3g to %.3g", o.MeasuredCPUs, o.MostCPUs)
	}
	return fmt.Sprintf("%.3g", o.MeasuredCPUs)
}
