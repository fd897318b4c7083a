// Package host samples the load generator's host from /proc (through
// prometheus/procfs): CPU by kind (user, system, iowait, steal, idle) for the
// host and each CPU, the run queue, context switches, disk activity, memory,
// the kernel's CPU and I/O pressure stall information, and the CPU of the
// database server's own processes when it runs here (WatchServer). A
// Sampler returns what happened since its previous sample; the arithmetic
// on two snapshots is pure (delta, treeCPU) and tested on fixtures.
//
// It also finds what to watch (Watched: rightsize's cgroup, the database's
// and its server's processes, from the address a target names) and reads
// a host's topology for plan --host (Topology: this machine's /sys, or a
// YAML description).
package host

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"

	"github.com/rightsize/rightsize/internal/result"
)

// snapshot is the counters read at one moment.
type snapshot struct {
	total    procfs.CPUStat
	perCPU   []procfs.CPUStat // by CPU number
	running  int64
	blocked  int64
	ctxt     uint64
	disks    map[string]blockdevice.IOStats
	memTotal uint64 // kB
	memAvail uint64 // kB
	// psi are the pressure stall totals (µs) of cpu and io, "some" and
	// "full"; hasPSI is false where the kernel has no /proc/pressure.
	psi    [2][2]uint64
	hasPSI bool
	cg     []cgSnap   // by Sampler.cgroups
	srv    []treeSnap // by Sampler.servers
}

// psiResources are the /proc/pressure files read, in snapshot.psi's order.
var psiResources = [2]string{"cpu", "io"}

// Sampler reads snapshots from one /proc tree. It is not safe for
// concurrent use.
type Sampler struct {
	fs      procfs.FS
	bfs     blockdevice.FS
	cgroups []Cgroup
	servers []Server
	last    snapshot
}

// NewSampler reads the first snapshot from procRoot (normally "/proc") and
// the cgroups watched (see CgroupOf, CgroupAt), each once.
func NewSampler(procRoot string, cgroups ...Cgroup) (*Sampler, error) {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return nil, fmt.Errorf("host metrics: %w", err)
	}
	bfs, err := blockdevice.NewFS(procRoot, "/sys")
	if err != nil {
		return nil, fmt.Errorf("host metrics: %w", err)
	}
	s := &Sampler{fs: fs, bfs: bfs, cgroups: mergeCgroups(cgroups)}
	if s.last, err = s.read(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Sampler) read() (snapshot, error) {
	st, err := s.fs.Stat()
	if err != nil {
		return snapshot{}, fmt.Errorf("host metrics: /proc/stat: %w", err)
	}
	snap := snapshot{total: st.CPUTotal, running: int64(st.ProcessesRunning), blocked: int64(st.ProcessesBlocked), ctxt: st.ContextSwitches}
	ids := make([]int64, 0, len(st.CPU))
	for id := range st.CPU {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		snap.perCPU = append(snap.perCPU, st.CPU[id])
	}
	if ds, err := s.bfs.ProcDiskstats(); err == nil {
		snap.disks = map[string]blockdevice.IOStats{}
		for _, d := range ds {
			if wholeDisk(d.DeviceName) {
				snap.disks[d.DeviceName] = d.IOStats
			}
		}
	}
	if mi, err := s.fs.Meminfo(); err == nil && mi.MemTotal != nil && mi.MemAvailable != nil {
		snap.memTotal, snap.memAvail = *mi.MemTotal, *mi.MemAvailable
	}
	snap.psi, snap.hasPSI = readPSI(s.fs)
	for _, c := range s.cgroups {
		snap.cg = append(snap.cg, readCgroup(c))
	}
	snap.srv = s.readServers()
	return snap, nil
}

// readPSI reads the pressure totals; false when either file is missing or
// unreadable (the kernel has no PSI, or it is disabled).
func readPSI(fs procfs.FS) ([2][2]uint64, bool) {
	var t [2][2]uint64
	for i, r := range psiResources {
		st, err := fs.PSIStatsForResource(r)
		if err != nil || st.Some == nil {
			return t, false
		}
		t[i][0] = st.Some.Total
		if st.Full != nil {
			t[i][1] = st.Full.Total
		}
	}
	return t, true
}

// pressure is the stall shares between two snapshots secs apart.
func pressure(prev, cur snapshot, secs float64) *result.Pressure {
	if !prev.hasPSI || !cur.hasPSI || secs <= 0 {
		return nil
	}
	pct := func(i, j int) float64 {
		if cur.psi[i][j] < prev.psi[i][j] {
			return 0
		}
		return min(100, float64(cur.psi[i][j]-prev.psi[i][j])/1e6/secs*100)
	}
	return &result.Pressure{CPUSomePct: pct(0, 0), CPUFullPct: pct(0, 1), IOSomePct: pct(1, 0), IOFullPct: pct(1, 1)}
}

