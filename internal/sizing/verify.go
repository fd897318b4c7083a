package sizing

import (
	"fmt"

	"github.com/rightsize/rightsize/internal/result"
)

// Verification is a plan checked against a measurement (plan --verify):
// the target rate run with the database held to the planned vCPUs, the
// plan's predictions beside what was measured, and whether the objective
// held.
type Verification struct {
	// Command is the run, as a command line without passwords; Result its
	// result file ("" when not written).
	Command string `json:"command"`
	Result  string `json:"result,omitempty"`
	// CPUs is the allotment the database was held to; Rate the target
	// rate (events per second, every instance).
	CPUs float64 `json:"cpus"`
	Rate float64 `json:"rate"`
	// Predicted: the p99 at the objective's model (0: no objective) and
	// the CPUs the rate keeps busy (rate × demand); Measured: the run's.
	PredictedP99Ms float64  `json:"predicted_p99_ms,omitempty"`
	PredictedCPUs  float64  `json:"predicted_busy_cpus"`
	Measured       Measured `json:"measured"`
	// ObjectiveMs is the p99 objective checked (0: none; then the rate
	// and the CPU target are).
	ObjectiveMs float64 `json:"objective_p99_ms,omitempty"`
	Pass        bool    `json:"pass"`
	Why         string  `json:"why"`
}

// Measured is what a verification's run measured.
type Measured struct {
	Throughput float64 `json:"throughput"`
	P99Ms      float64 `json:"p99_ms"`
	P95Ms      float64 `json:"p95_ms"`
	AvgMs      float64 `json:"avg_ms"`
	Errors     int64   `json:"errors"`
	// BusyCPUs is the database server's own CPU (its processes on this
	// host, else its cgroup's usage; 0: not measured); ThrottledPct its
	// cgroup's periods that ran out of quota.
	BusyCPUs     float64 `json:"busy_cpus,omitempty"`
	ThrottledPct float64 `json:"throttled_pct"`
}

// keptUp is the share of the target rate a verification must carry.
const keptUp = 0.95

// Verify checks run r, the target rate run on cpus CPUs, against the
// plan s: it passes when the run carried the rate (keptUp of it) and its
// p99 met the objective (s.Objective), or, without one, its database's
// CPU stayed within cpuTargetPct of the allotment.
func Verify(s *Sizing, cpus, rate, cpuTargetPct float64, r *result.Run) Verification {
	v := Verification{CPUs: cpus, Rate: rate, PredictedCPUs: s.BusyCores}
	if o := s.Objective; o != nil {
		v.ObjectiveMs = o.P99Ms
		v.PredictedP99Ms = finite(o.predict(cpus, rate))
	}
	sum := r.Summary
	v.Measured = Measured{Throughput: sum.Throughput, P99Ms: sum.Latency.P99Ms, P95Ms: sum.Latency.P95Ms, AvgMs: sum.Latency.AvgMs, Errors: sum.Errors}
	if h := r.Host; h != nil {
		if used, ok := h.ServerUsedCPUs(); ok {
			v.Measured.BusyCPUs = used
		}
		for _, g := range h.Cgroups {
			if g.Role == "database" {
				v.Measured.ThrottledPct = g.ThrottledPct
				if v.Measured.BusyCPUs == 0 {
					v.Measured.BusyCPUs = g.UsedCPUs
				}
			}
		}
	}
	m := v.Measured
	switch {
	case m.Throughput < keptUp*rate:
		v.Why = fmt.Sprintf("it carried %.4g/s of the %.4g/s asked (under %.0f%%)", m.Throughput, rate, 100*keptUp)
	case v.ObjectiveMs > 0 && m.P99Ms > v.ObjectiveMs:
		v.Why = fmt.Sprintf("its p99 was %.3g ms, over the objective (%.3g ms)", m.P99Ms, v.ObjectiveMs)
	case v.ObjectiveMs > 0:
		v.Pass, v.Why = true, fmt.Sprintf("it carried %.4g/s with a p99 of %.3g ms, within the objective (%.3g ms)", m.Throughput, m.P99Ms, v.ObjectiveMs)
	case m.BusyCPUs > cpuTargetPct/100*cpus:
		v.Why = fmt.Sprintf("its database used %.2f of %.3g CPUs, over the %.0f%% CPU target", m.BusyCPUs, cpus, cpuTargetPct)
	default:
		v.Pass, v.Why = true, fmt.Sprintf("it carried %.4g/s, its database within %.0f%% of %.3g CPUs", m.Throughput, cpuTargetPct, cpus)
	}
	return v
}

// Sentence is the verification in one line, predicted beside measured.
func (v *Verification) Sentence() string {
	status := "FAIL"
	if v.Pass {
		status = "PASS"
	}
	p99 := fmt.Sprintf("p99 %.3g ms measured", v.Measured.P99Ms)
	if v.PredictedP99Ms > 0 {
		p99 += fmt.Sprintf(", %.3g predicted", v.PredictedP99Ms)
	}
	cpu := fmt.Sprintf("%.2f CPUs busy predicted", v.PredictedCPUs)
	if v.Measured.BusyCPUs > 0 {
		cpu = fmt.Sprintf("the database used %.2f CPUs, %.2f predicted, throttled in %.0f%% of its periods", v.Measured.BusyCPUs, v.PredictedCPUs, v.Measured.ThrottledPct)
	}
	return fmt.Sprintf("%s: %.4g/s on %.3g CPUs: %s; %.4g/s carried; %s: %s", status, v.Rate, v.CPUs, p99, v.Measured.Throughput, cpu, v.Why)
}
