package result

import (
	"math"
	"slices"
	"time"
)

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
	// Cgroups are the control groups rightsize and the database run in,
	// each once (absent where none was found or readable).
	Cgroups []Cgroup `json:"cgroups,omitempty"`
	// ServerCPU is the CPU of each database server's own processes when it
	// runs on this host (absent otherwise, or where its process could not
	// be found): what the database used, apart from the load generator and
	// every other process.
	ServerCPU []ServerCPU `json:"server_cpu,omitempty"`
	// Hypervisor is the VM's host's own view of the window, imported from
	// it (rightsize import esxtop) and aligned by time; absent otherwise.
	Hypervisor *Hypervisor `json:"hypervisor,omitempty"`
}

// Hypervisor is what the hypervisor saw of the VM over a window: the mean
// of its samples there. The VM's figures are per vCPU (esxtop sums a
// group's over its vCPUs: they are divided by VCPUs), in percent of the
// time; a figure the source did not have is absent.
type Hypervisor struct {
	Source  string `json:"source"`       // "esxtop" or "csv"
	VM      string `json:"vm,omitempty"` // the VM's name in the source
	VCPUs   int    `json:"vcpus,omitempty"`
	Samples int    `json:"samples"` // the source's samples within the window
	// HostCPUPct is the host's physical CPU utilisation (esxtop's Physical
	// Cpu(_Total) % Util Time: with hyper-threading, each thread counts).
	HostCPUPct *float64 `json:"host_cpu_pct,omitempty"`
	// UsedPct is the VM's CPU used (%USED), ReadyPct the time it was ready
	// to run and waited for a physical CPU (%RDY), CoStopPct the time a
	// vCPU was held so its siblings could catch up (%CSTP), MaxLimitedPct
	// the time a CPU limit held it (%MLMTD), WaitPct its waiting (%WAIT,
	// idle included).
	UsedPct       *float64 `json:"used_pct,omitempty"`
	ReadyPct      *float64 `json:"ready_pct,omitempty"`
	CoStopPct     *float64 `json:"costop_pct,omitempty"`
	MaxLimitedPct *float64 `json:"max_limited_pct,omitempty"`
	WaitPct       *float64 `json:"wait_pct,omitempty"`
}

// Cgroup is one control group's CPU over the interval. A cgroup with a CPU
// limit (a container's, a systemd service's CPUQuota) is given Limit CPUs
// of time per enforcement period; when its tasks have used that up they
// wait for the next period however idle the host's CPUs are: the guest's
// CPU figures then show headroom that the database cannot use.
type Cgroup struct {
	// Role is what runs in it: "database", "rightsize", or "rightsize and
	// database" (an embedded database, or both in one cgroup).
	Role string `json:"role"`
	// Path is the cgroup in its hierarchy ("/system.slice/mariadb.service";
	// "/" is the root, which has no limit).
	Path string `json:"path"`
	// Server names the database process the cgroup was found from ("mariadbd
	// (PID 3829)"); absent for rightsize's own and for --db-cgroup.
	Server string `json:"server,omitempty"`
	// LimitCPUs is the quota over the period in CPUs (absent: no limit).
	LimitCPUs float64 `json:"limit_cpus,omitempty"`
	// UsedCPUs is the CPU time its tasks used per second of wall time
	// (absent where unknown: cgroup v1 with cpuacct grouping the tasks
	// otherwise than cpu).
	UsedCPUs float64 `json:"used_cpus,omitempty"`
	// Periods are the enforcement periods in the interval in which its tasks
	// were runnable, ThrottledPeriods those in which they ran out of quota;
	// ThrottledPct is their share (the figure Kubernetes' CPUThrottlingHigh
	// alert watches, at 25 %).
	Periods          float64 `json:"periods"`
	ThrottledPeriods float64 `json:"throttled_periods"`
	ThrottledPct     float64 `json:"throttled_pct"`
	// ThrottledMsPerS is the time its tasks were held back, in ms per second
	// of wall time, summed over CPUs (so up to 1000 per CPU).
	ThrottledMsPerS float64 `json:"throttled_ms_per_s"`
}

// ServerCPU is one database server's own CPU over an interval, from
// /proc: the process listening at the target's address (PostgreSQL's
// postmaster, mariadbd, mysqld) and every process descended from it
// (PostgreSQL's backends, one per connection, and its background
// processes), summed each sample: each live process's user + system time
// and the time of the children it has reaped, so that a backend that
// exited between two samples still counts. Approximations: a process
// reaped by a parent outside the tree is lost, and a server restarted in
// the window (a new process under the address) gives no figure.
type ServerCPU struct {
	// Server names the process ("postgres (PID 2243)"), Address where it
	// listens ("tcp 127.0.0.1:5432").
	Server  string `json:"server"`
	Address string `json:"address,omitempty"`
	// UsedCPUs is the CPU time of the tree per second of wall time (user +
	// system, summed over its processes: up to the host's CPUs).
	UsedCPUs float64 `json:"used_cpus"`
	// Processes is how many processes the tree had at the interval's end
	// (in a mean, the mean over the intervals).
	Processes float64 `json:"processes"`
}

