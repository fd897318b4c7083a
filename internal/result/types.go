package result

import (
	"cmp"
	"slices"
)

// FrequentPct is the share of a run's events that its frequently used
// types make up: the types, most used first, until they add up to at least
// this share (the first study's "components that make up most of the
// mix"); a type used as often as the last one taken is taken too.
const FrequentPct = 80

// Type is one transaction type's figures (an event type: TPC-C's
// New-Order, a workload file's transaction, a pgbench script, fileio's
// read): how often it ran and its response time, counted like the event's
// (from the intended start in the open loop, every attempt included).
type Type struct {
	Name string `json:"name"`
	// Count is its successful events in the measured window, Errors its
	// failed ones; SharePct is its share of the mix: its events, successful
	// or failed, of all the types' (a type that always fails is still part
	// of the mix the workload ran).
	Count    int64   `json:"count"`
	SharePct float64 `json:"share_pct"`
	Errors   int64   `json:"errors,omitempty"`
	AvgMs    float64 `json:"avg_ms"`
	P95Ms    float64 `json:"p95_ms"`
	P99Ms    float64 `json:"p99_ms"`
	// Frequent: among the types that make up most of the mix (FrequentPct).
	Frequent bool `json:"frequent,omitempty"`
}

// TypesOf returns the transaction types of a phase's operations, most used
// first (by name among equals), and the name of the slowest of the
// frequently used by p95 ("" when none ran). The types are the operations
// marked Type; a workload without any (oltp's one transaction, whose
// operations are its statements) has one type, its event (ops[0]).
func TypesOf(ops []Op) (types []Type, slowest string) {
	for _, op := range ops {
		if op.Type {
			types = append(types, typeOf(op))
		}
	}
	if len(types) == 0 && len(ops) > 0 {
		types = append(types, typeOf(ops[0]))
	}
	var total int64
	for _, t := range types {
		total += t.ran()
	}
	if total == 0 {
		return types, ""
	}
	slices.SortStableFunc(types, func(a, b Type) int {
		if c := cmp.Compare(b.ran(), a.ran()); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	var sum int64
	for i := range types {
		t := &types[i]
		t.SharePct = 100 * float64(t.ran()) / float64(total)
		t.Frequent = t.ran() > 0 && (100*float64(sum) < FrequentPct*float64(total) || t.ran() == types[i-1].ran() && types[i-1].Frequent)
		sum += t.ran()
		// The slowest is of the types with response times: one that
		// always failed has none (its errors say why).
		if t.Frequent && t.Count > 0 && (slowest == "" || t.P95Ms > p95Of(types, slowest)) {
			slowest = t.Name
		}
	}
	return types, slowest
}

// ran is how many of its events ended in the window, successful or failed.
func (t Type) ran() int64 { return t.Count + t.Errors }

func typeOf(op Op) Type {
	return Type{Name: op.Name, Count: op.Count, Errors: op.Errors, AvgMs: op.Latency.AvgMs, P95Ms: op.Latency.P95Ms, P99Ms: op.Latency.P99Ms}
}

func p95Of(types []Type, name string) float64 {
	for _, t := range types {
		if t.Name == name {
			return t.P95Ms
		}
	}
	return 0
}

// DeriveTypes sets the transaction types (Summary.Types, SlowestFrequent)
// of the run's and each instance's measured window from their Ops.
func (r *Run) DeriveTypes() {
	r.Summary.Types, r.Summary.SlowestFrequent = TypesOf(r.Ops)
	for i := range r.Instances {
		in := &r.Instances[i]
		in.Summary.Types, in.Summary.SlowestFrequent = TypesOf(in.Ops)
	}
}
