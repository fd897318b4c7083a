package topology

import (
	"fmt"
	"strings"
	"testing"
)

var seed = Host{Name: "seed", Sockets: 2, CoresPerSocket: 12, ThreadsPerCore: 2, NUMANodes: 2, MemoryPerNode: 128 * gib}

func TestHostFigures(t *testing.T) {
	for _, c := range []struct {
		name                                    string
		h                                       Host
		cores, threads, perNode, nodesPerSocket int
		memory                                  int64
	}{
		{"seed", seed, 24, 48, 12, 1, 256 * gib},
		{"EPYC NPS4", Host{Sockets: 1, CoresPerSocket: 32, ThreadsPerCore: 2, NUMANodes: 4, MemoryPerNode: 64 * gib}, 32, 64, 8, 4, 256 * gib},
		{"interleaved: 1 node on 2 sockets", Host{Sockets: 2, CoresPerSocket: 8, ThreadsPerCore: 1, NUMANodes: 1, MemoryPerNode: 64 * gib}, 16, 16, 16, 0, 64 * gib},
		{"hybrid", Host{Sockets: 1, CoresPerSocket: 14, ThreadsPerCore: 2, NUMANodes: 1, LogicalCPUs: 20}, 14, 20, 14, 1, 0},
		{"zero value", Host{}, 0, 0, 0, 0, 0},
	} {
		h := c.h
		if h.Cores() != c.cores || h.Threads() != c.threads || h.CoresPerNode() != c.perNode ||
			h.NodesPerSocket() != c.nodesPerSocket || h.MemoryBytes() != c.memory {
			t.Errorf("%s: cores %d, threads %d, cores per node %d, nodes per socket %d, memory %d; want %d, %d, %d, %d, %d",
				c.name, h.Cores(), h.Threads(), h.CoresPerNode(), h.NodesPerSocket(), h.MemoryBytes(),
				c.cores, c.threads, c.perNode, c.nodesPerSocket, c.memory)
		}
	}
}

func TestValidate(t *testing.T) {
	withLists := seed
	withLists.NodeCPUs = [][]int{cat(span(0, 11), span(24, 35)), cat(span(12, 23), span(36, 47))}
	for c := range 24 {
		withLists.CoreCPUs = append(withLists.CoreCPUs, []int{c, c + 24})
	}
	for _, h := range []Host{seed, withLists, {Sockets: 2, CoresPerSocket: 8, ThreadsPerCore: 1, NUMANodes: 1}, {Sockets: 2, CoresPerSocket: 8, ThreadsPerCore: 1, NUMANodes: 4}} {
		if err := h.Validate(); err != nil {
			t.Errorf("%+v: %v", h, err)
		}
	}

	for _, c := range []struct {
		name string
		h    Host
		want []string // every problem, at once
	}{
		{"zero", Host{}, []string{"sockets must be at least 1, got 0", "cores per socket must be at least 1, got 0",
			"threads per core must be at least 1, got 0", "NUMA nodes must be at least 1, got 0"}},
		{"nodes and memory", Host{Sockets: 2, CoresPerSocket: 5, ThreadsPerCore: 1, NUMANodes: 3, MemoryPerNode: -1},
			[]string{"memory per node must not be negative", "3 NUMA nodes on 2 sockets", "10 cores do not split evenly over 3 NUMA nodes"}},
		{"too many CPUs", Host{Sockets: 1 << 40, CoresPerSocket: 1 << 40, ThreadsPerCore: 1, NUMANodes: 1}, []string{"more than 65536 logical CPUs"}},
		{"memory overflow", Host{Sockets: 1, CoresPerSocket: 4, ThreadsPerCore: 1, NUMANodes: 4, MemoryPerNode: 1 << 62}, []string{"overflow 64 bits"}},
		{"logical CPUs", Host{Sockets: 1, CoresPerSocket: 4, ThreadsPerCore: 2, NUMANodes: 1, LogicalCPUs: 9}, []string{"9 logical CPUs: want between the 4 cores and 8"}},
		{"lists", Host{Sockets: 1, CoresPerSocket: 2, ThreadsPerCore: 2, NUMANodes: 1,
			NodeCPUs: [][]int{{0, 1, 2}, {}}, CoreCPUs: [][]int{{0, 1, 2}, {2, -1}}},
			[]string{"CPU lists for 2 NUMA nodes, but 1 nodes", "NUMA node 1 has no CPUs", "the NUMA node CPU lists hold 3 CPUs, but the host has 4",
				"core 0 has 3 logical CPUs, more than 2", "CPU 2 is in core 0 and core 1", "core 1 lists CPU -1"}},
	} {
		err := c.h.Validate()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error\n%v\nwant it to contain %q", c.name, err, w)
			}
		}
	}
}

func TestSummary(t *testing.T) {
	want := `Socket(s):           2
Core(s) per socket:  12
Thread(s) per core:  2
NUMA node(s):        2
Cores per node:      12
Memory per node:     128 GiB
Physical cores:      24, logical CPUs: 48
`
	if got := Summary(seed); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	h := Host{Sockets: 1, CoresPerSocket: 2, ThreadsPerCore: 1, NUMANodes: 1, Notes: []string{"memory per node unknown"}}
	got := Summary(h)
	if !strings.Contains(got, "Memory per node:     unknown\n") || !strings.HasSuffix(got, "\nNote: memory per node unknown\n") {
		t.Errorf("got\n%s", got)
	}
}

func ExampleSummary() {
	h := Host{Sockets: 1, CoresPerSocket: 32, ThreadsPerCore: 2, NUMANodes: 4, MemoryPerNode: 64 << 30}
	fmt.Print(Summary(h))
	// Output:
	// Socket(s):           1
	// Core(s) per socket:  32
	// Thread(s) per core:  2
	// NUMA node(s):        4
	// Cores per node:      8
	// Memory per node:     64 GiB
	// Physical cores:      32, logical CPUs: 64
}
