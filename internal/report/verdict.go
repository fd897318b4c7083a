package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// Thresholds of Bottleneck, in percent (steal: StealWarnPct).
const (
	CPUBoundPct    = 90 // host CPU busy (user + system) at or above: CPU-bound
	IowaitPct      = 20 // iowait at or above: waiting on storage
	DiskBusyPct    = 90 // a disk's utilisation at or above: that disk is saturated
	RunQueuePerCPU = 2  // run queue above this many per CPU: threads queue for CPU
)

// SweepSentences is the verdict of an analysed sweep in sentences: where
// the knee is and why (Verdict) among the steps before the first one the
// load generator limited, which steps it limited and why, and the steps
// whose figures need a caution: an open loop that fell behind its
// schedule, a load generator that fell behind its ticks. A sweep of the
// workload's own steps has none.
func SweepSentences(r *analysis.Result) []string {
	if r.OwnSteps {
		return generatorSentences(r)
	}
	n := r.Usable()
	var out []string
	switch {
	case r.PastLimit != "":
		out = append(out, pastLimitSentences(r)...)
	case n > 0:
		out = Verdict(sentenceAxis(r), r.Points()[:n], r.Hosts()[:n], r.Knees, r.HostIsServer)
	}
	out = append(out, generatorSentences(r)...)
	var lagged, over []string
	for _, st := range r.Steps {
		if l := st.TickerLag; l != nil {
			lagged = append(lagged, fmt.Sprintf("%s (worst %.1f s)", st.Label, l.MaxS))
		}
		if st.Dropped > 0 {
			over = append(over, fmt.Sprintf("%s (%d starts dropped)", st.Label, st.Dropped))
		}
	}
	if c := contention(r.Steps); c != "" {
		out = append(out, c)
	}
	if len(over) > 0 {
		out = append(out, "Overloaded: the open loop fell behind its schedule at "+strings.Join(over, ", ")+
			": starts due in the window never ran; the system could not take that rate. The throughput there is what it completed, and the response time (from the intended starts) shows the queue that built up.")
	}
	if len(lagged) > 0 {
		out = append(out, "Caution: the load generator fell behind its report ticks at "+strings.Join(lagged, ", ")+
			": it was starved of CPU there, so those steps' host figures are smeared and their throughput may understate the database's.")
	}
	var held []string
	for _, st := range r.Steps {
		if st.Host == nil {
			continue
		}
		if b := heldBrief(st.Host); len(b) > 0 {
			held = append(held, fmt.Sprintf("%s (%s)", st.Label, strings.Join(b, ", ")))
		}
	}
	if len(held) > 0 {
		out = append(out, "Held back where the guest's CPU figures do not show it: "+strings.Join(held, "; ")+
			". There the limit was not the guest's CPUs, and adding vCPUs inside the guest will not help.")
	}
	if g := guestOnly(r.Steps); g != "" && r.HostIsServer {
		out = append(out, g)
	}
	return out
}

// ConflictPct is the share of a step's events re-run or deadlocked from
// which the verdict names the step's conflicts.
const ConflictPct = 1

// contention is the verdict's sentence on the steps whose retries or
// deadlocks came to ConflictPct of their events or more (any, where the
// step's window is unknown); "" when none did: their throughput is the
// work that got through the conflicts.
func contention(steps []result.SweepStep) string {
	var at []string
	for _, st := range steps {
		n := float64(max(st.Retries, st.Deadlocks))
		events := st.Throughput * st.To.Sub(st.From).Seconds()
		if n > 0 && (events <= 0 || 100*n >= ConflictPct*events) {
			at = append(at, fmt.Sprintf("%s (%d deadlocks, %d retries, %d errors)", st.Label, st.Deadlocks, st.Retries, st.Errors))
		}
	}
	if len(at) == 0 {
		return ""
	}
	return "Conflicts: transactions deadlocked or were re-run at " + strings.Join(at, ", ") +
		": there throughput is what got through the conflicts (row locks, hot rows), not what the host could do."
}

// sentenceAxis is the axis as a verdict names its steps: "multiple" for
// multiples of a baseline rate ("2x").
func sentenceAxis(r *analysis.Result) string {
	if r.Axis == "rate" && r.BaselineRate > 0 {
		return "multiple"
	}
	return r.Axis
}

