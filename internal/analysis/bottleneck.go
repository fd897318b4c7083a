package analysis

import (
	"github.com/rightsize/rightsize/internal/result"
)

// Thresholds of a step's bottleneck (BottleneckOf), in percent unless said.
const (
	CPUBoundPct    = 90 // host CPU busy (user + system) at or above: CPU-bound
	IowaitPct      = 20 // iowait at or above: waiting on storage
	DiskBusyPct    = 90 // a disk's utilisation at or above: that disk is saturated
	RunQueuePerCPU = 2  // run queue above this many per CPU: threads queue for CPU
	// StealWarnPct: steal at or above which the guest's CPU figures
	// understate the host's load.
	StealWarnPct = 10
)

// Thresholds of the causes the guest's CPU figures cannot show: VMware's
// usual ones for ready time and co-stop per vCPU (its performance guidance:
// %RDY above 10 %, %CSTP above 3 % is a problem), time held by a limit,
// and CPU pressure (share of wall time some task waited for a CPU). A
// cgroup's throttling counts from ThrottledPct.
const (
	ReadyWarnPct      = 10
	CoStopWarnPct     = 3
	MaxLimitedWarnPct = 1
	PressureWarnPct   = 20
)

// Limit is what held a step back, as its host figures say.
type Limit string

const (
	// HeldBack: a limit the guest's CPU figures do not show (the
	// database's cgroup throttled, the hypervisor's ready time, co-stop or
	// CPU limit).
	HeldBack Limit = "held_back"
	// CPUBound: the host's CPUs were busy (CPUBoundPct).
	CPUBound Limit = "cpu"
	// StorageBound: iowait (IowaitPct) or a saturated disk (DiskBusyPct).
	StorageBound Limit = "storage"
	// Elsewhere: neither CPU nor storage was saturated (locks, a single
	// writer, commit latency, the network).
	Elsewhere Limit = "elsewhere"
)

// HypervisorCause is a hypervisor figure at or past its threshold, which
// held the VM back.
type HypervisorCause struct {
	Name         string  `json:"name"` // "ready", "co-stop" or "max limited"
	PerVCPUPct   float64 `json:"per_vcpu_pct"`
	ThresholdPct float64 `json:"threshold_pct"`
}

// Bottleneck is what a step's host figures say held it back, with the
// figures that say so.
type Bottleneck struct {
	Limit Limit `json:"limit"`
	// HostIsServer: the database ran on this host (embedded, or on
	// loopback); otherwise the figures are the load generator's.
	HostIsServer bool `json:"host_is_server"`
	// The guest's CPU: busy is user + system.
	BusyPct   float64 `json:"busy_pct"`
	UserPct   float64 `json:"user_pct"`
	SystemPct float64 `json:"system_pct"`
	IowaitPct float64 `json:"iowait_pct"`
	StealPct  float64 `json:"steal_pct"`
	CPUs      int     `json:"cpus"`
	RunQueue  int64   `json:"run_queue"`
	// Queued: more than RunQueuePerCPU runnable threads per CPU.
	Queued bool `json:"queued,omitempty"`
	// Disk is the busiest disk (nil: none sampled).
	Disk *result.Disk `json:"disk,omitempty"`
	// Throttled is the database's most throttled cgroup, when throttled in
	// ThrottledPct of its periods or more; Hypervisor the hypervisor's
	// figures past their thresholds. Either makes the limit HeldBack.
	Throttled  *result.Cgroup    `json:"throttled,omitempty"`
	Hypervisor []HypervisorCause `json:"hypervisor,omitempty"`
	// HostCPUPct is the hypervisor's view of its host's CPU (nil: none).
	HostCPUPct *float64 `json:"host_cpu_pct,omitempty"`
	// Beside the limit: Stolen, steal at StealWarnPct or more; the load
	// generator's cgroups throttled in ThrottledPct of their periods or
	// more; the hypervisor's figures when it saw no sign it held the VM
	// back; CPU pressure at PressureWarnPct or more while the CPUs were
	// not busy and nothing else held them (nil otherwise).
	Stolen             bool               `json:"stolen,omitempty"`
	GeneratorThrottled []result.Cgroup    `json:"generator_throttled,omitempty"`
	HypervisorSaw      *result.Hypervisor `json:"hypervisor_saw,omitempty"`
	PressurePct        *float64           `json:"cpu_pressure_pct,omitempty"`
	// ServerCPUs is the CPU the database's own processes used (CPUs; nil:
	// not measured). OthersTook: CPU-bound, but the database used less than
	// OthersTookShare of the busy CPU: the load generator or other
	// processes took it, so the database's CPU was not the limit.
	ServerCPUs *float64 `json:"server_cpus,omitempty"`
	OthersTook bool     `json:"others_took_cpu,omitempty"`
	// AllotmentCPUs is the CPU limit of the database's cgroup (0: none):
	// its capacity, in place of the host's CPUs.
	AllotmentCPUs float64 `json:"allotment_cpus,omitempty"`
}

