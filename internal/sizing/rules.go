package sizing

import (
	"fmt"

	"github.com/rightsize/rightsize/internal/topology"
)

// Status is a rule's verdict.
type Status int

const (
	Pass Status = iota // the VM follows the rule
	Info               // nothing wrong; something to know (a wide VM)
	Warn               // allowed, but not advised
	Fail               // breaks the rule: change the VM
)

func (s Status) String() string {
	return [...]string{"pass", "info", "warn", "fail"}[s]
}

// MarshalText writes the status as its name in JSON.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status name back.
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range [...]string{"pass", "info", "warn", "fail"} {
		if string(b) == n {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("status %q: want pass, info, warn or fail", b)
}

// Check is one rule applied to one VM: its verdict, the numbers behind it,
// and what to do.
type Check struct {
	Rule   string `json:"rule"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	Advice string `json:"advice,omitempty"`
}

// VM is a virtual machine to place on a host.
type VM struct {
	Name           string  `json:"name"`
	VCPU           int     `json:"vcpu"`
	Memory         int64   `json:"memory_bytes"`
	CoresPerSocket int     `json:"cores_per_socket,omitempty"` // as configured (0: not given)
	HotAdd         bool    `json:"cpu_hot_add,omitempty"`
	Busy           float64 `json:"busy,omitempty"` // peak busy share of its vCPUs (0..1), for consolidation
}

// Layout is the virtual topology a VM should get.
type Layout struct {
	// Fits is false when the VM cannot be placed on the host at all (more
	// vCPUs than cores, more memory or nodes than it has); the rest of the
	// layout is then only what the VM would need, its vCPUs per node and
	// cores per socket 0 when they do not split evenly over the nodes (no
	// count would add up to its vCPUs).
	Fits           bool  `json:"fits"`
	Wide           bool  `json:"wide"`             // larger than one NUMA node
	VNUMANodes     int   `json:"vnuma_nodes"`      // nodes the VM spans
	VCPUPerNode    int   `json:"vcpu_per_node"`    // vCPUs on each
	MemoryPerNode  int64 `json:"memory_per_node"`  // bytes on each
	Sockets        int   `json:"virtual_sockets"`  // virtual sockets
	CoresPerSocket int   `json:"cores_per_socket"` // cores per virtual socket
}

// VMCheck is a VM with its layout and the rules' verdicts.
type VMCheck struct {
	VM     VM      `json:"vm"`
	Layout Layout  `json:"layout"`
	Checks []Check `json:"checks"`
}

// Worst is the most severe status among the checks.
func (p VMCheck) Worst() Status {
	w := Pass
	for _, c := range p.Checks {
		w = max(w, c.Status)
	}
	return w
}

// ceilDiv is ⌈a/b⌉ for a, b > 0, without overflow near the int64 limit.
func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a-1)/b + 1
}

// vcpuWithinCores is rules 1 and 3's check: never more vCPUs than physical
// cores. It speaks of hyperthreads only where the host has them: on one
// without, its logical CPUs are its cores and there is no sibling to count.
func vcpuWithinCores(h topology.Host, vcpu int) Check {
	cores := h.Cores()
	if vcpu <= cores {
		return Check{Rule: "vcpu-within-cores", Status: Pass, Detail: fmt.Sprintf("%d vCPUs ≤ %d physical cores (one vCPU per core, hyperthreads not counted)", vcpu, cores)}
	}
	why := "no hyperthreads on this host: one vCPU per core"
	if h.Threads() > cores {
		why = fmt.Sprintf("%d logical CPUs: hyperthreads are not cores; a sibling adds about 20 %%, not a core's worth", h.Threads())
	}
	return Check{Rule: "vcpu-within-cores", Status: Fail, Detail: fmt.Sprintf("%d vCPUs > %d physical cores (%s)", vcpu, cores, why),
		Advice: fmt.Sprintf("give it at most %d vCPUs; more needs a host with more cores", cores)}
}

// CheckVM applies the seed study's rules (DOMAIN.md §1, rules 1 to 3) to vm
// on host h and works out the layout the VM should get.
func CheckVM(h topology.Host, vm VM) VMCheck {
	need := numaNeedOf(h, vm)
	l := layoutFor(h, vm, need.span)
	p := VMCheck{VM: vm, Layout: l}
	p.Checks = append(p.Checks, vcpuWithinCores(h, vm.VCPU))
	if c, ok := memoryFitsHost(h, vm); ok {
		p.Checks = append(p.Checks, c)
	}
	p.Checks = append(p.Checks, fitsNUMANode(h, vm, need))
	if l.Wide {
		p.Checks = append(p.Checks, wideEvenSplit(h, vm, need.span), wideEvenVCPU(h, vm))
	}
	p.Checks = append(p.Checks, coresPerSocket(vm, l), hotAdd(vm, l))
	return p
}

// memoryFitsHost checks vm's memory against the host's; there is no check
// (false) when either is unknown (0) and the VM's is not over the host's.
func memoryFitsHost(h topology.Host, vm VM) (Check, bool) {
	switch total := h.MemoryBytes(); {
	case total > 0 && vm.Memory > total:
		return Check{Rule: "memory-fits-host", Status: Fail, Detail: fmt.Sprintf("%s of memory > the host's %s", topology.FormatBytes(vm.Memory), topology.FormatBytes(total)),
			Advice: "reduce the VM's memory or use a larger host"}, true
	case total > 0 && vm.Memory > 0:
		return Check{Rule: "memory-fits-host", Status: Pass, Detail: fmt.Sprintf("%s ≤ the host's %s", topology.FormatBytes(vm.Memory), topology.FormatBytes(total))}, true
	}
	return Check{}, false
}

// numaNeed is how many of a host's NUMA nodes a VM needs: for its vCPUs,
// for its memory (1 when either is unknown), and span, the larger, ≥ 1.
type numaNeed struct {
	cpu, mem int64
	span     int
}

// numaNeedOf works out vm's numaNeed on h.
func numaNeedOf(h topology.Host, vm VM) numaNeed {
	n := numaNeed{cpu: ceilDiv(int64(vm.VCPU), int64(max(h.CoresPerNode(), 1))), mem: 1}
	if h.MemoryPerNode > 0 && vm.Memory > 0 {
		n.mem = ceilDiv(vm.Memory, h.MemoryPerNode)
	}
	n.span = int(max(n.cpu, n.mem, 1))
	return n
}

// layoutFor is the virtual topology of vm on h over span NUMA nodes: one
// socket of all its vCPUs on one node, or, wide, one virtual socket per
// node with the vCPUs and memory split evenly (vCPUs per node and cores per
// socket 0, and Fits false, when the vCPUs do not split evenly).
func layoutFor(h topology.Host, vm VM, span int) Layout {
	l := Layout{Fits: vm.VCPU <= h.Cores() && span <= max(h.NUMANodes, 1) && (h.MemoryBytes() == 0 || vm.Memory <= h.MemoryBytes()),
		VNUMANodes: 1, VCPUPerNode: vm.VCPU, MemoryPerNode: vm.Memory, Sockets: 1, CoresPerSocket: vm.VCPU}
	if span == 1 {
		return l
	}
	l.Wide = true
	l.VNUMANodes, l.Sockets = span, span
	l.VCPUPerNode, l.CoresPerSocket = vm.VCPU/span, vm.VCPU/span
	if vm.VCPU%span != 0 {
		l.Fits = false
		l.VCPUPerNode, l.CoresPerSocket = 0, 0 // no even split: no count adds up
	}
	if vm.Memory > 0 {
		l.MemoryPerNode = vm.Memory / int64(span)
	}
	return l
}

// fitsNUMANode is rule 2: fit one NUMA node where possible. A wide VM is
// allowed (Info), and said to be larger than the host when it needs more
// nodes than the host has.
func fitsNUMANode(h topology.Host, vm VM, need numaNeed) Check {
	cpn, mpn, nodes := h.CoresPerNode(), h.MemoryPerNode, h.NUMANodes
	c := Check{Rule: "fits-numa-node", Status: Info}
	if need.span == 1 {
		memNote := ""
		if mpn > 0 && vm.Memory > 0 {
			memNote = fmt.Sprintf(" and %s ≤ %s per node", topology.FormatBytes(vm.Memory), topology.FormatBytes(mpn))
		}
		c.Status, c.Detail = Pass, fmt.Sprintf("fits one NUMA node: %d vCPUs ≤ %d cores per node%s", vm.VCPU, cpn, memNote)
		return c
	}
	why := fmt.Sprintf("%d vCPUs > %d cores per node", vm.VCPU, cpn)
	if need.mem > need.cpu {
		why = fmt.Sprintf("%s > %s per node", topology.FormatBytes(vm.Memory), topology.FormatBytes(mpn))
	}
	if need.span > nodes {
		// More than the whole host: a rule above already fails it.
		c.Detail = fmt.Sprintf("%s, and it would need %d NUMA nodes where the host has %d: larger than the host, not only than a node", why, need.span, nodes)
	} else {
		c.Detail = fmt.Sprintf("wide VM: %s, so it spans %d NUMA nodes; that is allowed, and the guest must see the same nodes (vNUMA)", why, need.span)
	}
	return c
}

// wideEvenSplit is rule 3 for a wide VM over span nodes: it splits evenly
// over the fewest nodes, and the host has that many. The advice for an
// uneven split is the nearest even count that splits evenly (down, when up
// is more than the host's cores).
func wideEvenSplit(h topology.Host, vm VM, span int) Check {
	c := Check{Rule: "wide-even-split"}
	switch nodes := h.NUMANodes; {
	case span > nodes:
		c.Status, c.Detail, c.Advice = Fail, fmt.Sprintf("it needs %d NUMA nodes; the host has %d", span, nodes),
			"shrink the VM to fit the host's nodes"
	case vm.VCPU%span != 0:
		// The nearest count that splits evenly and is even.
		step := span
		if step%2 != 0 {
			step *= 2
		}
		n := (vm.VCPU + step - 1) / step * step
		if n > h.Cores() {
			n = vm.VCPU / step * step
		}
		c.Status, c.Detail = Fail, fmt.Sprintf("%d vCPUs do not split evenly over %d nodes", vm.VCPU, span)
		c.Advice = fmt.Sprintf("use %d vCPUs (%d per node)", n, n/span)
	default:
		c.Status, c.Detail = Pass, fmt.Sprintf("%d vCPUs split evenly: %d vNUMA nodes of %d vCPUs", vm.VCPU, span, vm.VCPU/span)
	}
	return c
}

// wideEvenVCPU is rule 3's even count for a wide VM: an odd count cannot be
// split evenly; the advice is the even count next to it within the host's
// cores.
func wideEvenVCPU(h topology.Host, vm VM) Check {
	if vm.VCPU%2 != 0 {
		return Check{Rule: "wide-even-vcpu", Status: Fail, Detail: fmt.Sprintf("a wide VM with an odd vCPU count (%d) cannot be split evenly", vm.VCPU),
			Advice: fmt.Sprintf("use %d vCPUs", evenNear(vm.VCPU, h.Cores()))}
	}
	return Check{Rule: "wide-even-vcpu", Status: Pass, Detail: fmt.Sprintf("even vCPU count (%d)", vm.VCPU)}
}

// coresPerSocket is rule 3: cores per socket matches the layout l (when
// there is one; Info when the VM does not fit the host). Not set (0), it is
// what to set.
func coresPerSocket(vm VM, l Layout) Check {
	c := Check{Rule: "cores-per-socket", Status: Pass}
	if !l.Fits {
		c.Status, c.Detail = Info, "no layout: the VM does not fit this host"
		return c
	}
	want := fmt.Sprintf("%d virtual socket(s) of %d cores", l.Sockets, l.CoresPerSocket)
	switch {
	case vm.CoresPerSocket == 0:
		c.Detail = "set cores per socket to " + fmt.Sprint(l.CoresPerSocket) + ": " + want +
			map[bool]string{true: ", one per vNUMA node", false: ", so the guest sees one socket, as the VM fits one node"}[l.Wide]
	case vm.CoresPerSocket != l.CoresPerSocket:
		c.Status, c.Detail = Warn, fmt.Sprintf("cores per socket is %d; the layout wants %d (%s)", vm.CoresPerSocket, l.CoresPerSocket, want)
		c.Advice = fmt.Sprintf("set cores per socket to %d", l.CoresPerSocket)
	default:
		c.Detail = fmt.Sprintf("cores per socket %d matches the layout (%s)", vm.CoresPerSocket, want)
	}
	return c
}

// hotAdd is rule 3's last part: CPU hot-add disables vNUMA.
func hotAdd(vm VM, l Layout) Check {
	c := Check{Rule: "no-cpu-hot-add"}
	switch {
	case vm.HotAdd && l.Wide:
		c.Status, c.Detail, c.Advice = Fail, "CPU hot-add is on for a wide VM: it disables vNUMA, so the guest sees one node and places memory badly",
			"turn CPU hot-add off"
	case vm.HotAdd:
		c.Status, c.Detail, c.Advice = Warn, "CPU hot-add is on: harmless while the VM fits one node, but it disables vNUMA if the VM grows wide",
			"turn it off before the VM grows past one node"
	default:
		c.Status, c.Detail = Pass, "CPU hot-add is off (it would disable vNUMA)"
	}
	return c
}

// evenNear is the even count next to n: n+1 when that is within limit,
// else n−1.
func evenNear(n, limit int) int {
	if n+1 <= limit {
		return n + 1
	}
	return n - 1
}