// pastLimitSentences say that a sweep has no knee because every step was
// already past the system's limit (Result.PastLimit), with the bottleneck
// at its first step.
func pastLimitSentences(r *analysis.Result) []string {
	out := []string{"No knee: " + r.PastLimit + "; the knee is below the range, so no VM is planned from this sweep. Sweep from a lower load to find it."}
	if h := hostAt(r.Hosts(), 0); h != nil {
		out = append(out, "At the first step: "+Bottleneck(h, r.HostIsServer)+".")
	}
	return out
}

// generatorSentences say which steps the load generator limited (the
// knee is sought before the first of them) and in which it stalled (each
// left out of the knee).
func generatorSentences(r *analysis.Result) []string {
	var out []string
	n := r.Usable()
	if len(r.Limited) > 0 {
		s := "The load generator, not the system under test, limited " + limitedList(r.Limited) + ": there the figures measure the client"
		switch {
		case r.OwnSteps:
		case n == 0:
			s += ", so no knee can be claimed"
		default:
			s += fmt.Sprintf(", so the knee is sought among the steps before %s only", r.Steps[n].Label)
		}
		out = append(out, s+". Give the generator its own cores, or split the load over generators (run --shard).")
	}
	if len(r.Stalled) > 0 {
		s := "The load generator stalled at " + limitedList(r.Stalled) + ": those steps' figures are the generator's, not the system's"
		if !r.OwnSteps {
			s += ", so the knee is sought without them"
		}
		out = append(out, s+". Run them again.")
	}
	return out
}

func limitedList(ls []analysis.Limited) string {
	var at []string
	for _, l := range ls {
		at = append(at, fmt.Sprintf("%s (%s)", l.Label, l.Reason))
	}
	return strings.Join(at, ", ")
}

// Bottleneck says, in one or two sentences, what a step's host figures point
// to: CPU, storage, the hypervisor (steal), or none of them. hostIsServer
// tells whether the database ran on this host (embedded, or on loopback):
// otherwise the figures are the load generator's, and a saturated generator
// means the step measured the client, not the database.
func Bottleneck(h *result.Host, hostIsServer bool) string {
	if h == nil {
		return "no host figures were sampled"
	}
	busy := h.CPU.User + h.CPU.System
	var out []string
	where := "the host (database and load generator)"
	if !hostIsServer {
		where = "the load generator's host"
	}
	var disk *result.Disk
	for i := range h.Disks {
		if disk == nil || h.Disks[i].UtilPct > disk.UtilPct {
			disk = &h.Disks[i]
		}
	}
	held := heldBack(h, busy, hostIsServer)
	switch {
	case len(held) > 0:
		out = append(out, held...)
	case busy >= CPUBoundPct:
		s := fmt.Sprintf("CPU-bound: %s was %.0f%% busy (user %.0f%%, system %.0f%%)", where, busy, h.CPU.User, h.CPU.System)
		if h.CPUs > 0 && h.RunQueue > int64(RunQueuePerCPU*h.CPUs) {
			s += fmt.Sprintf(", with %d runnable threads on %d CPUs queueing for them", h.RunQueue, h.CPUs)
		}
		if !hostIsServer {
			s += "; the client, not the database, limited this step: add load generators (shards) before reading the knee"
		}
		out = append(out, s)
	case h.CPU.Iowait >= IowaitPct || (disk != nil && disk.UtilPct >= DiskBusyPct):
		s := fmt.Sprintf("storage-bound: iowait %.0f%% with the CPUs %.0f%% busy", h.CPU.Iowait, busy)
		if disk != nil {
			s += fmt.Sprintf("; disk %s %.0f%% utilised (%.0f reads/s, %.0f writes/s)", disk.Name, disk.UtilPct, disk.ReadIOPS, disk.WriteIOPS)
		}
		out = append(out, s)
	default:
		s := fmt.Sprintf("neither CPU (%.0f%% busy) nor storage (iowait %.0f%%", busy, h.CPU.Iowait)
		if disk != nil {
			s += fmt.Sprintf(", busiest disk %s %.0f%%", disk.Name, disk.UtilPct)
		}
		s += ") was saturated on " + where + ": the limit is elsewhere, such as row or table locks, a single writer, commit latency"
		if !hostIsServer {
			s += ", the network or the database server's own host"
		}
		out = append(out, s)
	}
	if h.CPU.Steal >= StealWarnPct {
		out = append(out, fmt.Sprintf("the hypervisor took %.0f%% of the CPU time (steal): the guest's CPU figures understate the load, and the VM's host may be the limit", h.CPU.Steal))
	}
	for _, g := range h.Cgroups {
		if g.Role == "rightsize" && g.ThrottledPct >= ThrottledWarnPct {
			out = append(out, cgroupFigures(g)+": "+throttledMeans(g))
		}
	}
	if a := hypervisorAgrees(h.Hypervisor); a != "" && len(held) == 0 {
		out = append(out, a)
	}
	if p := h.Pressure; p != nil && len(held) == 0 && busy < CPUBoundPct && p.CPUSomePct >= PressureWarnPct {
		out = append(out, fmt.Sprintf("yet tasks waited for a CPU %.0f%% of the time (CPU pressure) with the CPUs only %.0f%% busy: a limit the guest's CPU figures do not show (a cgroup's quota, the hypervisor) held them", p.CPUSomePct, busy))
	}
	return strings.Join(out, "; ")
}