// CapacityCPUs is the CPUs the database could use: its cgroup's limit,
// else the host's CPUs.
func (b *Bottleneck) CapacityCPUs() float64 {
	if b.AllotmentCPUs > 0 {
		return b.AllotmentCPUs
	}
	return float64(b.CPUs)
}

// OthersTookShare is the share of the busy CPU below which the database's
// processes did not use the CPU a CPU-bound host was busy with.
const OthersTookShare = 0.5

// BottleneckOf says what a step's host figures point to: CPU, storage, a
// limit the guest's figures do not show, or none of them; nil without
// figures. hostIsServer tells whether the database ran on this host:
// otherwise the figures are the load generator's. h is not kept: the
// Bottleneck holds copies.
func BottleneckOf(h *result.Host, hostIsServer bool) *Bottleneck {
	if h == nil {
		return nil
	}
	b := &Bottleneck{HostIsServer: hostIsServer, BusyPct: h.CPU.User + h.CPU.System, UserPct: h.CPU.User, SystemPct: h.CPU.System,
		IowaitPct: h.CPU.Iowait, StealPct: h.CPU.Steal, CPUs: h.CPUs, RunQueue: h.RunQueue}
	b.Queued = h.CPUs > 0 && h.RunQueue > int64(RunQueuePerCPU*h.CPUs)
	for i := range h.Disks {
		if b.Disk == nil || h.Disks[i].UtilPct > b.Disk.UtilPct {
			d := h.Disks[i]
			b.Disk = &d
		}
	}
	b.Throttled = ThrottledDatabase(h)
	for _, g := range h.Cgroups {
		if g.Role != "rightsize" && g.LimitCPUs > 0 {
			b.AllotmentCPUs = g.LimitCPUs
		}
	}
	if v := h.Hypervisor; v != nil {
		b.Hypervisor = HypervisorHeld(v)
		if v.HostCPUPct != nil {
			x := *v.HostCPUPct
			b.HostCPUPct = &x
		}
	}
	held := b.Throttled != nil || len(b.Hypervisor) > 0
	switch {
	case held:
		b.Limit = HeldBack
	case b.BusyPct >= CPUBoundPct:
		b.Limit = CPUBound
	case b.IowaitPct >= IowaitPct || (b.Disk != nil && b.Disk.UtilPct >= DiskBusyPct):
		b.Limit = StorageBound
	default:
		b.Limit = Elsewhere
	}
	if used, ok := h.ServerUsedCPUs(); ok && hostIsServer {
		b.ServerCPUs = &used
		busy := b.BusyPct / 100 * float64(h.CPUs)
		b.OthersTook = b.Limit == CPUBound && h.CPUs > 0 && used < OthersTookShare*busy
	}
	b.Stolen = Stolen(h.CPU)
	for _, g := range h.Cgroups {
		if g.Role == "rightsize" && Throttled(g) {
			b.GeneratorThrottled = append(b.GeneratorThrottled, g)
		}
	}
	if v := h.Hypervisor; v != nil && !held {
		saw := *v
		b.HypervisorSaw = &saw
	}
	if p := h.Pressure; p != nil && !held && b.BusyPct < CPUBoundPct && p.CPUSomePct >= PressureWarnPct {
		x := p.CPUSomePct
		b.PressurePct = &x
	}
	return b
}

