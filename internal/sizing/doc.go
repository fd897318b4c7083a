// Package sizing is the capacity planner: it checks a VM against a host's
// topology by the rules of the seed study (one vCPU per physical core, fit a
// NUMA node or split evenly over the fewest, even vCPU counts for wide VMs,
// cores per socket, no CPU hot-add on wide VMs, memory), right-sizes a VM
// from a sweep's measured service demand, and estimates what happens when
// busy VMs share a host (an Erlang C model of CPU ready time and a small
// simulation of co-scheduled vCPUs). Every answer carries its reason.
//
// The package is pure: it computes on a topology and on sweep results, and
// never reads the machine.
package sizing

import "github.com/rightsize/rightsize/internal/topology"

// Report is everything one `rightsize plan` answers: the host, the VMs
// checked against it, a right-sizing from a sweep, and a consolidation
// what-if (each optional).
type Report struct {
	Host topology.Host `json:"host"`
	// HTGainPct is the hyperthreading gain used; HTGainSource says where it
	// came from ("default", "--ht-gain", "measured by measure ht").
	HTGainPct     float64        `json:"ht_gain_pct"`
	HTGainSource  string         `json:"ht_gain_source"`
	VMs           []VMCheck      `json:"vms,omitempty"`
	Sizing        *Sizing        `json:"sizing,omitempty"`
	Consolidation *Consolidation `json:"consolidation,omitempty"`
}