// Thresholds of the causes the guest's CPU figures cannot show: VMware's
// usual ones for ready time and co-stop per vCPU (its performance guidance:
// %RDY above 10 %, %CSTP above 3 % is a problem), time held by a limit,
// and CPU pressure (share of wall time some task waited for a CPU).
const (
	ReadyWarnPct      = 10
	CoStopWarnPct     = 3
	MaxLimitedWarnPct = 1
	PressureWarnPct   = 20
)

// heldBack names what held the step back that the guest's CPU figures do
// not show: the database's cgroup throttled (ThrottledWarnPct; the load
// generator's alone is a limit of the measurement, which the sweep's
// generator check names), the hypervisor's ready time, co-stop or limit
// above VMware's usual thresholds; nil when none. hostIsServer tells
// whose CPU busy is: the database's host's, or the load generator's.
func heldBack(h *result.Host, busy float64, hostIsServer bool) []string {
	var out []string
	if g := throttledDatabase(h); g != nil {
		s := fmt.Sprintf("CPU-limited by a cgroup: %s, while the host's CPUs were %.0f%% busy: %s", cgroupFigures(*g), busy, throttledMeans(*g))
		out = append(out, s)
	}
	v := h.Hypervisor
	if v == nil {
		return out
	}
	guest := fmt.Sprintf("the guest saw its CPUs %.0f%% busy", busy)
	if !hostIsServer {
		guest = fmt.Sprintf("the load generator's host (not the VM's guest) was %.0f%% busy", busy)
	}
	if v.HostCPUPct != nil {
		guest += fmt.Sprintf(" and the host's %.0f%%", *v.HostCPUPct)
	}
	if causes := hypervisorHeld(v, true); len(causes) > 0 {
		out = append(out, "held back by the hypervisor: "+strings.Join(causes, "; ")+"; "+guest+": the time a vCPU waited is not in the guest's CPU figure")
	}
	return out
}

// hvCause is a hypervisor figure that, at Min or more per vCPU, held the
// VM back; Why says how, after the figure.
type hvCause struct {
	name string
	get  func(*result.Hypervisor) *float64
	min  float64
	why  string
}

var hvCauses = []hvCause{
	{"ready", hvReady, ReadyWarnPct, fmt.Sprintf(" (VMware's usual threshold %d%%): its vCPUs waited that long for a physical CPU", ReadyWarnPct)},
	{"co-stop", hvCoStop, CoStopWarnPct, fmt.Sprintf(" (threshold %d%%): vCPUs were held so their siblings could catch up, a sign of more vCPUs than the host can schedule together", CoStopWarnPct)},
	{"max limited", hvMaxLimited, MaxLimitedWarnPct, ": a CPU limit on the VM or its resource pool held it"},
}

// hypervisorHeld names the hypervisor's figures past their thresholds
// ("ready 25.0% per vCPU"), with how each held the VM back when long.
func hypervisorHeld(v *result.Hypervisor, long bool) []string {
	var out []string
	for _, c := range hvCauses {
		if x := c.get(v); x != nil && *x >= c.min {
			s := fmt.Sprintf("%s %.1f%% per vCPU", c.name, *x)
			if long {
				s += c.why
			}
			out = append(out, s)
		}
	}
	return out
}

