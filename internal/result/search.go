package result

// Search is a capacity search's answer (sweep --rate search, --threads
// search): the most load that met the objective, searched by probes, and
// how it got there. The probes are also the sweep's steps, in the order
// of their axis value; Probes keeps the order they ran in.
type Search struct {
	// Axis is what was searched: "rate" (events/s per instance offered in
	// an open loop) or "threads" (virtual users per instance, closed loop).
	Axis string `json:"axis"`
	// SLOMs is the objective on Percentile ("p99", "p95") of the response
	// time, in milliseconds.
	SLOMs      float64 `json:"slo_ms"`
	Percentile string  `json:"percentile"`
	// Precision is the bracket's relative width the search stops at, and
	// MaxSteps the most probes it runs (repeats included).
	Precision float64 `json:"precision"`
	MaxSteps  int     `json:"max_steps"`
	// Outcome is "found" (a bracket: the highest load that met the
	// objective and the next that did not), "never_met" (not even the
	// lightest probe met it), "always_met" (the heaviest probe the budget
	// or the generator allowed still met it: the capacity is above it) or
	// "budget" (the probes ran out before any bracket).
	Outcome string `json:"outcome"`
	// X is the highest axis value that met the objective (0: none), and
	// Next the lowest above it that did not (0: none).
	X    float64 `json:"x,omitempty"`
	Next float64 `json:"next,omitempty"`
	// Capacity is the throughput at X (events/s, every instance), and
	// CapacityPerInstance that per instance.
	Capacity            float64 `json:"capacity,omitempty"`
	CapacityPerInstance float64 `json:"capacity_per_instance,omitempty"`
	// PrecisionReached is (Next - X) / X where both are known.
	PrecisionReached float64 `json:"precision_reached,omitempty"`
	// Stopped says in words why the search stopped.
	Stopped string        `json:"stopped"`
	Probes  []SearchProbe `json:"probes"`
}

// SearchProbe is one probe of a search, in the order it ran.
type SearchProbe struct {
	// X is the axis value probed; Label its step's label.
	X     float64 `json:"x"`
	Label string  `json:"label"`
	// Offered is the rate offered (open loop; 0 in a closed loop),
	// Throughput what was done, LatencyMs the searched percentile.
	Offered    float64 `json:"offered,omitempty"`
	Throughput float64 `json:"throughput"`
	LatencyMs  float64 `json:"latency_ms"`
	// Met: the probe met the objective (and kept up with the rate, or
	// still added throughput); Why says why not, or why it was repeated.
	Met bool   `json:"met"`
	Why string `json:"why,omitempty"`
	// Near: its latency (or the share of the rate done) was within the
	// noise of the boundary, so it was run again.
	Near bool `json:"near,omitempty"`
	// Generator: the load generator, not the system, limited the probe
	// (analysis.GeneratorLimit): the search stops there.
	Generator string `json:"generator,omitempty"`
	// Result is the probe's result file.
	Result string `json:"result,omitempty"`
}