// ServerUsedCPUs is the CPU the database servers' own processes used per
// second (summed over ServerCPU), and whether any was measured.
func (h *Host) ServerUsedCPUs() (float64, bool) {
	if h == nil || len(h.ServerCPU) == 0 {
		return 0, false
	}
	var sum float64
	for _, s := range h.ServerCPU {
		sum += s.UsedCPUs
	}
	return sum, true
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
// that have it; cgroups by role and path over the intervals that have them
// (a throttled share is over all their periods). nil when there is none.
func MeanHost(hs []*Host) *Host {
	var n float64
	out := &Host{}
	var rq, blocked float64
	disks := map[string]*Disk{}
	var order []string
	var perCPU []CPUPct
	var pr Pressure
	var np float64
	var cgs groupMean[Cgroup]
	var srv groupMean[ServerCPU]
	for _, h := range hs {
		if h == nil {
			continue
		}
		n++
		cgs.add(h.Cgroups)
		srv.add(h.ServerCPU)
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
	out.Cgroups = cgs.mean()
	out.ServerCPU = srv.mean()
	for _, name := range order {
		d := disks[name]
		d.ReadIOPS, d.WriteIOPS, d.ReadMBps, d.WriteMBps, d.UtilPct = d.ReadIOPS/n, d.WriteIOPS/n, d.ReadMBps/n, d.WriteMBps/n, d.UtilPct/n
		out.Disks = append(out.Disks, *d)
	}
	return out
}

// grouped is a figure kept per group (a cgroup by role and path, a server
// by name and address) that groupMean averages.
type grouped[T any] interface {
	sameGroup(T) bool // of one group
	group() T         // its group's names, its figures zero
	plus(T) T         // the figures added
	over(n float64) T // the figures' mean over n intervals
}

// groupMean sums figures by group, in the order first seen, and counts the
// intervals that had each group.
type groupMean[T grouped[T]] struct {
	sums  []T
	count []float64
}

func (m *groupMean[T]) add(xs []T) {
	for _, x := range xs {
		i := slices.IndexFunc(m.sums, x.sameGroup)
		if i < 0 {
			m.sums = append(m.sums, x.group())
			m.count = append(m.count, 0)
			i = len(m.sums) - 1
		}
		m.count[i]++
		m.sums[i] = m.sums[i].plus(x)
	}
}

// mean is each group's mean over the intervals that had it (nil: none
// did).
func (m *groupMean[T]) mean() []T {
	if len(m.sums) == 0 {
		return nil
	}
	out := make([]T, len(m.sums))
	for i, s := range m.sums {
		out[i] = s.over(m.count[i])
	}
	return out
}

// A cgroup's group is its role and path.
func (c Cgroup) sameGroup(o Cgroup) bool { return c.Role == o.Role && c.Path == o.Path }
func (c Cgroup) group() Cgroup           { return Cgroup{Role: c.Role, Path: c.Path, Server: c.Server} }

func (c Cgroup) plus(o Cgroup) Cgroup {
	c.LimitCPUs += o.LimitCPUs
	c.UsedCPUs += o.UsedCPUs
	c.Periods += o.Periods
	c.ThrottledPeriods += o.ThrottledPeriods
	c.ThrottledMsPerS += o.ThrottledMsPerS
	return c
}

// over is the mean of the sums c: counts per interval, the throttled share
// of all the periods.
func (c Cgroup) over(n float64) Cgroup {
	if c.Periods > 0 {
		c.ThrottledPct = 100 * c.ThrottledPeriods / c.Periods
	}
	c.LimitCPUs, c.UsedCPUs, c.Periods, c.ThrottledPeriods, c.ThrottledMsPerS = c.LimitCPUs/n, c.UsedCPUs/n, c.Periods/n, c.ThrottledPeriods/n, c.ThrottledMsPerS/n
	return c
}

// A server's group is its name and address.
func (s ServerCPU) sameGroup(o ServerCPU) bool { return s.Server == o.Server && s.Address == o.Address }
func (s ServerCPU) group() ServerCPU           { return ServerCPU{Server: s.Server, Address: s.Address} }

func (s ServerCPU) plus(o ServerCPU) ServerCPU {
	s.UsedCPUs += o.UsedCPUs
	s.Processes += o.Processes
	return s
}

func (s ServerCPU) over(n float64) ServerCPU {
	s.UsedCPUs /= n
	s.Processes /= n
	return s
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

// Window is the run's measured window in wall-clock time: from the start
// of its first measured interval to the end of its last (its start and end
// when it has none).
func (r *Run) Window() (from, to time.Time) {
	from, to = r.Started, r.Ended
	first := true
	for _, iv := range r.Intervals {
		if iv.Phase != "measure" {
			continue
		}
		end := r.Started.Add(time.Duration(iv.EndS * float64(time.Second)))
		if first {
			from, first = end.Add(-time.Duration(iv.DurationS*float64(time.Second))), false
		}
		to = end
	}
	return from, to
}