// throttledDatabase is the most throttled cgroup the database runs in, when
// throttled in ThrottledWarnPct of its periods or more; nil otherwise.
func throttledDatabase(h *result.Host) *result.Cgroup {
	return mostThrottledOf(h, func(g *result.Cgroup) bool { return g.Role != "rightsize" && g.ThrottledPct >= ThrottledWarnPct })
}

// heldBrief names, in short phrases, what held a step back that the
// guest's CPU figures do not show (heldBack's causes).
func heldBrief(h *result.Host) []string {
	var out []string
	if g := throttledDatabase(h); g != nil {
		out = append(out, fmt.Sprintf("the %s cgroup %s throttled in %.0f%% of its periods", cgroupWhose(g.Role), g.Path, g.ThrottledPct))
	}
	if v := h.Hypervisor; v != nil {
		out = append(out, hypervisorHeld(v, false)...)
	}
	return out
}

// hypervisorAgrees says what the hypervisor saw when it did not hold the
// VM back ("" without its figures).
func hypervisorAgrees(v *result.Hypervisor) string {
	if v == nil {
		return ""
	}
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
// come from when no step has the hypervisor's ("" otherwise): the guest's
// own, and which of the other views were sampled.
func guestOnly(steps []result.SweepStep) string {
	var pressure, cgroups bool
	for _, st := range steps {
		if st.Host == nil {
			continue
		}
		if st.Host.Hypervisor != nil {
			return ""
		}
		pressure = pressure || st.Host.Pressure != nil
		cgroups = cgroups || len(st.Host.Cgroups) > 0
	}
	s := "The CPU figures are the guest's own: no hypervisor view was imported (rightsize import esxtop --into this sweep), so if this host is a VM, time it waited for physical CPUs shows only as steal, which VMware does not report to its guests"
	switch {
	case pressure && cgroups:
		s += "; CPU pressure and cgroup throttling were sampled"
	case pressure:
		s += "; CPU pressure was sampled, cgroup throttling was not"
	case cgroups:
		s += "; cgroup throttling was sampled, CPU pressure was not (the kernel has no PSI)"
	default:
		s += "; neither CPU pressure nor cgroup throttling was sampled"
	}
	return s + "."
}

// Verdict answers "where is the knee, and why" for a sweep in plain
// sentences: the knee the methods point to (the SLO knee when an objective
// was given and met, else the marginal-gain knee, else Kneedle), whether
// the other methods agree, and what the host figures at that step say.
// axis names the swept quantity ("threads", "instances", "rate"); hosts
// holds each step's host figures (nil where none).
func Verdict(axis string, ps []analysis.Point, hosts []*result.Host, knees []analysis.Knee, hostIsServer bool) []string {
	if len(ps) == 0 {
		return []string{"no steps"}
	}
	main, found := analysis.FirstKnee(knees, len(ps)) // as the Result's Knee
	// A step is named by its label, as the steps table and the knees'
	// reasons name it ("rate 2x"); a point without one by its axis value.
	step := func(i int) string {
		if ps[i].Label != "" {
			return ps[i].Label
		}
		return stepAt(axis, ps[i].X)
	}
	best, at := analysis.MaxThroughput(ps)
	var out []string
	if !found {
		last := len(ps) - 1
		if at >= 0 && at < last {
			// Too few steps for the methods, or no clear bend, yet
			// throughput did not grow past at: it did not scale there.
			out = append(out, fmt.Sprintf("No knee method found one, but throughput peaked at %s (%s/s, p99 %s) and did not grow after it (%s/s at %s): the knee is at or before %s; sweep below it, or in finer steps, to place it.",
				step(at), Num(best), Ms(ps[at].P99Ms), Num(ps[last].Throughput), step(last), step(at)))
		} else {
			out = append(out, fmt.Sprintf("No knee in the range: throughput still scales at %s (%s/s, p99 %s); sweep further to find it.",
				step(last), Num(ps[last].Throughput), Ms(ps[last].P99Ms)))
		}
		if h := hostAt(hosts, last); h != nil {
			out = append(out, "At the last step: "+Bottleneck(h, hostIsServer)+".")
		}
		return out
	}
	s := fmt.Sprintf("The knee is at %s (%s method): %s/s, p99 %s", step(main.Index), main.Method, Num(ps[main.Index].Throughput), Ms(ps[main.Index].P99Ms))
	switch {
	case at > main.Index:
		s += fmt.Sprintf("; the most throughput, %s/s at %s, is %+.0f%% more for %+.0f%% more load", Num(best), step(at),
			100*(best/ps[main.Index].Throughput-1), 100*(ps[at].X/main.X-1))
	case at >= 0 && at < main.Index:
		s += fmt.Sprintf("; the most throughput, %s/s, came at a lighter load (%s)", Num(best), step(at))
	}
	out = append(out, s+".")
	out = append(out, otherMethods(knees, main, step)...)
	out = append(out, "Why: "+main.Reason+".")
	at, past := bottleneckStep(main, len(ps))
	if h := hostAt(hosts, at); h != nil && past {
		out = append(out, fmt.Sprintf("At %s, where it fell behind, %s.", step(at), Bottleneck(h, hostIsServer)))
	} else if h != nil {
		out = append(out, "At the knee, "+Bottleneck(h, hostIsServer)+".")
	}
	return out
}

// otherMethods are the verdict's sentences on the methods other than main's:
// which agree, where the others put the knee (step names the step of an
// index), and which found none, with why.
func otherMethods(knees []analysis.Knee, main analysis.Knee, step func(int) string) []string {
	var out, agree, differ, none []string
	for _, k := range knees {
		if k.Method == main.Method {
			continue
		}
		if k.Index < 0 {
			none = append(none, fmt.Sprintf("the %s method finds none (%s)", k.Method, k.Reason))
			continue
		}
		if k.Index == main.Index {
			agree = append(agree, k.Method)
		} else {
			differ = append(differ, fmt.Sprintf("%s at %s", k.Method, step(k.Index)))
		}
	}
	switch {
	case len(agree) > 0 && len(differ) == 0:
		out = append(out, "The "+methods(agree)+" agree"+plural(len(agree))+".")
	case len(differ) > 0:
		line := "Other methods put it at " + strings.Join(differ, ", ")
		if len(agree) > 0 {
			line += "; the " + methods(agree) + " agree" + plural(len(agree))
		}
		out = append(out, line+".")
	}
	if len(none) > 0 {
		out = append(out, upper(strings.Join(none, "; "))+".")
	}
	return out
}

// plural is the verb's ending for n subjects: "agrees", "agree".
func plural(n int) string {
	if n > 1 {
		return ""
	}
	return "s"
}

// count is n and the noun, in the plural unless n is 1: "1 thread",
// "8 threads". The noun must make its plural with an s.
func count(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// methods names knee methods: "kneedle method", "marginal and kneedle methods".
func methods(ms []string) string {
	if len(ms) == 1 {
		return ms[0] + " method"
	}
	return strings.Join(ms, " and ") + " methods"
}

func hostAt(hosts []*result.Host, i int) *result.Host {
	if i < 0 || i >= len(hosts) {
		return nil
	}
	return hosts[i]
}

// stepAt names the step at x of a sweep over axis in a sentence: "4
// threads", "8 instances", "800/s" (a rate), "2x" (multiples of a
// baseline rate: the axis "multiple").
func stepAt(axis string, x float64) string {
	v := strconv.FormatFloat(x, 'g', -1, 64)
	switch axis {
	case "rate":
		return v + "/s"
	case "multiple":
		return v + "x"
	case "":
		return v
	}
	return v + " " + axis
}

// Num formats a throughput for a sentence: whole numbers from 100 up, three
// significant digits below.
func Num(v float64) string {
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// upper capitalises the first letter of a sentence.
func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Ms formats a response time for a sentence: three significant digits up
// to 100 ms ("4.11 ms", "68.9 ms"), whole milliseconds up to 10 s ("689
// ms", "9974 ms"), seconds from 10 s on ("12.9 s").
func Ms(v float64) string {
	switch {
	case math.Abs(v) >= 10000:
		return strconv.FormatFloat(v/1000, 'f', 1, 64) + " s"
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64) + " ms"
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + " ms"
}
