package topology

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestParseSeedHost(t *testing.T) {
	b, err := os.ReadFile("testdata/seed-host.yaml")
	if err != nil {
		t.Fatal(err)
	}
	h, err := Parse(b, "seed-host.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := Host{Name: "seed-e5-2680v3", Sockets: 2, CoresPerSocket: 12, ThreadsPerCore: 2, NUMANodes: 2,
		MemoryPerNode: 128 * gib, Source: "seed-host.yaml"}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("got  %+v\nwant %+v", h, want)
	}
	if h.Cores() != 24 || h.Threads() != 48 || h.CoresPerNode() != 12 || h.NodesPerSocket() != 1 || h.MemoryBytes() != 256*gib {
		t.Errorf("cores %d, threads %d, cores per node %d, nodes per socket %d, memory %d",
			h.Cores(), h.Threads(), h.CoresPerNode(), h.NodesPerSocket(), h.MemoryBytes())
	}
	// The sysfs fixture of the same host agrees, but for the CPU lists.
	s, err := FromSys(os.DirFS("testdata/seed-2x12-ht"), 0)
	if err != nil {
		t.Fatal(err)
	}
	s.Name, s.Source, s.NodeCPUs, s.CoreCPUs = h.Name, h.Source, nil, nil
	if !reflect.DeepEqual(s, h) {
		t.Errorf("sysfs %+v\nfile  %+v", s, h)
	}
}

func TestParseDefaultsAndMemory(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want Host
	}{
		{"sockets: 1\ncores_per_socket: 4\n", Host{Sockets: 1, CoresPerSocket: 4, ThreadsPerCore: 1, NUMANodes: 1,
			Notes: []string{"the description gives no memory: memory per node unknown"}}},
		{"sockets: 2\ncores_per_socket: 12\nthreads_per_core: 2\nmemory_total: 256GB\n",
			Host{Sockets: 2, CoresPerSocket: 12, ThreadsPerCore: 2, NUMANodes: 2, MemoryPerNode: 128e9}},
		{"sockets: 1\ncores_per_socket: 32\nnuma_nodes: 4\nmemory_total: 256GiB\n",
			Host{Sockets: 1, CoresPerSocket: 32, ThreadsPerCore: 1, NUMANodes: 4, MemoryPerNode: 64 * gib}},
		{"sockets: 2\ncores_per_socket: 8\nmemory_per_node: 131072MB\n",
			Host{Sockets: 2, CoresPerSocket: 8, ThreadsPerCore: 1, NUMANodes: 2, MemoryPerNode: 131072e6}},
		{"sockets: 2\ncores_per_socket: 8\nnuma_nodes: 1\nmemory_per_node: 1099511627776\n",
			Host{Sockets: 2, CoresPerSocket: 8, ThreadsPerCore: 1, NUMANodes: 1, MemoryPerNode: 1 << 40}},
	} {
		h, err := Parse([]byte(c.yaml), "h.yaml")
		c.want.Source = "h.yaml"
		if err != nil || !reflect.DeepEqual(h, c.want) {
			t.Errorf("Parse(%q) =\n %+v, %v\nwant %+v", c.yaml, h, err, c.want)
		}
	}
}

func TestParseRefusals(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want []string // each must be in the error
	}{
		{"", []string{"h.yaml: empty host description"}},
		{"- 1\n- 2\n", []string{"h.yaml: line 1: want a mapping"}},
		{"sockets: 2\ncores_per_socket: 12\nsocket: 2\n", []string{`h.yaml: line 3: unknown key "socket" (known keys: name, sockets,`}},
		{"sockets: 2\nsockets: 3\ncores_per_socket: 12\n", []string{"h.yaml: line 2: sockets: given twice (first on line 1)"}},
		{"cores_per_socket: 12\n", []string{"h.yaml: sockets is required"}},
		{"sockets: two\ncores_per_socket: 1.5\nthreads_per_core: 0\n", []string{
			`h.yaml: line 1: sockets: want a whole number, got "two"`,
			`h.yaml: line 2: cores_per_socket: want a whole number, got "1.5"`,
			"h.yaml: line 3: threads_per_core: must be at least 1, got 0"}},
		{"sockets: 2\ncores_per_socket: 12\nmemory_per_node: 128GB\nmemory_total: 256GB\n", []string{"line 4: memory_total: give memory_per_node or memory_total, not both"}},
		{"sockets: 1\ncores_per_socket: 12\nnuma_nodes: 3\nmemory_total: 100GB\n", []string{"line 4: memory_total: 93.1 GiB (100000000000 bytes) does not split evenly over 3 NUMA nodes"}},
		{"sockets: 1\ncores_per_socket: 12\nmemory_per_node: 128G\n", []string{`line 3: memory_per_node: memory size "128G": unknown unit "G"`}},
		{"sockets: 1\ncores_per_socket: 12\nmemory_per_node: 0GB\n", []string{"line 3: memory_per_node: must be more than 0"}},
		{"sockets: 1\ncores_per_socket: 12\nmemory_per_node: [1, 2]\n", []string{"line 3: memory_per_node: want a size"}},
		{"sockets: 2\ncores_per_socket: 5\nnuma_nodes: 3\n", []string{
			"h.yaml: 3 NUMA nodes on 2 sockets: the nodes must be a multiple or a divisor",
			"h.yaml: 10 cores do not split evenly over 3 NUMA nodes"}},
		{"sockets: 1\n---\nsockets: 2\n", []string{"h.yaml: want one YAML document"}},
		{"sockets: [\n", []string{"h.yaml: yaml:"}},
	} {
		_, err := Parse([]byte(c.yaml), "h.yaml")
		if err == nil {
			t.Errorf("Parse(%q): no error", c.yaml)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Parse(%q): error\n%v\nwant it to contain %q", c.yaml, err, w)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"sockets: 2\ncores_per_socket: 12\nthreads_per_core: 2\nmemory_per_node: 128GiB\n",
		"sockets: 1\ncores_per_socket: 32\nnuma_nodes: 4\nmemory_total: 256GiB\n", "x: [", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := Parse(b, "f.yaml")
		if err != nil {
			return
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("Parse accepted an invalid host %+v: %v", h, err)
		}
	})
}
