package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/result"
)

// Sweep is the sweep file: the steps' result files and the
type Sweep struct {
	SchemaVersion int     `json:"schema_version"`
	ID            string  `json:"id"`
	Workload      string  `json:"workload"`
	Axis          string  `json:"axis"`                // "threads", "rate", "instances" or the workload's own ("read %")
	OwnSteps      bool    `json:"own_steps,omitempty"` // the workload's steps (not a load axis: no knee, no fit)
	BaselineRate  float64 `json:"baseline_rate,omitempty"`
	Baseline      string  `json:"baseline_result,omitempty"`
	// Embedded: the database ran inside rightsize (SQLite), so the client's
	// CPU includes the database's.
	Embedded     bool        `json:"embedded,omitempty"`
	HostIsServer bool        `json:"host_is_server"` // every database ran on the measured host (embedded or loopback)
	Steps        []SweepStep `json:"steps"`
	Verdict      []string    `json:"verdict,omitempty"`
	Knees        []Knee      `json:"knees"`
	USL          *USL        `json:"usl,omitempty"`
	USLError     string      `json:"usl_error,omitempty"`
	SLOMs        float64     `json:"slo_ms,omitempty"`
	CPUTargetPct float64     `json:"cpu_target_pct,omitempty"`
	Demand       *Demand     `json:"demand,omitempty"`
	DemandError  string      `json:"demand_error,omitempty"`
}

// SweepStep is one step's headline and its result file.
type SweepStep struct {
	Label      string       `json:"label"`
	X          float64      `json:"x"`
	Throughput float64      `json:"throughput"`
	P95Ms      float64      `json:"p95_ms"`
	P99Ms      float64      `json:"p99_ms"`
	AvgMs      float64      `json:"avg_ms"`
	Errors     int64        `json:"errors"`
	Host       *result.Host `json:"host,omitempty"`
	// Instances is how many instances the step drove at once.
	Instances int `json:"instances,omitempty"`
	// Dropped counts open-loop starts due in the window that never ran (the
	// system fell behind the schedule).
	Dropped int64 `json:"dropped,omitempty"`
	// ClientCPUUs is the load generator's own CPU per event (0: unknown).
	ClientCPUUs float64 `json:"client_cpu_per_event_us,omitempty"`
	// TickerLag: the load generator fell behind its ticks in this step.
	TickerLag *result.TickerLag `json:"ticker_lag,omitempty"`
	Result    string            `json:"result,omitempty"`
}

// Analyze finds the knees, the service demand and sweet spot, and (over
// threads or instances) the USL fit from the steps, and writes the verdict.
// Steps that vary the work rather than the load (OwnSteps) get none.
func (sw *Sweep) Analyze() {
	// The methods read the steps in rising order of a load axis (a
	// workload's own steps, such as read mixes, keep their order).
	if !sw.OwnSteps {
		slices.SortStableFunc(sw.Steps, func(a, b SweepStep) int { return cmp.Compare(a.X, b.X) })
	}
	var ps []Point
	var xs, ys []float64
	for _, st := range sw.Steps {
		ps = append(ps, Point{X: st.X, Throughput: st.Throughput, P99Ms: st.P99Ms})
		xs, ys = append(xs, st.X), append(ys, st.Throughput)
	}
	sw.Knees, sw.Demand, sw.DemandError, sw.USL, sw.USLError = nil, nil, "", nil, ""
	if sw.OwnSteps {
		return // the steps vary the work, not the load
	}
	sw.Knees = []Knee{MarginalKnee(ps, 0.2), Kneedle(ps)}
	if sw.SLOMs > 0 {
		sw.Knees = append(sw.Knees, SLOKnee(ps, sw.SLOMs))
	}
	var ls []Load
	cpus := 0
	for _, st := range sw.Steps {
		if st.Host == nil {
			ls = nil
			break
		}
		cpus = st.Host.CPUs
		ls = append(ls, Load{X: st.X, Throughput: st.Throughput, P99Ms: st.P99Ms, BusyPct: st.Host.CPU.Busy()})
	}
	if ls == nil {
		sw.DemandError = "no host CPU figures for every step"
	} else if d, err := ServiceDemand(ls, cpus, sw.CPUTargetPct); err != nil {
		sw.DemandError = err.Error()
	} else {
		sw.Demand = &d
	}
	if sw.Axis == "threads" || sw.Axis == "instances" {
		if u, err := FitUSL(xs, ys, 200, 1); err == nil {
			sw.USL = &u
		} else {
			sw.USLError = err.Error()
		}
	}
	hosts := make([]*result.Host, len(sw.Steps))
	for i, st := range sw.Steps {
		hosts[i] = st.Host
	}
	sw.Verdict = Verdict(sw.Axis, ps, hosts, sw.Knees, sw.HostIsServer)
	var lagged []string
	for _, st := range sw.Steps {
		if l := st.TickerLag; l != nil {
			lagged = append(lagged, fmt.Sprintf("%s (worst %.1f s)", st.Label, l.MaxS))
		}
	}
	var over []string
	for _, st := range sw.Steps {
		if st.Dropped > 0 {
			over = append(over, fmt.Sprintf("%s (%d starts dropped)", st.Label, st.Dropped))
		}
	}
	if len(over) > 0 {
		sw.Verdict = append(sw.Verdict, "Overloaded: the open loop fell behind its schedule at "+strings.Join(over, ", ")+
			": starts due in the window never ran, and events are counted by their intended start, so those steps' throughput understates what the system completed; the system could not take that rate.")
	}
	if len(lagged) > 0 {
		sw.Verdict = append(sw.Verdict, "Caution: the load generator fell behind its report ticks at "+strings.Join(lagged, ", ")+
			": it was starved of CPU there, so those steps' host figures are smeared and their throughput may understate the database's.")
	}
}
