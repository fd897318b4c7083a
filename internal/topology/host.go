package topology

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Host is a machine's CPU and NUMA layout. The counts describe a uniform
// machine: every socket has CoresPerSocket cores, every core ThreadsPerCore
// hardware threads (unless LogicalCPUs says fewer), every NUMA node the same
// share of the cores and MemoryPerNode bytes.
//
// A Host is a plain value; it is safe to copy and to share read-only.
type Host struct {
	Name           string `json:"name,omitempty"`   // the host's name ("" when unknown)
	Sockets        int    `json:"sockets"`          // physical packages, ≥ 1
	CoresPerSocket int    `json:"cores_per_socket"` // physical cores on each socket, ≥ 1
	ThreadsPerCore int    `json:"threads_per_core"` // hardware threads per core: 1 without SMT/hyperthreading, 2 with
	NUMANodes      int    `json:"numa_nodes"`       // NUMA nodes with CPUs: a multiple or a divisor of Sockets
	// MemoryPerNode is the memory of each NUMA node in bytes; 0 means unknown
	// (sysfs without NUMA nodes), never "none".
	MemoryPerNode int64 `json:"memory_per_node"`
	// LogicalCPUs is the number of logical CPUs when it is less than
	// Sockets × CoresPerSocket × ThreadsPerCore: a hybrid CPU whose
	// efficiency cores have no sibling, or SMT turned off on some cores.
	// 0 means the product holds.
	LogicalCPUs int `json:"logical_cpus,omitempty"`
	// NodeCPUs lists each NUMA node's logical CPUs, by node, in ascending
	// order (optional: nil in a description file).
	NodeCPUs [][]int `json:"node_cpus,omitempty"`
	// CoreCPUs lists each physical core's logical CPUs (the core's hardware
	// threads, siblings), in ascending order (optional: nil in a
	// description file). `measure ht` pins its workers by it.
	CoreCPUs [][]int `json:"core_cpus,omitempty"`
	// Source is where the description came from: "sysfs" or a file name.
	Source string `json:"source,omitempty"`
	// Notes say what could not be read or was assumed (one sentence each),
	// such as memory per node being unknown. They are not errors.
	Notes []string `json:"notes,omitempty"`
}

// Cores is the number of physical cores.
func (h Host) Cores() int { return h.Sockets * h.CoresPerSocket }

// Threads is the number of logical CPUs (hardware threads).
func (h Host) Threads() int {
	if h.LogicalCPUs > 0 {
		return h.LogicalCPUs
	}
	return h.Cores() * h.ThreadsPerCore
}

// CoresPerNode is the number of physical cores in each NUMA node (all the
// cores when NUMANodes is not positive).
func (h Host) CoresPerNode() int {
	if h.NUMANodes <= 0 {
		return h.Cores()
	}
	return h.Cores() / h.NUMANodes
}

// MemoryBytes is the host's memory in bytes: MemoryPerNode × NUMANodes
// (0 when memory per node is unknown).
func (h Host) MemoryBytes() int64 { return h.MemoryPerNode * int64(max(h.NUMANodes, 0)) }

// NodesPerSocket is the number of NUMA nodes on each socket: 1 usually,
// more with sub-NUMA clustering (Intel SNC, AMD NPS2/NPS4). It is 0 when a
// node spans several sockets (memory interleaved across sockets) or the
// counts are not positive.
func (h Host) NodesPerSocket() int {
	if h.Sockets <= 0 || h.NUMANodes < h.Sockets {
		return 0
	}
	return h.NUMANodes / h.Sockets
}

