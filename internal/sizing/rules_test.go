package sizing

import (
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/topology"
)

// seedTopology is the first seed study's host: 2 sockets × 12 cores with
// hyperthreading, 256 GB, 128 GB per NUMA node (DOMAIN.md §1).
func seedTopology() topology.Host {
	return topology.Host{Name: "seed", Sockets: 2, CoresPerSocket: 12, ThreadsPerCore: 2, NUMANodes: 2, MemoryPerNode: 128 << 30}
}

const gib = int64(1) << 30

func check(t *testing.T, p VMCheck, rule string, want Status, words ...string) {
	t.Helper()
	for _, c := range p.Checks {
		if c.Rule != rule {
			continue
		}
		if c.Status != want {
			t.Errorf("%s %d vCPU: %s is %v, want %v: %s", p.VM.Name, p.VM.VCPU, rule, c.Status, want, c.Detail)
		}
		for _, w := range words {
			if !strings.Contains(c.Detail+" "+c.Advice, w) {
				t.Errorf("%s %d vCPU: %s says %q / %q, lacking %q", p.VM.Name, p.VM.VCPU, rule, c.Detail, c.Advice, w)
			}
		}
		return
	}
	t.Errorf("%s %d vCPU: no %s check in %+v", p.VM.Name, p.VM.VCPU, rule, p.Checks)
}

// The article's own examples on its host.
func TestSeedExamples(t *testing.T) {
	h := seedTopology()
	// 12 vCPUs fit one node: one virtual socket of 12.
	p := CheckVM(h, VM{Name: "db", VCPU: 12, Memory: 96 * gib})
	check(t, p, "vcpu-within-cores", Pass)
	check(t, p, "fits-numa-node", Pass, "12 vCPUs ≤ 12 cores per node", "96 GiB ≤ 128 GiB")
	check(t, p, "cores-per-socket", Pass, "1 virtual socket(s) of 12 cores")
	if p.Layout.Wide || p.Layout.VNUMANodes != 1 || p.Worst() != Pass {
		t.Errorf("12 vCPU: layout %+v, worst %v", p.Layout, p.Worst())
	}
	// 16 vCPUs: wide, 2 vNUMA nodes of 8 (the article's example), cores per socket 8.
	p = CheckVM(h, VM{Name: "db", VCPU: 16, Memory: 96 * gib})
	check(t, p, "fits-numa-node", Info, "wide VM", "16 vCPUs > 12 cores per node", "2 NUMA nodes")
	check(t, p, "wide-even-split", Pass, "2 vNUMA nodes of 8 vCPUs")
	check(t, p, "wide-even-vcpu", Pass)
	check(t, p, "cores-per-socket", Pass, "2 virtual socket(s) of 8 cores")
	if !p.Layout.Fits || !p.Layout.Wide || p.Layout.VNUMANodes != 2 || p.Layout.VCPUPerNode != 8 || p.Layout.CoresPerSocket != 8 || p.Layout.MemoryPerNode != 48*gib {
		t.Errorf("16 vCPU layout %+v", p.Layout)
	}
	// 24 vCPUs: every physical core, 2 nodes of 12.
	p = CheckVM(h, VM{Name: "db", VCPU: 24, Memory: 200 * gib})
	check(t, p, "vcpu-within-cores", Pass, "24 vCPUs ≤ 24 physical cores")
	check(t, p, "wide-even-split", Pass, "2 vNUMA nodes of 12 vCPUs")
	if p.Worst() == Fail {
		t.Errorf("24 vCPU fails: %+v", p.Checks)
	}
	// 36 and 48 vCPUs count hyperthreads as cores: refused.
	for n, nodes := range map[int]string{36: "3", 48: "4"} {
		p = CheckVM(h, VM{Name: "db", VCPU: n, Memory: 200 * gib})
		check(t, p, "vcpu-within-cores", Fail, "> 24 physical cores", "48 logical CPUs", "hyperthreads are not cores", "at most 24 vCPUs")
		check(t, p, "wide-even-split", Fail, "it needs "+nodes+" NUMA nodes; the host has 2")
		check(t, p, "cores-per-socket", Info, "no layout: the VM does not fit this host")
		if p.Layout.Fits {
			t.Errorf("%d vCPUs: layout %+v fits", n, p.Layout)
		}
	}
}

func TestRulesFailAndWarn(t *testing.T) {
	h := seedTopology()
	// An odd wide VM cannot split evenly.
	p := CheckVM(h, VM{Name: "odd", VCPU: 15})
	check(t, p, "wide-even-split", Fail, "15 vCPUs do not split evenly over 2 nodes", "use 16 vCPUs (8 per node)")
	check(t, p, "wide-even-vcpu", Fail, "odd vCPU count (15)", "use 16 vCPUs")
	// Memory alone can make a VM wide.
	p = CheckVM(h, VM{Name: "mem", VCPU: 8, Memory: 160 * gib})
	check(t, p, "fits-numa-node", Info, "160 GiB > 128 GiB per node")
	check(t, p, "wide-even-split", Pass, "2 vNUMA nodes of 4 vCPUs")
	// More memory than the host.
	p = CheckVM(h, VM{Name: "huge", VCPU: 8, Memory: 300 * gib})
	check(t, p, "memory-fits-host", Fail, "300 GiB", "256 GiB")
	// Cores per socket set against the layout; hot-add on wide and narrow VMs.
	p = CheckVM(h, VM{Name: "cps", VCPU: 16, CoresPerSocket: 16, HotAdd: true})
	check(t, p, "cores-per-socket", Warn, "is 16; the layout wants 8", "set cores per socket to 8")
	check(t, p, "no-cpu-hot-add", Fail, "disables vNUMA", "turn CPU hot-add off")
	p = CheckVM(h, VM{Name: "small", VCPU: 4, CoresPerSocket: 4, HotAdd: true})
	check(t, p, "cores-per-socket", Pass)
	check(t, p, "no-cpu-hot-add", Warn, "harmless while the VM fits one node")
	if p.Worst() != Warn {
		t.Errorf("worst %v, want warn", p.Worst())
	}
}