// wholeDisk keeps disks, not their partitions or virtual devices that
// mirror others (loop, ram, dm-, md are kept only when named so by users:
// loop and ram carry no disk traffic of their own).
func wholeDisk(name string) bool {
	for _, p := range []string{"loop", "ram", "zram", "sr", "fd"} {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	last := name[len(name)-1]
	switch {
	case strings.HasPrefix(name, "nvme") || strings.HasPrefix(name, "mmcblk"):
		return !strings.Contains(name[4:], "p") // nvme0n1, not nvme0n1p1
	case last >= '0' && last <= '9' && (strings.HasPrefix(name, "sd") || strings.HasPrefix(name, "vd") || strings.HasPrefix(name, "xvd") || strings.HasPrefix(name, "hd")):
		return false // sda1, vda2
	}
	return true
}

// Sample returns the host's figures since the previous sample, over secs
// seconds of wall time.
func (s *Sampler) Sample(secs float64) (*result.Host, error) {
	cur, err := s.read()
	if err != nil {
		return nil, err
	}
	h := delta(s.last, cur, secs)
	for i, c := range s.cgroups {
		if g, ok := cgroupDelta(c, s.last.cg[i], cur.cg[i], secs); ok {
			h.Cgroups = append(h.Cgroups, g)
		}
	}
	for i, srv := range s.servers {
		if c, ok := treeDelta(srv, s.last.srv[i], cur.srv[i], secs); ok {
			h.ServerCPU = append(h.ServerCPU, c)
		}
	}
	s.last = cur
	return h, nil
}

// sectorBytes is the unit of /proc/diskstats' sector counts (always 512).
const sectorBytes = 512

// delta computes the figures between two snapshots taken secs apart.
func delta(prev, cur snapshot, secs float64) *result.Host {
	h := &result.Host{CPU: cpuPct(prev.total, cur.total), CPUs: len(cur.perCPU), RunQueue: cur.running, Blocked: cur.blocked}
	if len(prev.perCPU) == len(cur.perCPU) {
		for i := range cur.perCPU {
			h.PerCPU = append(h.PerCPU, cpuPct(prev.perCPU[i], cur.perCPU[i]))
		}
	}
	if secs > 0 && cur.ctxt >= prev.ctxt {
		h.ContextSwitchesPerS = float64(cur.ctxt-prev.ctxt) / secs
	}
	names := make([]string, 0, len(cur.disks))
	for n := range cur.disks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c, p := cur.disks[n], prev.disks[n]
		if secs <= 0 || c.ReadIOs < p.ReadIOs || c.WriteIOs < p.WriteIOs {
			continue // new device or counters reset
		}
		d := result.Disk{
			Name:      n,
			ReadIOPS:  float64(c.ReadIOs-p.ReadIOs) / secs,
			WriteIOPS: float64(c.WriteIOs-p.WriteIOs) / secs,
			ReadMBps:  float64(c.ReadSectors-p.ReadSectors) * sectorBytes / 1e6 / secs,
			WriteMBps: float64(c.WriteSectors-p.WriteSectors) * sectorBytes / 1e6 / secs,
			UtilPct:   min(100, float64(c.IOsTotalTicks-p.IOsTotalTicks)/10/secs), // ms busy per s, in %
		}
		if d.ReadIOPS+d.WriteIOPS+d.UtilPct > 0 {
			h.Disks = append(h.Disks, d)
		}
	}
	if cur.memTotal > 0 {
		h.MemUsedPct = 100 * float64(cur.memTotal-cur.memAvail) / float64(cur.memTotal)
		h.MemAvailableMiB = float64(cur.memAvail) / 1024
	}
	h.Pressure = pressure(prev, cur, secs)
	return h
}

// cpuPct is the share of each kind of CPU time between two readings.
func cpuPct(p, c procfs.CPUStat) result.CPUPct {
	// Counters only grow, but a CPU taken offline and back (or iowait, which
	// the kernel may step back) can make a difference negative: count it as 0.
	user := max(0, (c.User+c.Nice)-(p.User+p.Nice))
	sys := max(0, (c.System+c.IRQ+c.SoftIRQ)-(p.System+p.IRQ+p.SoftIRQ))
	iowait := max(0, c.Iowait-p.Iowait)
	steal := max(0, c.Steal-p.Steal)
	idle := max(0, c.Idle-p.Idle)
	total := user + sys + iowait + steal + idle
	if total <= 0 {
		return result.CPUPct{}
	}
	pct := func(x float64) float64 { return 100 * x / total }
	return result.CPUPct{User: pct(user), System: pct(sys), Iowait: pct(iowait), Steal: pct(steal), Idle: pct(idle)}
}

// CPUModel is the host's CPU model from procRoot's cpuinfo: the model name
// of its CPUs, each distinct one once, in CPU order, joined by ", "; "" when
// cpuinfo names none (some ARM kernels).
func CPUModel(procRoot string) (string, error) {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return "", fmt.Errorf("cpu model: %w", err)
	}
	cpus, err := fs.CPUInfo()
	if err != nil {
		return "", fmt.Errorf("cpu model: %w", err)
	}
	var models []string
	for _, c := range cpus {
		if m := strings.Join(strings.Fields(c.ModelName), " "); m != "" && !slices.Contains(models, m) {
			models = append(models, m)
		}
	}
	return strings.Join(models, ", "), nil
}

// MemTotal reads the kernel's MemTotal in bytes from procRoot's meminfo
// (normally /proc/meminfo): the memory the host has, which the planner
// cross-checks with sysfs's NUMA nodes (topology.FromSys).
func MemTotal(procRoot string) (int64, error) {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return 0, fmt.Errorf("host memory: %w", err)
	}
	mi, err := fs.Meminfo()
	if err != nil {
		return 0, fmt.Errorf("host memory: %w", err)
	}
	if mi.MemTotalBytes == nil || *mi.MemTotalBytes > math.MaxInt64 {
		return 0, fmt.Errorf("host memory: %s/meminfo has no MemTotal", procRoot)
	}
	return int64(*mi.MemTotalBytes), nil
}
