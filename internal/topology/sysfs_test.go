package topology

import (
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

const gib = int64(1) << 30

// span lists the CPUs lo..hi.
func span(lo, hi int) []int {
	var s []int
	for c := lo; c <= hi; c++ {
		s = append(s, c)
	}
	return s
}

func cat(lists ...[]int) []int {
	var s []int
	for _, l := range lists {
		s = append(s, l...)
	}
	return s
}

func TestFromSysFixtures(t *testing.T) {
	type want struct {
		sockets, coresPerSocket, threadsPerCore, nodes int
		memPerNode                                     int64
		cores, threads, coresPerNode, nodesPerSocket   int
		memTotal                                       int64
		nodeCPUs                                       [][]int
		someCores                                      map[int][]int // index in CoreCPUs -> its CPUs
	}
	cases := []struct {
		dir string
		w   want
	}{
		{"seed-2x12-ht", want{
			sockets: 2, coresPerSocket: 12, threadsPerCore: 2, nodes: 2, memPerNode: 128 * gib,
			cores: 24, threads: 48, coresPerNode: 12, nodesPerSocket: 1, memTotal: 256 * gib,
			nodeCPUs:  [][]int{cat(span(0, 11), span(24, 35)), cat(span(12, 23), span(36, 47))},
			someCores: map[int][]int{0: {0, 24}, 6: {6, 30}, 12: {12, 36}, 23: {23, 47}},
		}},
		{"epyc-1x32-nps4", want{
			sockets: 1, coresPerSocket: 32, threadsPerCore: 2, nodes: 4, memPerNode: 64 * gib,
			cores: 32, threads: 64, coresPerNode: 8, nodesPerSocket: 4, memTotal: 256 * gib,
			nodeCPUs: [][]int{
				cat(span(0, 7), span(32, 39)), cat(span(8, 15), span(40, 47)),
				cat(span(16, 23), span(48, 55)), cat(span(24, 31), span(56, 63)),
			},
			someCores: map[int][]int{0: {0, 32}, 31: {31, 63}},
		}},
		{"small-1x2", want{
			sockets: 1, coresPerSocket: 2, threadsPerCore: 1, nodes: 1, memPerNode: 5596960 * 1024,
			cores: 2, threads: 2, coresPerNode: 2, nodesPerSocket: 1, memTotal: 5596960 * 1024,
			nodeCPUs:  [][]int{{0, 1}},
			someCores: map[int][]int{0: {0}, 1: {1}},
		}},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			h, err := FromSys(os.DirFS("testdata/"+c.dir), 0)
			if err != nil {
				t.Fatal(err)
			}
			w := c.w
			got := want{
				sockets: h.Sockets, coresPerSocket: h.CoresPerSocket, threadsPerCore: h.ThreadsPerCore, nodes: h.NUMANodes,
				memPerNode: h.MemoryPerNode, cores: h.Cores(), threads: h.Threads(), coresPerNode: h.CoresPerNode(),
				nodesPerSocket: h.NodesPerSocket(), memTotal: h.MemoryBytes(), nodeCPUs: h.NodeCPUs, someCores: w.someCores,
			}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("got  %+v\nwant %+v", got, w)
			}
			if len(h.CoreCPUs) != w.cores {
				t.Errorf("%d core CPU lists, want %d", len(h.CoreCPUs), w.cores)
			}
			for i, cpus := range w.someCores {
				if i < len(h.CoreCPUs) && !reflect.DeepEqual(h.CoreCPUs[i], cpus) {
					t.Errorf("core %d: CPUs %v, want %v", i, h.CoreCPUs[i], cpus)
				}
			}
			if h.Source != "sysfs" || h.LogicalCPUs != 0 || len(h.Notes) != 0 {
				t.Errorf("source %q, logical CPUs %d, notes %q; want sysfs, 0, none", h.Source, h.LogicalCPUs, h.Notes)
			}
		})
	}
}