// hypervisorFigures are the hypervisor's figures that can hold a VM back,
// with their thresholds, in the order they are named.
var hypervisorFigures = []struct {
	name string
	get  func(*result.Hypervisor) *float64
	min  float64
}{
	{"ready", func(v *result.Hypervisor) *float64 { return v.ReadyPct }, ReadyWarnPct},
	{"co-stop", func(v *result.Hypervisor) *float64 { return v.CoStopPct }, CoStopWarnPct},
	{"max limited", func(v *result.Hypervisor) *float64 { return v.MaxLimitedPct }, MaxLimitedWarnPct},
}

// HypervisorHeld are the hypervisor's figures at or past their thresholds
// (ReadyWarnPct, CoStopWarnPct, MaxLimitedWarnPct); nil when none is.
func HypervisorHeld(v *result.Hypervisor) []HypervisorCause {
	var out []HypervisorCause
	for _, f := range hypervisorFigures {
		if x := f.get(v); x != nil && *x >= f.min {
			out = append(out, HypervisorCause{Name: f.name, PerVCPUPct: *x, ThresholdPct: f.min})
		}
	}
	return out
}

// ThrottledDatabase is (a copy of) the most throttled cgroup the database
// runs in, when throttled in ThrottledPct of its periods or more, or when
// it used its allotment (AtAllotment); nil otherwise. The load
// generator's own cgroup alone is a limit of the measurement
// (GeneratorLimit), not of the database.
func ThrottledDatabase(h *result.Host) *result.Cgroup {
	g := MostThrottled(h, func(g *result.Cgroup) bool { return g.Role != "rightsize" && (Throttled(*g) || AtAllotment(h, *g)) })
	if g == nil {
		return nil
	}
	cp := *g
	return &cp
}

// MostThrottled is the most throttled of the host's cgroups that keep
// accepts (nil when none).
func MostThrottled(h *result.Host, keep func(*result.Cgroup) bool) *result.Cgroup {
	var out *result.Cgroup
	for i := range h.Cgroups {
		g := &h.Cgroups[i]
		if keep(g) && (out == nil || g.ThrottledPct > out.ThrottledPct) {
			out = g
		}
	}
	return out
}

// AllotmentBusyShare is the share of its CPU limit a database's cgroup
// uses at which the limit is its capacity reached: it is then its
// allotment, not the host's CPUs, that bounds it, however few of its
// periods ran out of quota (a quota is used up in bursts; at 13 % of
// periods throttled a half-CPU allotment may be all used).
const AllotmentBusyShare = 0.8

// AtAllotment reports whether a database's cgroup g of host figures h
// with a CPU limit used AllotmentBusyShare of it and ran out of quota in
// some period: its tasks' CPU (the cgroup's usage, else the database
// server's own processes' on the host) over its limit.
func AtAllotment(h *result.Host, g result.Cgroup) bool {
	if !(g.LimitCPUs > 0) || g.ThrottledPeriods <= 0 {
		return false
	}
	used := g.UsedCPUs
	if used <= 0 {
		used, _ = h.ServerUsedCPUs()
	}
	return used >= AllotmentBusyShare*g.LimitCPUs
}

// Throttled reports whether a cgroup was throttled in ThrottledPct of its
// periods or more: its limit, not the host's CPUs, held its tasks back.
func Throttled(g result.Cgroup) bool { return g.ThrottledPct >= ThrottledPct }

// Stolen reports whether the hypervisor took StealWarnPct of the CPU time
// or more (steal): the guest's CPU figures understate the host's load.
func Stolen(c result.CPUPct) bool { return c.Steal >= StealWarnPct }
