package report

import (
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// unsaturated says that neither CPU nor storage was saturated on where.
func unsaturated(b *analysis.Bottleneck, where string) string {
	s := fmt.Sprintf("neither CPU (%.0f%% busy) nor storage (iowait %.0f%%", b.BusyPct, b.IowaitPct)
	if d := b.Disk; d != nil {
		s += fmt.Sprintf(", busiest disk %s %.0f%%", d.Name, d.UtilPct)
	}
	return s + ") was saturated on " + where
}

// Room says what a step's host figures show where no knee was reached:
// Bottleneck's words, but for a step that saturated nothing, room to go
// further rather than a limit elsewhere.
func Room(b *analysis.Bottleneck) string {
	if b == nil || b.Limit != analysis.Elsewhere {
		return Bottleneck(b)
	}
	where := "the host (database and load generator)"
	if !b.HostIsServer {
		where = "the load generator's host"
	}
	return unsaturated(b, where) + ": nothing this sweep saw was near its limit, so the rate can go higher"
}

// Bottleneck says, in one or two sentences, what a step's host figures
// point to (analysis.BottleneckOf): CPU, storage, a limit the guest's
// figures do not show, or none of them. Where the database ran elsewhere
// the figures are the load generator's, and a saturated generator means
// the step measured the client, not the database.
func Bottleneck(b *analysis.Bottleneck) string {
	if b == nil {
		return "no host figures were sampled"
	}
	where := "the host (database and load generator)"
	if !b.HostIsServer {
		where = "the load generator's host"
	}
	var out []string
	switch b.Limit {
	case analysis.HeldBack:
		out = append(out, heldBack(b)...)
	case analysis.CPUBound:
		s := fmt.Sprintf("CPU-bound: %s was %.0f%% busy (user %.0f%%, system %.0f%%)", where, b.BusyPct, b.UserPct, b.SystemPct)
		if b.Queued {
			s += fmt.Sprintf(", with %d runnable threads on %d CPUs queueing for them", b.RunQueue, b.CPUs)
		}
		if !b.HostIsServer {
			s += "; the client, not the database, limited this step: add load generators (shards) before reading the knee"
		}
		if b.OthersTook && b.ServerCPUs != nil {
			s += fmt.Sprintf("; but the database's own processes used %.2f of the %.2f busy CPUs: the load generator and other processes took the rest, so the database's CPU was not the limit", *b.ServerCPUs, b.BusyPct/100*float64(b.CPUs))
		}
		out = append(out, s)
	case analysis.StorageBound:
		s := fmt.Sprintf("storage-bound: iowait %.0f%% with the CPUs %.0f%% busy", b.IowaitPct, b.BusyPct)
		if d := b.Disk; d != nil {
			s += fmt.Sprintf("; disk %s %.0f%% utilised (%.0f reads/s, %.0f writes/s)", d.Name, d.UtilPct, d.ReadIOPS, d.WriteIOPS)
		}
		out = append(out, s)
	default:
		s := unsaturated(b, where) + ": the limit is elsewhere, such as row or table locks, a single writer, commit latency"
		if !b.HostIsServer {
			s += ", the network or the database server's own host"
		}
		out = append(out, s)
	}
	if b.Stolen {
		out = append(out, fmt.Sprintf("the hypervisor took %.0f%% of the CPU time (steal): the guest's CPU figures understate the load, and the VM's host may be the limit", b.StealPct))
	}
	for _, g := range b.GeneratorThrottled {
		out = append(out, cgroupFigures(g)+": "+throttledMeans(g))
	}
	if v := b.HypervisorSaw; v != nil {
		out = append(out, hypervisorAgrees(v))
	}
	if p := b.PressurePct; p != nil {
		out = append(out, fmt.Sprintf("yet tasks waited for a CPU %.0f%% of the time (CPU pressure) with the CPUs only %.0f%% busy: a limit the guest's CPU figures do not show (a cgroup's quota, the hypervisor) held them", *p, b.BusyPct))
	}
	return strings.Join(out, "; ")
}

// heldBack names what held the step back that the guest's CPU figures do
// not show: the database's cgroup throttled, the hypervisor's ready time,
// co-stop or limit past their thresholds.
func heldBack(b *analysis.Bottleneck) []string {
	var out []string
	if g := b.Throttled; g != nil {
		out = append(out, fmt.Sprintf("CPU-limited by a cgroup: %s, while the host's CPUs were %.0f%% busy: %s", cgroupFigures(*g), b.BusyPct, throttledMeans(*g)))
	}
	if len(b.Hypervisor) == 0 {
		return out
	}
	guest := fmt.Sprintf("the guest saw its CPUs %.0f%% busy", b.BusyPct)
	if !b.HostIsServer {
		guest = fmt.Sprintf("the load generator's host (not the VM's guest) was %.0f%% busy", b.BusyPct)
	}
	if b.HostCPUPct != nil {
		guest += fmt.Sprintf(" and the host's %.0f%%", *b.HostCPUPct)
	}
	return append(out, "held back by the hypervisor: "+strings.Join(hypervisorCauses(b.Hypervisor, true), "; ")+"; "+guest+": the time a vCPU waited is not in the guest's CPU figure")
}

// hypervisorCauses names the hypervisor's figures past their thresholds
// ("ready 25.0% per vCPU"), with how each held the VM back when long.
func hypervisorCauses(cs []analysis.HypervisorCause, long bool) []string {
	var out []string
	for _, c := range cs {
		s := fmt.Sprintf("%s %.1f%% per vCPU", c.Name, c.PerVCPUPct)
		if long {
			s += hypervisorWhy(c)
		}
		out = append(out, s)
	}
	return out
}

// hypervisorWhy says how a hypervisor figure held the VM back, after the
// figure.
func hypervisorWhy(c analysis.HypervisorCause) string {
	switch c.Name {
	case "ready":
		return fmt.Sprintf(" (VMware's usual threshold %g%%): its vCPUs waited that long for a physical CPU", c.ThresholdPct)
	case "co-stop":
		return fmt.Sprintf(" (threshold %g%%): vCPUs were held so their siblings could catch up, a sign of more vCPUs than the host can schedule together", c.ThresholdPct)
	case "max limited":
		return ": a CPU limit on the VM or its resource pool held it"
	}
	return ""
}

// heldBrief names, in short phrases, what held a step back that the
// guest's CPU figures do not show.
func heldBrief(h analysis.Held) []string {
	var out []string
	if g := h.Throttled; g != nil {
		used := ""
		if g.Role == "database" && g.LimitCPUs > 0 && g.UsedCPUs > 0 { // its allotment, as the verdict calls it
			used = fmt.Sprintf(" used %.2f of its %.3g CPUs and", g.UsedCPUs, g.LimitCPUs)
		}
		out = append(out, fmt.Sprintf("the %s cgroup %s%s throttled in %.0f%% of its periods", cgroupWhose(g.Role), g.Path, used, g.ThrottledPct))
	}
	return append(out, hypervisorCauses(h.Hypervisor, false)...)
}

// hypervisorAgrees says what the hypervisor saw when it did not hold the
// VM back.
func hypervisorAgrees(v *result.Hypervisor) string {
	s := "the hypervisor saw"
	if v.HostCPUPct != nil {
		s += fmt.Sprintf(" the host %.0f%% busy and", *v.HostCPUPct)
	}
	s += " the VM"
	if v.ReadyPct != nil {
		s += fmt.Sprintf(" ready %.1f%%", *v.ReadyPct)
	}
	if v.CoStopPct != nil {
		s += fmt.Sprintf(", co-stop %.1f%%", *v.CoStopPct)
	}
	return s + " per vCPU: no sign it held the VM back"
}

// guestOnly is the sweep verdict's one sentence on where its CPU figures
// come from when no step has the hypervisor's: the guest's own, and which
// of the other views were sampled.
func guestOnly(g analysis.GuestView) string {
	s := "The CPU figures are the guest's own: no hypervisor view was imported (rightsize import esxtop --into this sweep), so if this host is a VM, time it waited for physical CPUs shows only as steal, which VMware does not report to its guests"
	switch {
	case g.Pressure && g.Cgroups:
		s += "; CPU pressure and cgroup throttling were sampled"
	case g.Pressure:
		s += "; CPU pressure was sampled, cgroup throttling was not"
	case g.Cgroups:
		s += "; cgroup throttling was sampled, CPU pressure was not (the kernel has no PSI)"
	default:
		s += "; neither CPU pressure nor cgroup throttling was sampled"
	}
	return s + "."
}

// cgroupFigures describes a cgroup's CPU: "the database's cgroup
// /system.slice/x (mariadbd (PID 9)): limit 0.50 CPUs, used 0.49, throttled
// in 87% of its periods (412 ms/s held back)".
func cgroupFigures(g result.Cgroup) string {
	s := "the " + cgroupWhose(g.Role) + " cgroup " + g.Path
	if g.Server != "" {
		s += " (" + g.Server + ")"
	}
	if g.LimitCPUs > 0 {
		s += fmt.Sprintf(": limit %.2f CPUs", g.LimitCPUs)
	} else {
		s += ": no limit"
	}
	if g.UsedCPUs > 0 {
		s += fmt.Sprintf(", used %.2f", g.UsedCPUs)
	}
	return s + fmt.Sprintf(", throttled in %.0f%% of its periods (%.0f ms/s held back)", g.ThrottledPct, g.ThrottledMsPerS)
}

// cgroupWhose is a cgroup's role as a possessive: "database's",
// "load generator's", "load generator's and database's".
func cgroupWhose(role string) string {
	switch role {
	case "database":
		return "database's"
	case "rightsize":
		return "load generator's"
	}
	return "load generator's and database's"
}

// throttledMeans says what a throttled cgroup means for the figures.
func throttledMeans(g result.Cgroup) string {
	s := "its CPU limit, not the host's CPUs, held it back: the host's CPU figures show headroom its tasks could not use"
	if g.Role == "rightsize" {
		s += "; the load generator was limited, so the figures measure the client"
	}
	return s
}

// HypervisorFigures describes what the hypervisor saw of the VM: "host CPU
// 97% busy; VM DB01 (4 vCPUs) per vCPU: used 62.0%, ready 25.0%, co-stop
// 4.0%, max limited 0.0% (esxtop, 6 samples)".
func HypervisorFigures(h *result.Hypervisor) string {
	if h == nil {
		return "no samples"
	}
	var parts []string
	if h.HostCPUPct != nil {
		parts = append(parts, fmt.Sprintf("host CPU %.0f%% busy", *h.HostCPUPct))
	}
	vm := "VM"
	if h.VM != "" {
		vm += " " + h.VM
	}
	if h.VCPUs > 0 {
		vm += fmt.Sprintf(" (%d vCPUs)", h.VCPUs)
	}
	var per []string
	for _, f := range []struct {
		name string
		v    *float64
	}{{"used", h.UsedPct}, {"ready", h.ReadyPct}, {"co-stop", h.CoStopPct}, {"max limited", h.MaxLimitedPct}} {
		if f.v != nil {
			per = append(per, fmt.Sprintf("%s %.1f%%", f.name, *f.v))
		}
	}
	if len(per) > 0 {
		parts = append(parts, vm+" per vCPU: "+strings.Join(per, ", "))
	}
	return strings.Join(parts, "; ") + fmt.Sprintf(" (%s, %d samples)", h.Source, h.Samples)
}