// TestFromSysThisMachine reads the real /sys: the logical CPUs it finds are
// the CPUs the Go runtime sees, unless this process is confined to fewer
// (a container's cpuset).
func TestFromSysThisMachine(t *testing.T) {
	if _, err := os.Stat("/sys/devices/system/cpu/online"); err != nil {
		t.Skip("no sysfs here:", err)
	}
	h, err := FromSys(os.DirFS("/sys"), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("this machine:\n%s", Summary(h))
	if err := h.Validate(); err != nil {
		t.Error(err)
	}
	online, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		t.Fatal(err)
	}
	cpus, err := parseCPUList(string(online))
	if err != nil {
		t.Fatal(err)
	}
	if h.Threads() != len(cpus) {
		t.Errorf("Threads() = %d, but %d CPUs online", h.Threads(), len(cpus))
	}
	switch n := runtime.NumCPU(); {
	case n == h.Threads():
	case n < h.Threads():
		t.Logf("runtime.NumCPU() = %d < %d logical CPUs: this process is confined to a subset (cpuset)", n, h.Threads())
	default:
		t.Errorf("runtime.NumCPU() = %d > Threads() = %d", n, h.Threads())
	}
	if h.Cores() > h.Threads() || h.CoresPerNode()*h.NUMANodes != h.Cores() {
		t.Errorf("inconsistent: %+v", h)
	}
}

// sysfsFS builds a sysfs tree in memory: cpus maps a CPU to "package die core
// siblings" (die "-" for no die_id file); nodes maps a node to "cpulist kB"
// (kB "-" for no meminfo).
func sysfsFS(online string, cpus map[int]string, nodes map[int]string) fstest.MapFS {
	m := fstest.MapFS{"devices/system/cpu/online": {Data: []byte(online + "\n")}}
	put := func(name, v string) { m[name] = &fstest.MapFile{Data: []byte(v + "\n")} }
	for c, spec := range cpus {
		f := strings.Fields(spec)
		d := "devices/system/cpu/cpu" + strconv.Itoa(c) + "/topology/"
		put(d+"physical_package_id", f[0])
		if f[1] != "-" {
			put(d+"die_id", f[1])
		}
		put(d+"core_id", f[2])
		put(d+"thread_siblings_list", f[3])
	}
	for n, spec := range nodes {
		list, kb, _ := strings.Cut(spec, " ")
		f := []string{list, kb}
		d := "devices/system/node/node" + strconv.Itoa(n) + "/"
		put(d+"cpulist", f[0])
		if f[1] != "-" {
			put(d+"meminfo", "Node "+strconv.Itoa(n)+" MemTotal:  "+f[1]+" kB\nNode "+strconv.Itoa(n)+" MemFree: 1 kB")
		}
	}
	if len(nodes) > 0 {
		put("devices/system/node/possible", "0-7")
	}
	return m
}

