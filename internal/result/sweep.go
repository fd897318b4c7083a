package result

import (
	"encoding/json"
	"time"

	"github.com/rightsize/rightsize/internal/errclass"
)

// Sweep is one sweep's data: what was swept and each step's headline and
// result file. It is what a sweep file holds and the history catalog keeps;
// what analysis finds in it (knees, the scalability fit, the service
// demand) is computed from it again each time (package analysis).
type Sweep struct {
	SchemaVersion int    `json:"schema_version"`
	ID            string `json:"id"`
	Workload      string `json:"workload"`
	// Config is the configuration under test (sweep --config; see Run).
	Config       string  `json:"config,omitempty"`
	Axis         string  `json:"axis"`                // "threads", "rate", "instances", "CPUs" (--db-cpus) or the workload's own ("read %")
	OwnSteps     bool    `json:"own_steps,omitempty"` // the workload's steps (not a load axis: no knee, no fit)
	BaselineRate float64 `json:"baseline_rate,omitempty"`
	Baseline     string  `json:"baseline_result,omitempty"`
	// Embedded: the database ran inside rightsize (SQLite), so the client's
	// CPU includes the database's.
	Embedded     bool        `json:"embedded,omitempty"`
	HostIsServer bool        `json:"host_is_server"` // every database ran on the measured host (embedded or loopback)
	Steps        []SweepStep `json:"steps"`
	// SLOMs (p99 objective, 0: none) and CPUTargetPct are the options the
	// sweep was run with, the analysis's defaults.
	SLOMs        float64 `json:"slo_ms,omitempty"`
	CPUTargetPct float64 `json:"cpu_target_pct,omitempty"`
	// TypeSLOMs are the transaction types' p95 objectives (--slo-type), by
	// type name; absent without any.
	TypeSLOMs map[string]float64 `json:"type_slo_ms,omitempty"`
	// Search is a capacity search's answer (sweep --rate search or
	// --threads search); absent for a sweep over a list of values.
	Search *Search `json:"search,omitempty"`
}

// plainSweep is a Sweep without its methods, for UnmarshalJSON.
type plainSweep Sweep

// UnmarshalJSON reads s with every string made Printable: a sweep file, as
// a result file, can come from anywhere and its text is printed. A type
// that embeds a Sweep (analysis.Result) is given this method too, which
// decodes only the Sweep: decode such a type's other fields apart.
func (s *Sweep) UnmarshalJSON(data []byte) error {
	return json.Unmarshal(printableJSON(data), (*plainSweep)(s))
}

// SweepStep is one step's headline and its result file.
type SweepStep struct {
	Label      string  `json:"label"`
	X          float64 `json:"x"`
	Throughput float64 `json:"throughput"`
	P95Ms      float64 `json:"p95_ms"`
	P99Ms      float64 `json:"p99_ms"`
	AvgMs      float64 `json:"avg_ms"`
	Errors     int64   `json:"errors"`
	// Retries counts the step's failed attempts of events that were re-run
	// (Summary.Retries), Deadlocks its deadlocks, retried or counted among
	// Errors (the "deadlock" class of both).
	Retries   int64 `json:"retries,omitempty"`
	Deadlocks int64 `json:"deadlocks,omitempty"`
	Host      *Host `json:"host,omitempty"`
	// ServerStats is the database server's own view of the step
	// (Run.ServerStats: a step that drove one instance; a step of several
	// has each instance's in its result file).
	ServerStats *ServerStats `json:"server,omitempty"`
	// Instances is how many instances the step drove at once, Fairness
	// how evenly they were served (Run.Fairness; absent for one).
	Instances int       `json:"instances,omitempty"`
	Fairness  *Fairness `json:"fairness,omitempty"`
	// Offered is an open-loop step's intended starts per second, Late and
	// Dropped its starts that began late or never (the system fell behind
	// the schedule): see Summary.
	Offered float64 `json:"offered,omitempty"`
	Late    int64   `json:"late,omitempty"`
	Dropped int64   `json:"dropped,omitempty"`
	// ClientCPUUs is the load generator's own CPU per event (0: unknown),
	// ClientSharePct that CPU as a share of the host's (Client.HostSharePct).
	ClientCPUUs    float64 `json:"client_cpu_per_event_us,omitempty"`
	ClientSharePct float64 `json:"client_host_share_pct,omitempty"`
	// StartLagP99Ms is the p99 of an open-loop step's start lag of idle
	// virtual users (Summary.StartLag): the generator's own lag.
	StartLagP99Ms float64 `json:"start_lag_p99_ms,omitempty"`
	// TickerLag: the load generator fell behind its ticks in this step.
	TickerLag *TickerLag `json:"ticker_lag,omitempty"`
	// Types and SlowestFrequent are the step's transaction types
	// (Summary.Types), when its workload has two or more.
	Types           []Type `json:"types,omitempty"`
	SlowestFrequent string `json:"slowest_frequent,omitempty"`
	Result          string `json:"result,omitempty"`
	// From and To are the step's measured window (Run.Window), by which
	// figures from elsewhere (the hypervisor's) are aligned to it; absent
	// in files written before they were recorded.
	From time.Time `json:"from,omitzero"`
	To   time.Time `json:"to,omitzero"`
}

// Deadlocks counts the summary's deadlocks: the "deadlock" class of its
// errors and of its retries (events re-run after one).
func (s Summary) Deadlocks() int64 {
	d := errclass.Deadlock.String()
	return s.ErrorsByClass[d] + s.RetriesByClass[d]
}
