package analysis

import (
	"fmt"
	"math"
)

// Load is one step's throughput, response time and host CPU.
type Load struct {
	X, Throughput, P99Ms float64
	BusyPct              float64 // host CPU busy (user + system), percent of all CPUs
	Label                string  // the step's, naming it as Point.Label does
}

// Demand is the CPU a unit of work costs, from the utilisation law
// (busy cores = throughput × service demand), and the sweet spot: the
// highest step under the CPU target whose response time stays flat.
type Demand struct {
	CoreSecondsPerEvent float64 `json:"core_seconds_per_event"`
	EventsPerCore       float64 `json:"events_per_core_s"`
	SweetSpot           Knee    `json:"sweet_spot"`
}

// ServiceDemand fits busy cores against throughput through the origin
// (least squares), and picks the sweet spot: the largest step whose CPU is
// within cpuTargetPct and whose p99 is at most twice the first step's.
func ServiceDemand(ls []Load, cpus int, cpuTargetPct float64) (Demand, error) {
	if len(ls) < 2 || cpus < 1 {
		return Demand{}, fmt.Errorf("service demand needs at least 2 steps with host CPU figures and a CPU count")
	}
	var sxy, sxx float64
	for _, l := range ls {
		busy := l.BusyPct / 100 * float64(cpus)
		sxy += l.Throughput * busy
		sxx += l.Throughput * l.Throughput
	}
	if sxx == 0 {
		return Demand{}, fmt.Errorf("service demand: no throughput in any step")
	}
	d := Demand{CoreSecondsPerEvent: sxy / sxx}
	if math.IsNaN(d.CoreSecondsPerEvent) || math.IsInf(d.CoreSecondsPerEvent, 0) {
		// Figures past float64's range (a damaged file): no number to give.
		return Demand{}, fmt.Errorf("service demand: throughput or CPU figures out of range")
	}
	if d.CoreSecondsPerEvent > 0 {
		d.EventsPerCore = 1 / d.CoreSecondsPerEvent
	}
	at := -1
	for i, l := range ls {
		if l.BusyPct <= cpuTargetPct && l.P99Ms <= 2*ls[0].P99Ms {
			at = i
		}
	}
	if at < 0 {
		d.SweetSpot = Knee{Method: "sweet spot", Index: -1, Reason: fmt.Sprintf("no step stays under %.0f%% CPU with p99 within twice the first step's", cpuTargetPct)}
		return d, nil
	}
	d.SweetSpot = Knee{Method: "sweet spot", Index: at, X: ls[at].X, Reason: fmt.Sprintf(
		"%s is the highest step under %.0f%% CPU (%.0f%%) with flat response time (p99 %.3g ms, first step %.3g ms); each event costs %.3g ms of CPU, %.0f events/s per core",
		Point{X: ls[at].X, Label: ls[at].Label}.Name(), cpuTargetPct, ls[at].BusyPct, ls[at].P99Ms, ls[0].P99Ms, 1000*d.CoreSecondsPerEvent, d.EventsPerCore)}
	return d, nil
}

// ServerCPUDemand is the database server's own CPU per event, in
// core-seconds: its processes' CPU on this host (result.Host.ServerCPU,
// summed over the servers) fit against throughput through the origin, as
// ServiceDemand fits the host's, over the steps the methods read; and how
// many steps it read. ok is false unless every one of those steps (two at
// least) measured it, so that it is never a mix of the server's CPU and
// the host's.
func ServerCPUDemand(r *Result) (coreSecondsPerEvent float64, steps int, ok bool) {
	var sxy, sxx float64
	for _, i := range r.Used() {
		st := r.Steps[i]
		used, ok := st.Host.ServerUsedCPUs()
		if !ok {
			return 0, 0, false
		}
		sxy += st.Throughput * used
		sxx += st.Throughput * st.Throughput
		steps++
	}
	if steps < 2 || !(sxx > 0) {
		return 0, 0, false
	}
	d := sxy / sxx
	if !(d > 0) || math.IsInf(d, 0) {
		return 0, 0, false
	}
	return d, steps, true
}