// An AMD host with four NUMA nodes per socket: a 20-vCPU VM spans 3 nodes of
// 8 cores, which 20 does not split over; 24 does.
func TestManyNodesPerSocket(t *testing.T) {
	h := topology.Host{Sockets: 1, CoresPerSocket: 32, ThreadsPerCore: 2, NUMANodes: 4, MemoryPerNode: 64 * gib}
	p := CheckVM(h, VM{Name: "db", VCPU: 20, Memory: 64 * gib})
	check(t, p, "wide-even-split", Fail, "20 vCPUs do not split evenly over 3 nodes", "use 24 vCPUs (8 per node)")
	p = CheckVM(h, VM{Name: "db", VCPU: 24, Memory: 64 * gib})
	check(t, p, "wide-even-split", Pass, "3 vNUMA nodes of 8 vCPUs")
}

// Review findings: a wide VM that does not split has no layout; memory near
// the int64 limit does not wrap round into a pass.
func TestRulesEdges(t *testing.T) {
	h := seedTopology()
	p := CheckVM(h, VM{Name: "odd", VCPU: 13})
	check(t, p, "wide-even-split", Fail, "use 14 vCPUs (7 per node)")
	check(t, p, "cores-per-socket", Info, "no layout")
	if p.Layout.Fits {
		t.Errorf("13 vCPUs: layout %+v", p.Layout)
	}
	p = CheckVM(h, VM{Name: "huge", VCPU: 4, Memory: 1<<63 - 1})
	for _, c := range p.Checks {
		if c.Rule == "fits-numa-node" && c.Status == Pass {
			t.Errorf("8 EiB fits a 128 GiB node: %s", c.Detail)
		}
	}
	p = CheckVM(h, VM{Name: "nomem", VCPU: 4})
	check(t, p, "fits-numa-node", Pass)
	for _, c := range p.Checks {
		if strings.Contains(c.Detail, "0 B") {
			t.Errorf("no memory given, yet: %s", c.Detail)
		}
	}
}

// A large host is simulated for less time, not refused.
func TestConsolidateLargeHost(t *testing.T) {
	h := topology.Host{Sockets: 8, CoresPerSocket: 28, ThreadsPerCore: 2, NUMANodes: 8, MemoryPerNode: 768 * gib}
	var vms []VM
	for i := 0; i < 20; i++ {
		vms = append(vms, VM{Name: "vm" + string(rune('a'+i)), VCPU: 32, Busy: 0.5})
	}
	c, err := Consolidate(h, vms, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ch := range c.Checks {
		found = found || ch.Rule == "simulation"
	}
	if !found || c.VMs[0].Sim.Name == "" {
		t.Errorf("large host: checks %+v, first VM %+v", c.Checks, c.VMs[0])
	}
}

// A layout's counts add up to the VM's vCPUs, or are 0 where no even split
// exists: 3 vCPUs over the 2 nodes a 2-core host would need were "2 vNUMA
// nodes of 1 vCPU, 2 sockets of 1 core".
func TestLayoutAddsUp(t *testing.T) {
	small := topology.Host{Sockets: 1, CoresPerSocket: 2, ThreadsPerCore: 1, NUMANodes: 1, MemoryPerNode: 8 << 30}
	for _, h := range []topology.Host{small, seedTopology()} {
		for vcpu := 1; vcpu <= 2*h.Cores()+3; vcpu++ {
			l := CheckVM(h, VM{Name: "v", VCPU: vcpu}).Layout
			if n := l.VNUMANodes * l.VCPUPerNode; n != vcpu && l.VCPUPerNode != 0 {
				t.Errorf("%d vCPUs on %d cores: %d vNUMA nodes of %d vCPUs (fits %v)", vcpu, h.Cores(), l.VNUMANodes, l.VCPUPerNode, l.Fits)
			}
			if n := l.Sockets * l.CoresPerSocket; n != vcpu && l.CoresPerSocket != 0 {
				t.Errorf("%d vCPUs on %d cores: %d sockets of %d cores (fits %v)", vcpu, h.Cores(), l.Sockets, l.CoresPerSocket, l.Fits)
			}
			if (l.VCPUPerNode == 0 || l.CoresPerSocket == 0) && l.Fits {
				t.Errorf("%d vCPUs on %d cores: fits with no even split %+v", vcpu, h.Cores(), l)
			}
		}
	}
}
