package topology

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// maxCPU bounds CPU numbers in a list, so that a corrupt "0-4294967295"
// cannot allocate gigabytes.
const maxCPU = 1 << 16

// parseCPUList reads the kernel's CPU list format ("0-11,24-35", "0", "";
// spaces and a trailing newline ignored) into ascending, distinct CPU
// numbers.
func parseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var cpus []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 || a > maxCPU {
			return nil, fmt.Errorf("CPU list %q: bad CPU %q", s, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b > maxCPU {
				return nil, fmt.Errorf("CPU list %q: bad range %q", s, part)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// FromSys discovers the host's topology from a sysfs tree: fsys is rooted
// at /sys (the CLI passes os.DirFS("/sys"), tests a fixture tree). It reads
//
//   - devices/system/cpu/online: the online CPUs;
//   - devices/system/cpu/cpuN/topology/{physical_package_id, die_id,
//     core_id, thread_siblings_list} for each online CPU (die_id is
//     optional);
//   - devices/system/node/nodeN/{cpulist, meminfo} for each NUMA node.
//
// A physical core is a distinct (package, die, core_id) triple; when those
// triples disagree with the kernel's sibling lists (core_id repeating within
// a die, as on some clustered CPUs), the sibling lists decide and a note
// says so. Threads per core is the largest sibling count. Nodes without
// online CPUs (memory-only: CXL, HBM) are left out, with a note. When sysfs
// has no node directory, FromSys assumes one node per socket, leaves memory
// per node unknown (0) and says so in a note: it never makes a number up.
// When the nodes' memory differs, MemoryPerNode is the smallest, with a
// note.
//
// memTotal is the kernel's MemTotal in bytes (/proc/meminfo; 0 or less:
// unknown, not checked). The nodes' memory should add up to it (with the
// memory-only nodes'), but sysfs's node counters can lag it: on a VM whose
// memory is hot-plugged after boot (the development machine's node 0 says
// 5.8 GiB of its 23.5 GiB), or the other way where /proc/meminfo shows a
// container's limit. When the two differ by more than 1 %, the larger is
// used, with a note: a larger MemTotal is shared by the nodes with CPUs in
// proportion to what sysfs gives each (one node simply gets MemTotal, less
// any memory-only node's), and larger nodes are kept. When sysfs gives no
// memory for a host of one NUMA node, it has MemTotal, with a note; with
// several nodes, memory per node stays unknown rather than split by guess.
//
// The result is validated; Source is "sysfs".
func FromSys(fsys fs.FS, memTotal int64) (Host, error) {
	h := Host{Source: "sysfs"}
	note := func(format string, a ...any) { h.Notes = append(h.Notes, fmt.Sprintf(format, a...)) }

	online, err := readOnline(fsys)
	if err != nil {
		return h, err
	}
	isOnline := map[int]bool{}
	for _, c := range online {
		isOnline[c] = true
	}
	cpus, err := readSysCPUs(fsys, online, isOnline)
	if err != nil {
		return h, err
	}
	h.CoreCPUs = cpus.cores(note)
	h.ThreadsPerCore = cpus.maxSiblings
	if err := cpus.sockets(&h); err != nil {
		return h, err
	}
	if n := len(online); n != h.Cores()*h.ThreadsPerCore {
		h.LogicalCPUs = n
		note("%d logical CPUs on %d cores: not every core has %d threads (a hybrid CPU, or SMT off on some cores)", n, h.Cores(), h.ThreadsPerCore)
	}

	if err := readNodes(fsys, &h, isOnline, memTotal, note); err != nil {
		return h, err
	}
	if err := h.Validate(); err != nil {
		return h, prefixEach("topology from sysfs: ", err)
	}
	return h, nil
}

// readOnline reads devices/system/cpu/online: the online CPUs, at least
// one.
func readOnline(fsys fs.FS) ([]int, error) {
	onlineText, err := fs.ReadFile(fsys, "devices/system/cpu/online")
	if err != nil {
		return nil, fmt.Errorf("topology from sysfs: %w", err)
	}
	online, err := parseCPUList(string(onlineText))
	if err != nil {
		return nil, fmt.Errorf("topology from sysfs: devices/system/cpu/online: %w", err)
	}
	if len(online) == 0 {
		return nil, errors.New("topology from sysfs: devices/system/cpu/online lists no CPU")
	}
	return online, nil
}

// coreKey names a physical core as sysfs numbers it: package, die, core_id.
type coreKey struct{ pkg, die, core int }

// sysCPUs is the online CPUs' topology as sysfs gives it, grouped two ways:
// by core key and by sibling list.
type sysCPUs struct {
	keyOf       map[int]coreKey
	siblingsOf  map[int]string // the online siblings, as a list, to compare
	byKey       map[coreKey][]int
	bySiblings  map[string][]int
	maxSiblings int
}

// readSysCPUs reads each online CPU's core key and online siblings.
func readSysCPUs(fsys fs.FS, online []int, isOnline map[int]bool) (sysCPUs, error) {
	t := sysCPUs{keyOf: map[int]coreKey{}, siblingsOf: map[int]string{}, byKey: map[coreKey][]int{}, bySiblings: map[string][]int{}}
	for _, c := range online {
		k, sibs, err := readSysCPU(fsys, c, isOnline)
		if err != nil {
			return t, err
		}
		t.keyOf[c] = k
		sib := fmt.Sprint(sibs)
		t.siblingsOf[c] = sib
		t.byKey[k] = append(t.byKey[k], c)
		t.bySiblings[sib] = append(t.bySiblings[sib], c)
		t.maxSiblings = max(t.maxSiblings, len(sibs))
	}
	return t, nil
}

// readSysCPU reads CPU c's topology directory: its core key (die 0 when
// die_id is absent) and its online thread siblings, which must include c.
func readSysCPU(fsys fs.FS, c int, isOnline map[int]bool) (coreKey, []int, error) {
	dir := fmt.Sprintf("devices/system/cpu/cpu%d/topology/", c)
	var k coreKey
	var err error
	if k.pkg, err = readInt(fsys, dir+"physical_package_id"); err != nil {
		return k, nil, err
	}
	if k.core, err = readInt(fsys, dir+"core_id"); err != nil {
		return k, nil, err
	}
	if k.die, err = readInt(fsys, dir+"die_id"); errors.Is(err, fs.ErrNotExist) {
		k.die = 0
	} else if err != nil {
		return k, nil, err
	}
	sibText, err := fs.ReadFile(fsys, dir+"thread_siblings_list")
	if err != nil {
		return k, nil, fmt.Errorf("topology from sysfs: %w", err)
	}
	sibs, err := parseCPUList(string(sibText))
	if err != nil {
		return k, nil, fmt.Errorf("topology from sysfs: %s: %w", dir+"thread_siblings_list", err)
	}
	sibs = slices.DeleteFunc(sibs, func(s int) bool { return !isOnline[s] })
	if !slices.Contains(sibs, c) {
		return k, nil, fmt.Errorf("topology from sysfs: %sthread_siblings_list %q does not list CPU %d itself", dir, strings.TrimSpace(string(sibText)), c)
	}
	return k, sibs, nil
}

// cores groups the CPUs into physical cores, ordered by their first CPU: by
// core key, unless the key groups disagree with the sibling lists, in which
// case by sibling list, with a note.
func (t sysCPUs) cores(note func(string, ...any)) [][]int {
	var cores [][]int
	agree := true
	for _, cpus := range t.byKey {
		for _, c := range cpus {
			if t.siblingsOf[c] != fmt.Sprint(cpus) {
				agree = false
			}
		}
	}
	if agree {
		for _, cpus := range t.byKey {
			cores = append(cores, cpus)
		}
	} else {
		for _, cpus := range t.bySiblings {
			cores = append(cores, cpus)
		}
		note("core_id does not tell the cores apart on this host (it repeats within a die, or disagrees with thread_siblings_list); cores are counted from the sibling lists: %d, not %d", len(t.bySiblings), len(t.byKey))
	}
	sort.Slice(cores, func(i, j int) bool { return cores[i][0] < cores[j][0] })
	return cores
}

// sockets sets h's Sockets and CoresPerSocket from its cores (CoreCPUs)
// and their packages: every socket must have as many cores as every other.
func (t sysCPUs) sockets(h *Host) error {
	perSocket := map[int]int{}
	for _, cpus := range h.CoreCPUs {
		perSocket[t.keyOf[cpus[0]].pkg]++
	}
	h.Sockets = len(perSocket)
	pkgs := make([]int, 0, len(perSocket))
	for p := range perSocket {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	h.CoresPerSocket = perSocket[pkgs[0]]
	for _, p := range pkgs[1:] {
		if perSocket[p] != h.CoresPerSocket {
			var counts []string
			for _, q := range pkgs {
				counts = append(counts, fmt.Sprintf("socket %d: %d", q, perSocket[q]))
			}
			return fmt.Errorf("topology from sysfs: the sockets have different numbers of online cores (%s); are some CPUs offline?", strings.Join(counts, ", "))
		}
	}
	return nil
}

// readNodes fills the NUMA fields of h from devices/system/node, memory
// cross-checked with memTotal (bytes, 0 unknown) as FromSys says.
func readNodes(fsys fs.FS, h *Host, isOnline map[int]bool, memTotal int64, note func(string, ...any)) error {
	entries, err := fs.ReadDir(fsys, "devices/system/node")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("topology from sysfs: %w", err)
	}
	type node struct {
		id   int
		cpus []int
		mem  int64 // bytes, -1 unknown
	}
	var nodes []node
	var memOnly int64 // bytes on nodes without CPUs, -1 when one is unknown
	for _, e := range entries {
		id, err := strconv.Atoi(strings.TrimPrefix(e.Name(), "node"))
		if !strings.HasPrefix(e.Name(), "node") || err != nil || id < 0 {
			continue // online, possible, has_cpu, power, ...
		}
		dir := "devices/system/node/" + e.Name() + "/"
		text, err := fs.ReadFile(fsys, dir+"cpulist")
		if err != nil {
			return fmt.Errorf("topology from sysfs: %w", err)
		}
		cpus, err := parseCPUList(string(text))
		if err != nil {
			return fmt.Errorf("topology from sysfs: %scpulist: %w", dir, err)
		}
		cpus = slices.DeleteFunc(cpus, func(c int) bool { return !isOnline[c] })
		if len(cpus) == 0 {
			note("NUMA node %d has no online CPU (memory only: CXL, HBM, or its CPUs are offline); left out", id)
			if mi, err := fs.ReadFile(fsys, dir+"meminfo"); err != nil {
				memOnly = -1
			} else if m, err := parseNodeMemTotal(mi); err != nil || memOnly < 0 || m > math.MaxInt64-memOnly {
				memOnly = -1
			} else {
				memOnly += m
			}
			continue
		}
		n := node{id: id, cpus: cpus, mem: -1}
		if mi, err := fs.ReadFile(fsys, dir+"meminfo"); err == nil {
			if n.mem, err = parseNodeMemTotal(mi); err != nil {
				return fmt.Errorf("topology from sysfs: %smeminfo: %w", dir, err)
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("topology from sysfs: %w", err)
		}
		nodes = append(nodes, n)
	}
	if len(nodes) == 0 {
		h.NUMANodes = h.Sockets
		h.MemoryPerNode = 0
		if h.Sockets == 1 && memTotal > 0 && memOnly == 0 {
			h.MemoryPerNode = memTotal
			note("sysfs has no NUMA node (a kernel without NUMA support?): one node assumed, with /proc/meminfo's MemTotal (%s)", FormatBytes(memTotal))
			return nil
		}
		note("sysfs has no NUMA node (a kernel without NUMA support?): one node per socket assumed; memory per node unknown")
		return nil
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].id < nodes[j].id })
	h.NUMANodes = len(nodes)
	mem := make([]int64, len(nodes))
	for i, n := range nodes {
		h.NodeCPUs = append(h.NodeCPUs, n.cpus)
		mem[i] = n.mem
	}
	h.MemoryPerNode = nodeMemory(mem, memOnly, memTotal, note)
	return nil
}

// nodeMemory is the memory per node to use (bytes, 0 unknown) from the
// nodes with CPUs (mem, by node, -1 unknown), the memory-only nodes' total
// (memOnly, -1 unknown) and the kernel's MemTotal (0 unknown), as FromSys
// says; it notes what it decided.
func nodeMemory(mem []int64, memOnly, memTotal int64, note func(string, ...any)) int64 {
	lo, hi, sum := mem[0], mem[0], int64(0)
	for _, m := range mem {
		lo, hi = min(lo, m), max(hi, m)
		if sum > math.MaxInt64-max(m, 0) {
			lo = -1 // a corrupt tree: unknown rather than wrapped
		}
		sum += max(m, 0)
	}
	if lo < 0 {
		if len(mem) == 1 && memTotal > 0 && memOnly == 0 {
			note("NUMA node memory is not in sysfs: the host's one node has /proc/meminfo's MemTotal (%s)", FormatBytes(memTotal))
			return memTotal
		}
		note("a NUMA node has no meminfo in sysfs: memory per node unknown")
		return 0
	}
	if lo != hi {
		note("the NUMA nodes' memory differs (%s to %s): memory per node is the smallest", FormatBytes(lo), FormatBytes(hi))
	}
	if memTotal <= 0 || memOnly < 0 || sum == 0 || memOnly > math.MaxInt64-sum {
		return lo
	}
	inSysfs := sum + memOnly
	besides := ""
	if memOnly > 0 {
		besides = fmt.Sprintf(" (and %s on memory-only nodes)", FormatBytes(memOnly))
	}
	holds := "NUMA nodes hold"
	if len(mem) == 1 {
		holds = "NUMA node holds"
	}
	switch {
	case memTotal-inSysfs > inSysfs/100:
		// Scale lo by (memTotal-memOnly)/sum; lo ≤ sum, so the quotient
		// is at most memTotal and fits.
		hi64, lo64 := bits.Mul64(uint64(lo), uint64(memTotal-memOnly))
		q, _ := bits.Div64(hi64, lo64, uint64(sum))
		note("sysfs's %s %s%s but /proc/meminfo's MemTotal is %s (memory hot-plugged into a VM after boot?): the larger is used, memory per node %s",
			holds, FormatBytes(sum), besides, FormatBytes(memTotal), FormatBytes(int64(q)))
		return int64(q)
	case inSysfs-memTotal > inSysfs/100:
		note("/proc/meminfo's MemTotal is %s but sysfs's %s %s%s (a container's memory limit?): the larger, sysfs's, is used",
			FormatBytes(memTotal), holds, FormatBytes(sum), besides)
	}
	return lo
}

// parseNodeMemTotal reads a node's MemTotal in bytes from its meminfo
// ("Node 0 MemTotal:       131825796 kB").
func parseNodeMemTotal(b []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || f[0] != "Node" || f[2] != "MemTotal:" {
			continue
		}
		kb, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil || kb < 0 || kb > math.MaxInt64/1024 {
			return 0, fmt.Errorf("bad MemTotal %q", f[3])
		}
		if len(f) > 4 && f[4] != "kB" {
			return 0, fmt.Errorf("MemTotal in %q, not kB", f[4])
		}
		return kb * 1024, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("no MemTotal line")
}

// readInt reads a file holding one decimal integer.
func readInt(fsys fs.FS, name string) (int, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, fmt.Errorf("topology from sysfs: %w", err)
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("topology from sysfs: %s: %q is not a number", name, strings.TrimSpace(string(b)))
	}
	return v, nil
}
