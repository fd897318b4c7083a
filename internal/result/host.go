package result

import "math"

// Host is what the load generator's host did during one interval (or, in
// Run.Host, on average over the measured window), from /proc.
type Host struct {
	// CPU is the whole host in percent of all its CPUs; PerCPU each CPU.
	CPU    CPUPct   `json:"cpu"`
	PerCPU []CPUPct `json:"per_cpu,omitempty"`
	CPUs   int      `json:"cpus"`
	// RunQueue is procs_running at the end of the interval (the seed's run
	// queue), Blocked procs_blocked (waiting for I/O).
	RunQueue int64 `json:"run_queue"`
	Blocked  int64 `json:"blocked"`
	// ContextSwitchesPerS is the host's context switches per second.
	ContextSwitchesPerS float64 `json:"context_switches_per_s"`
	Disks               []Disk  `json:"disks,omitempty"`
	MemUsedPct          float64 `json:"mem_used_pct"` // (MemTotal - MemAvailable) / MemTotal
	MemAvailableMiB     float64 `json:"mem_available_mib"`
	// Pressure is the kernel's pressure stall information over the interval
	// (nil where the kernel has none: before 4.20, or psi=0).
	Pressure *Pressure `json:"pressure,omitempty"`
}

// Pressure is the share of wall time in the interval, in percent, in which
// some task (Some), or every non-idle task at once (Full), was stalled
// waiting for a CPU or for I/O (/proc/pressure/cpu and io). CPU pressure
// while the CPUs look idle is a host's or a container's limit showing
// through: time the guest asked for and did not get. The host-wide CPU
// "full" line is always zero (the kernel reports it for cgroups only).
type Pressure struct {
	CPUSomePct float64 `json:"cpu_some_pct"`
	CPUFullPct float64 `json:"cpu_full_pct"`
	IOSomePct  float64 `json:"io_some_pct"`
	IOFullPct  float64 `json:"io_full_pct"`
}

// CPUPct is CPU time in percent of the interval: user (with nice), system
// (with irq and softirq), iowait, steal (taken by the hypervisor for other
// guests), idle.
type CPUPct struct {
	User   float64 `json:"user"`
	System float64 `json:"system"`
	Iowait float64 `json:"iowait"`
	Steal  float64 `json:"steal"`
	Idle   float64 `json:"idle"`
}

// Busy is user + system (what the guest itself used).
func (c CPUPct) Busy() float64 { return c.User + c.System }

// Disk is one block device's activity in the interval.
type Disk struct {
	Name      string  `json:"name"`
	ReadIOPS  float64 `json:"read_iops"`
	WriteIOPS float64 `json:"write_iops"`
	ReadMBps  float64 `json:"read_mb_s"`
	WriteMBps float64 `json:"write_mb_s"`
	// UtilPct is the share of the interval the device had I/O in flight
	// (iostat's %util).
	UtilPct float64 `json:"util_pct"`
}

// MeanHost averages host figures (one per interval): CPU shares, run queue,
// context switches and memory; disks by name; pressure over the intervals
// that have it. nil when there is none.
func MeanHost(hs []*Host) *Host {
	var n float64
	out := &Host{}
	var rq, blocked float64
	disks := map[string]*Disk{}
	var order []string
	var perCPU []CPUPct
	var pr Pressure
	var np float64
	for _, h := range hs {
		if h == nil {
			continue
		}
		n++
		if p := h.Pressure; p != nil {
			np++
			pr.CPUSomePct += p.CPUSomePct
			pr.CPUFullPct += p.CPUFullPct
			pr.IOSomePct += p.IOSomePct
			pr.IOFullPct += p.IOFullPct
		}
		out.CPU = addCPU(out.CPU, h.CPU)
		if len(perCPU) == 0 && len(h.PerCPU) > 0 {
			perCPU = make([]CPUPct, len(h.PerCPU))
		}
		if len(h.PerCPU) == len(perCPU) {
			for i, c := range h.PerCPU {
				perCPU[i] = addCPU(perCPU[i], c)
			}
		}
		out.CPUs = h.CPUs
		rq += float64(h.RunQueue)
		blocked += float64(h.Blocked)
		out.ContextSwitchesPerS += h.ContextSwitchesPerS
		out.MemUsedPct += h.MemUsedPct
		out.MemAvailableMiB += h.MemAvailableMiB
		for _, d := range h.Disks {
			a, ok := disks[d.Name]
			if !ok {
				a = &Disk{Name: d.Name}
				disks[d.Name] = a
				order = append(order, d.Name)
			}
			a.ReadIOPS += d.ReadIOPS
			a.WriteIOPS += d.WriteIOPS
			a.ReadMBps += d.ReadMBps
			a.WriteMBps += d.WriteMBps
			a.UtilPct += d.UtilPct
		}
	}
	if n == 0 {
		return nil
	}
	out.CPU = scaleCPU(out.CPU, 1/n)
	for i := range perCPU {
		perCPU[i] = scaleCPU(perCPU[i], 1/n)
	}
	out.PerCPU = perCPU
	out.RunQueue = int64(rq/n + 0.5)
	out.Blocked = int64(blocked/n + 0.5)
	out.ContextSwitchesPerS /= n
	out.MemUsedPct /= n
	out.MemAvailableMiB /= n
	if np > 0 {
		out.Pressure = &Pressure{CPUSomePct: pr.CPUSomePct / np, CPUFullPct: pr.CPUFullPct / np, IOSomePct: pr.IOSomePct / np, IOFullPct: pr.IOFullPct / np}
	}
	for _, name := range order {
		d := disks[name]
		d.ReadIOPS, d.WriteIOPS, d.ReadMBps, d.WriteMBps, d.UtilPct = d.ReadIOPS/n, d.WriteIOPS/n, d.ReadMBps/n, d.WriteMBps/n, d.UtilPct/n
		out.Disks = append(out.Disks, *d)
	}
	return out
}

func addCPU(a, b CPUPct) CPUPct {
	return CPUPct{User: a.User + b.User, System: a.System + b.System, Iowait: a.Iowait + b.Iowait, Steal: a.Steal + b.Steal, Idle: a.Idle + b.Idle}
}

func scaleCPU(a CPUPct, f float64) CPUPct {
	return CPUPct{User: a.User * f, System: a.System * f, Iowait: a.Iowait * f, Steal: a.Steal * f, Idle: a.Idle * f}
}

// Fairness is how evenly several instances were served: the lowest and
// highest throughput of an instance and their coefficient of variation
// (standard deviation / mean, in percent).
type Fairness struct {
	Min    float64 `json:"min_throughput"`
	Max    float64 `json:"max_throughput"`
	CoVPct float64 `json:"cov_pct"`
}

// FairnessOf returns the fairness of the instances' throughputs; nil for
// fewer than two.
func FairnessOf(throughputs []float64) *Fairness {
	if len(throughputs) < 2 {
		return nil
	}
	f := &Fairness{Min: math.Inf(1), Max: math.Inf(-1)}
	var sum float64
	for _, x := range throughputs {
		f.Min, f.Max = math.Min(f.Min, x), math.Max(f.Max, x)
		sum += x
	}
	mean := sum / float64(len(throughputs))
	var ss float64
	for _, x := range throughputs {
		ss += (x - mean) * (x - mean)
	}
	if mean > 0 {
		f.CoVPct = 100 * math.Sqrt(ss/float64(len(throughputs))) / mean
	}
	return f
}
