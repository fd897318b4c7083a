// Package plan is the capacity planner: it checks a VM against a host's
// topology by the rules of the seed study (one vCPU per physical core, fit a
// NUMA node or split evenly over the fewest, even vCPU counts for wide VMs,
// cores per socket, no CPU hot-add on wide VMs, memory), right-sizes a VM
// from a sweep's measured service demand, and estimates what happens when
// busy VMs share a host (an Erlang C model of CPU ready time and a small
// simulation of co-scheduled vCPUs). Every answer carries its reason.
//
// The package is pure: it computes on a topology and on sweep results, and
// never reads the machine.
package plan