// Validate returns every problem with h at once (joined with errors.Join),
// or nil: counts must be positive, NUMA nodes a multiple or a divisor of the
// sockets that divides the cores evenly, memory not negative, and the CPU
// lists, when given, consistent with the counts.
func (h Host) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	positive := func(name string, v int) bool {
		if v < 1 {
			bad("%s must be at least 1, got %d", name, v)
			return false
		}
		return true
	}
	okS := positive("sockets", h.Sockets)
	okC := positive("cores per socket", h.CoresPerSocket)
	positive("threads per core", h.ThreadsPerCore)
	okN := positive("NUMA nodes", h.NUMANodes)
	if h.MemoryPerNode < 0 {
		bad("memory per node must not be negative, got %d bytes", h.MemoryPerNode)
	}
	if okN && h.MemoryPerNode > math.MaxInt64/int64(h.NUMANodes) {
		bad("%d NUMA nodes of %d bytes overflow 64 bits", h.NUMANodes, h.MemoryPerNode)
	}
	if okS && okC && h.ThreadsPerCore > 0 && (h.Sockets > maxCPU || h.CoresPerSocket > maxCPU || h.ThreadsPerCore > maxCPU ||
		int64(h.Sockets)*int64(h.CoresPerSocket)*int64(h.ThreadsPerCore) > maxCPU) {
		// Each factor ≤ maxCPU (2^16) keeps the int64 product in range.
		bad("%d sockets × %d cores × %d threads is more than %d logical CPUs", h.Sockets, h.CoresPerSocket, h.ThreadsPerCore, maxCPU)
		return errors.Join(errs...) // the checks below would overflow
	}
	if okS && okN && h.NUMANodes%h.Sockets != 0 && h.Sockets%h.NUMANodes != 0 {
		bad("%d NUMA nodes on %d sockets: the nodes must be a multiple or a divisor of the sockets", h.NUMANodes, h.Sockets)
	}
	if okS && okC && okN && h.Cores()%h.NUMANodes != 0 {
		bad("%d cores do not split evenly over %d NUMA nodes", h.Cores(), h.NUMANodes)
	}
	if h.LogicalCPUs != 0 && (h.LogicalCPUs < h.Cores() || h.LogicalCPUs > h.Cores()*h.ThreadsPerCore) {
		bad("%d logical CPUs: want between the %d cores and %d (cores × threads per core)", h.LogicalCPUs, h.Cores(), h.Cores()*h.ThreadsPerCore)
	}
	if h.NodeCPUs != nil {
		if len(h.NodeCPUs) != h.NUMANodes {
			bad("CPU lists for %d NUMA nodes, but %d nodes", len(h.NodeCPUs), h.NUMANodes)
		}
		if err := checkLists("NUMA node", h.NodeCPUs, h.Threads()); err != nil {
			errs = append(errs, err)
		}
	}
	if h.CoreCPUs != nil {
		if len(h.CoreCPUs) != h.Cores() {
			bad("CPU lists for %d cores, but %d cores", len(h.CoreCPUs), h.Cores())
		}
		for i, l := range h.CoreCPUs {
			if len(l) > h.ThreadsPerCore {
				bad("core %d has %d logical CPUs, more than %d threads per core", i, len(l), h.ThreadsPerCore)
			}
		}
		if err := checkLists("core", h.CoreCPUs, h.Threads()); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// checkLists checks that lists (by node or by core) hold want distinct,
// non-negative CPUs, none of them empty.
func checkLists(what string, lists [][]int, want int) error {
	var errs []error
	seen := map[int]int{}
	total := 0
	for i, l := range lists {
		if len(l) == 0 {
			errs = append(errs, fmt.Errorf("%s %d has no CPUs", what, i))
		}
		for _, c := range l {
			total++
			if c < 0 {
				errs = append(errs, fmt.Errorf("%s %d lists CPU %d", what, i, c))
			} else if j, dup := seen[c]; dup {
				errs = append(errs, fmt.Errorf("CPU %d is in %s %d and %s %d", c, what, j, what, i))
			}
			seen[c] = i
		}
	}
	if total != want {
		errs = append(errs, fmt.Errorf("the %s CPU lists hold %d CPUs, but the host has %d logical CPUs", what, total, want))
	}
	return errors.Join(errs...)
}

// Summary writes h as an lscpu-like block, one figure a line, values
// aligned, followed by h's notes:
//
//	Socket(s):           2
//	Core(s) per socket:  12
//	Thread(s) per core:  2
//	NUMA node(s):        2
//	Cores per node:      12
//	Memory per node:     128 GiB
//	Physical cores:      24, logical CPUs: 48
func Summary(h Host) string {
	mem := "unknown"
	if h.MemoryPerNode > 0 {
		mem = FormatBytes(h.MemoryPerNode)
	}
	rows := [][2]string{
		{"Socket(s):", fmt.Sprint(h.Sockets)},
		{"Core(s) per socket:", fmt.Sprint(h.CoresPerSocket)},
		{"Thread(s) per core:", fmt.Sprint(h.ThreadsPerCore)},
		{"NUMA node(s):", fmt.Sprint(h.NUMANodes)},
		{"Cores per node:", fmt.Sprint(h.CoresPerNode())},
		{"Memory per node:", mem},
		{"Physical cores:", fmt.Sprintf("%d, logical CPUs: %d", h.Cores(), h.Threads())},
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%-21s%s\n", r[0], r[1])
	}
	for _, n := range h.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	return b.String()
}