func TestFromSysEdgeCases(t *testing.T) {
	twoByTwoHT := map[int]string{0: "0 0 0 0,2", 1: "0 0 1 1,3", 2: "0 0 0 0,2", 3: "0 0 1 1,3"}
	t.Run("no node directory: one node per socket, memory unknown, noted", func(t *testing.T) {
		h, err := FromSys(sysfsFS("0-3", map[int]string{0: "0 - 0 0", 1: "0 - 1 1", 2: "1 - 0 2", 3: "1 - 1 3"}, nil), 0)
		if err != nil {
			t.Fatal(err)
		}
		if h.Sockets != 2 || h.CoresPerSocket != 2 || h.NUMANodes != 2 || h.MemoryPerNode != 0 || h.NodeCPUs != nil {
			t.Errorf("got %+v", h)
		}
		if len(h.Notes) != 1 || !strings.Contains(h.Notes[0], "memory per node unknown") {
			t.Errorf("notes %q", h.Notes)
		}
		if !strings.Contains(Summary(h), "Memory per node:     unknown\n") {
			t.Errorf("summary:\n%s", Summary(h))
		}
	})
	t.Run("memory-only node left out", func(t *testing.T) {
		h, err := FromSys(sysfsFS("0-3", twoByTwoHT, map[int]string{0: "0-3 1048576", 1: " 4194304"}), 0)
		if err != nil {
			t.Fatal(err)
		}
		if h.NUMANodes != 1 || h.MemoryPerNode != gib || h.Threads() != 4 || h.Cores() != 2 {
			t.Errorf("got %+v", h)
		}
		if len(h.Notes) != 1 || !strings.Contains(h.Notes[0], "NUMA node 1 has no online CPU") {
			t.Errorf("notes %q", h.Notes)
		}
	})
	t.Run("unequal node memory: the smallest, noted", func(t *testing.T) {
		h, err := FromSys(sysfsFS("0-1", map[int]string{0: "0 0 0 0", 1: "1 0 0 1"}, map[int]string{0: "0 131825796", 1: "1 132120576"}), 0)
		if err != nil {
			t.Fatal(err)
		}
		if h.MemoryPerNode != 131825796*1024 || h.MemoryBytes() != 2*131825796*1024 {
			t.Errorf("memory per node %d", h.MemoryPerNode)
		}
		if len(h.Notes) != 1 || !strings.Contains(h.Notes[0], "125.7 GiB to 126 GiB") {
			t.Errorf("notes %q", h.Notes)
		}
	})
	t.Run("node without meminfo: memory unknown, noted", func(t *testing.T) {
		h, err := FromSys(sysfsFS("0-1", map[int]string{0: "0 0 0 0", 1: "0 0 1 1"}, map[int]string{0: "0-1 -"}), 0)
		if err != nil {
			t.Fatal(err)
		}
		if h.MemoryPerNode != 0 || len(h.Notes) != 1 || !strings.Contains(h.Notes[0], "no meminfo") {
			t.Errorf("got %+v", h)
		}
	})
	t.Run("hybrid CPU: some cores without a sibling", func(t *testing.T) {
		// 1 P-core with HT (CPUs 0, 1) and 2 E-cores (2, 3).
		h, err := FromSys(sysfsFS("0-3", map[int]string{0: "0 0 0 0-1", 1: "0 0 0 0-1", 2: "0 0 8 2", 3: "0 0 9 3"}, map[int]string{0: "0-3 1048576"}), 0)
		if err != nil {
			t.Fatal(err)
		}
		if h.Cores() != 3 || h.ThreadsPerCore != 2 || h.Threads() != 4 || h.LogicalCPUs != 4 {
			t.Errorf("got %+v", h)
		}
		if !reflect.DeepEqual(h.CoreCPUs, [][]int{{0, 1}, {2}, {3}}) {
			t.Errorf("core CPUs %v", h.CoreCPUs)
		}
		if len(h.Notes) != 1 || !strings.Contains(h.Notes[0], "not every core has 2 threads") {
			t.Errorf("notes %q", h.Notes)
		}
	})
	t.Run("offline sibling: counted from online CPUs", func(t *testing.T) {
		h, err := FromSys(sysfsFS("0-2", twoByTwoHT, map[int]string{0: "0-3 1048576"}), 0)
		if err != nil {
			t.Fatal(err)
		}
		if h.Cores() != 2 || h.Threads() != 3 || !reflect.DeepEqual(h.NodeCPUs, [][]int{{0, 1, 2}}) {
			t.Errorf("got %+v", h)
		}
	})
	t.Run("core_id repeated across dies: the die tells them apart", func(t *testing.T) {
		h, err := FromSys(sysfsFS("0-3", map[int]string{0: "0 0 0 0", 1: "0 0 1 1", 2: "0 1 0 2", 3: "0 1 1 3"}, map[int]string{0: "0-3 1048576"}), 0)
		if err != nil {
			t.Fatal(err)
		}
		if h.Cores() != 4 || h.ThreadsPerCore != 1 || len(h.Notes) != 0 {
			t.Errorf("got %+v", h)
		}
	})
	t.Run("core_id repeated within a die: the sibling lists decide, noted", func(t *testing.T) {
		// Two clusters per die, core_id counting within the cluster.
		h, err := FromSys(sysfsFS("0-3", map[int]string{0: "0 0 0 0", 1: "0 0 1 1", 2: "0 0 0 2", 3: "0 0 1 3"}, map[int]string{0: "0-3 1048576"}), 0)
		if err != nil {
			t.Fatal(err)
		}
		if h.Cores() != 4 || h.ThreadsPerCore != 1 || h.Threads() != 4 {
			t.Errorf("got %+v", h)
		}
		if len(h.Notes) != 1 || !strings.Contains(h.Notes[0], "counted from the sibling lists: 4, not 2") {
			t.Errorf("notes %q", h.Notes)
		}
	})

	refusals := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"no online file", fstest.MapFS{}, "devices/system/cpu/online"},
		{"bad online list", sysfsFS("0-x", nil, nil), "bad range"},
		{"missing core_id", func() fstest.MapFS {
			m := sysfsFS("0", map[int]string{0: "0 0 0 0"}, nil)
			delete(m, "devices/system/cpu/cpu0/topology/core_id")
			return m
		}(), "cpu0/topology/core_id"},
		{"siblings without the CPU itself", sysfsFS("0-1", map[int]string{0: "0 0 0 1", 1: "0 0 1 1"}, nil), "does not list CPU 0"},
		{"uneven sockets", sysfsFS("0-2", map[int]string{0: "0 0 0 0", 1: "0 0 1 1", 2: "1 0 0 2"}, nil), "socket 0: 2, socket 1: 1"},
		{"bad meminfo", sysfsFS("0", map[int]string{0: "0 0 0 0"}, map[int]string{0: "0 lots"}), "bad MemTotal"},
		{"3 nodes on 2 sockets", sysfsFS("0-5", map[int]string{0: "0 0 0 0", 1: "0 0 1 1", 2: "0 0 2 2", 3: "1 0 0 3", 4: "1 0 1 4", 5: "1 0 2 5"},
			map[int]string{0: "0-1 1", 1: "2-3 1", 2: "4-5 1"}), "multiple or a divisor"},
	}
	for _, r := range refusals {
		t.Run("refuses "+r.name, func(t *testing.T) {
			_, err := FromSys(r.fsys, 0)
			if err == nil || !strings.Contains(err.Error(), r.want) {
				t.Errorf("error %v; want one containing %q", err, r.want)
			}
		})
	}
}

// TestFromSysMemTotal: the nodes' memory cross-checked with /proc/meminfo's
// MemTotal, the larger used, with a note when they differ by more than 1 %.
func TestFromSysMemTotal(t *testing.T) {
	const kib = int64(1024)
	one := map[int]string{0: "0 0 0 0", 1: "0 0 1 1"}
	two := map[int]string{0: "0 0 0 0", 1: "1 0 0 1"}
	cases := []struct {
		name     string
		fsys     fstest.MapFS
		memTotal int64
		perNode  int64
		notes    []string // a substring of each note, in order
	}{
		{"this machine: node 0 lags a hot-plugged MemTotal", sysfsFS("0-1", one, map[int]string{0: "0-1 6121676"}), 24684084 * kib,
			24684084 * kib, []string{"sysfs's NUMA node holds 5.8 GiB but /proc/meminfo's MemTotal is 23.5 GiB (memory hot-plugged into a VM after boot?): the larger is used, memory per node 23.5 GiB"}},
		{"unknown MemTotal: sysfs's", sysfsFS("0-1", one, map[int]string{0: "0-1 6121676"}), 0, 6121676 * kib, nil},
		{"within 1 %: sysfs's, no note", sysfsFS("0-1", one, map[int]string{0: "0-1 1048576"}), gib + gib/200, gib, nil},
		{"smaller MemTotal (a container): sysfs's, noted", sysfsFS("0-1", one, map[int]string{0: "0-1 4194304"}), gib, 4 * gib,
			[]string{"/proc/meminfo's MemTotal is 1 GiB but sysfs's NUMA node holds 4 GiB (a container's memory limit?): the larger, sysfs's, is used"}},
		{"two nodes scaled by the same factor, the smallest per node", sysfsFS("0-1", two, map[int]string{0: "0 1048576", 1: "1 3145728"}), 8 * gib,
			2 * gib, []string{"memory differs (1 GiB to 3 GiB)", "sysfs's NUMA nodes hold 4 GiB but /proc/meminfo's MemTotal is 8 GiB (memory hot-plugged into a VM after boot?): the larger is used, memory per node 2 GiB"}},
		{"memory-only node counted in the total: agrees", sysfsFS("0-1", one, map[int]string{0: "0-1 1048576", 1: " 4194304"}), 5 * gib,
			gib, []string{"NUMA node 1 has no online CPU"}},
		{"memory-only node's memory is not the CPU node's", sysfsFS("0-1", one, map[int]string{0: "0-1 1048576", 1: " 4194304"}), 7 * gib,
			3 * gib, []string{"NUMA node 1 has no online CPU", "holds 1 GiB (and 4 GiB on memory-only nodes) but /proc/meminfo's MemTotal is 7 GiB (memory hot-plugged into a VM after boot?): the larger is used, memory per node 3 GiB"}},
		{"no node directory, one socket: MemTotal", sysfsFS("0-1", one, nil), 8 * gib,
			8 * gib, []string{"one node assumed, with /proc/meminfo's MemTotal (8 GiB)"}},
		{"no node directory, two sockets: unknown, not split by guess", sysfsFS("0-1", two, nil), 8 * gib,
			0, []string{"memory per node unknown"}},
		{"one node without meminfo: MemTotal", sysfsFS("0-1", one, map[int]string{0: "0-1 -"}), 8 * gib,
			8 * gib, []string{"the host's one node has /proc/meminfo's MemTotal (8 GiB)"}},
		{"two nodes without meminfo: unknown", sysfsFS("0-1", two, map[int]string{0: "0 -", 1: "1 -"}), 8 * gib,
			0, []string{"memory per node unknown"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := FromSys(c.fsys, c.memTotal)
			if err != nil {
				t.Fatal(err)
			}
			if h.MemoryPerNode != c.perNode {
				t.Errorf("memory per node %s (%d), want %s (%d)", FormatBytes(h.MemoryPerNode), h.MemoryPerNode, FormatBytes(c.perNode), c.perNode)
			}
			if len(h.Notes) != len(c.notes) {
				t.Fatalf("notes %q, want %d", h.Notes, len(c.notes))
			}
			for i, w := range c.notes {
				if !strings.Contains(h.Notes[i], w) {
					t.Errorf("note %d %q lacks %q", i, h.Notes[i], w)
				}
			}
		})
	}
}

func TestParseCPUList(t *testing.T) {
	for in, want := range map[string][]int{
		"":              nil,
		"0\n":           {0},
		"0-3":           {0, 1, 2, 3},
		"0-1,24-25":     {0, 1, 24, 25},
		" 5, 1-2,2 \n":  {1, 2, 5},
		"12-23,36-47":   cat(span(12, 23), span(36, 47)),
		"0-11,24-35\n ": cat(span(0, 11), span(24, 35)),
	} {
		got, err := parseCPUList(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parseCPUList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"a", "1-", "3-1", "-1", "0,,1", "0-4294967295", "1 2"} {
		if got, err := parseCPUList(in); err == nil {
			t.Errorf("parseCPUList(%q) = %v; want an error", in, got)
		}
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-11,24-35", "0", "", "3-1", "0-65536"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := parseCPUList(s)
		if err != nil {
			return
		}
		for i, c := range cpus {
			if c < 0 || c > maxCPU || i > 0 && c <= cpus[i-1] {
				t.Fatalf("parseCPUList(%q) = %v: not ascending, distinct, in range", s, cpus)
			}
		}
	})
}
