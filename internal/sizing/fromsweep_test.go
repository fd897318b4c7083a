package sizing

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/topology"
)

var eightCores = topology.Host{Name: "t", Sockets: 1, CoresPerSocket: 8, ThreadsPerCore: 1, NUMANodes: 1}

// host is a 4-CPU host busy busy % (user + system), with the server's own
// processes using server CPUs (0: not measured).
func host(busy, server float64) *result.Host {
	h := &result.Host{CPUs: 4, CPU: result.CPUPct{User: 0.7 * busy, System: 0.3 * busy, Idle: 100 - busy}}
	if server > 0 {
		h.ServerCPU = []result.ServerCPU{{Server: "postgres (PID 2243)", Address: "tcp 127.0.0.1:5432", UsedCPUs: server, Processes: 9}}
	}
	return h
}

// waits is 100 samples of 8 active sessions, lock% of them on
// Lock:transactionid, the rest on CPU.
func waits(lock int64) *result.ServerStats {
	return &result.ServerStats{Source: "pg_stat_activity", Product: "PostgreSQL", IntervalMs: 100, Samples: 100, Active: 800,
		Waits: []result.Wait{{Type: "Lock", Event: "transactionid", Samples: 8 * lock}, {Type: "CPU", Samples: 8 * (100 - lock)}}}
}

// lockBound is an update-index sweep that flattens at about 2,813/s while
// the host's CPUs stay under half busy and the database's sessions wait on
// row locks: the example, planned at 5,000/s.
func lockBound() *result.Sweep {
	return &result.Sweep{SchemaVersion: result.SchemaVersion, ID: "L", Workload: "oltp_update_index", Axis: "threads", HostIsServer: true, Steps: []result.SweepStep{
		{Label: "threads 1", X: 1, Throughput: 900, AvgMs: 1.1, P99Ms: 2, Host: host(15, 0.3), ServerStats: waits(10)},
		{Label: "threads 2", X: 2, Throughput: 1750, AvgMs: 1.1, P99Ms: 2.2, Host: host(28, 0.6), ServerStats: waits(30)},
		{Label: "threads 4", X: 4, Throughput: 2813, AvgMs: 1.4, P99Ms: 3, Host: host(40, 0.9), ServerStats: waits(62)},
		{Label: "threads 8", X: 8, Throughput: 2790, AvgMs: 2.9, P99Ms: 9, Host: host(41, 0.9), ServerStats: waits(80)},
		{Label: "threads 16", X: 16, Throughput: 2800, AvgMs: 5.7, P99Ms: 20, Host: host(41, 0.9), ServerStats: waits(88)},
	}}
}

func TestSizeFromSweepRefusesAKneeCPUDidNotCause(t *testing.T) {
	sw := lockBound()
	a := analysis.Analyze(sw, analysis.Options{CPUTargetPct: 80})
	if v := a.Diagnosis.Server; v == nil || v.Check != analysis.CheckNotCPU || v.Class != analysis.WaitLocks {
		t.Fatalf("fixture: server view %+v, want row locks with idle CPUs", v)
	}
	s, err := SizeFromSweep(FromSweep{Host: eightCores, Sweep: sw, Name: "l.json", Rate: TargetRate{PerSecond: 5000, Text: "5000"}, CPUTargetPct: 80})
	if err != nil {
		t.Fatal(err)
	}
	k := s.NotCPU
	if k == nil || k.Class != analysis.WaitLocks || k.KneeRate != 2813 || k.Rate != 5000 || k.CPUOnlyVCPU < 1 || !strings.Contains(k.Change, "hot rows") {
		t.Fatalf("NotCPU %+v, want row locks past 2813/s with the workload's hot rows to change", k)
	}
	if s.VCPU != 0 || s.Plan.VM.VCPU != 0 || !strings.Contains(s.Limit, "No vCPU count carries 5000/s") || !strings.Contains(s.Limit, "row/table locks") {
		t.Errorf("sizing %d vCPUs, limit %q: want no VM and the knee named", s.VCPU, s.Limit)
	}
	r := &Report{Host: eightCores, Sizing: &s}
	if !r.Fails() {
		t.Error("a plan with no VM for the target should fail (exit 1)")
	}
	// Within the knee, CPU is what the rate costs: a VM, and it passes.
	s, err = SizeFromSweep(FromSweep{Host: eightCores, Sweep: sw, Name: "l.json", Rate: TargetRate{PerSecond: 2000, Text: "2000"}, CPUTargetPct: 80})
	if err != nil || s.NotCPU != nil || s.VCPU < 1 || (&Report{Host: eightCores, Sizing: &s}).Fails() {
		t.Errorf("2000/s, within the knee: %+v (%v), want a VM that passes", s, err)
	}
}

// Without the server's view, the host's figures: the database ran here,
// the limit is elsewhere and the CPUs were not busy.
func TestSizeFromSweepRefusesOnTheHostsFiguresAlone(t *testing.T) {
	sw := lockBound()
	for i := range sw.Steps {
		sw.Steps[i].ServerStats = nil
	}
	s, err := SizeFromSweep(FromSweep{Host: eightCores, Sweep: sw, Name: "l.json", Rate: TargetRate{PerSecond: 5000, Text: "5000"}, CPUTargetPct: 80})
	if err != nil {
		t.Fatal(err)
	}
	if s.NotCPU == nil || s.NotCPU.Class != "" || !strings.Contains(s.NotCPU.Change, "--server-stats on") {
		t.Errorf("NotCPU %+v, want a refusal from the host's figures that asks for the server's view", s.NotCPU)
	}
	// A remote database (the host's figures are the generator's) says
	// nothing of the database's CPU: sized as before.
	sw.HostIsServer = false
	if s, err := SizeFromSweep(FromSweep{Host: eightCores, Sweep: sw, Name: "l.json", Rate: TargetRate{PerSecond: 5000, Text: "5000"}, CPUTargetPct: 80}); err != nil || s.NotCPU != nil {
		t.Errorf("remote: %+v (%v), want a sizing", s.NotCPU, err)
	}
}

// cpuBound is a point-select sweep whose server uses 0.4 ms of CPU per
// event while the host as a whole (the generator and everything else on
// it) uses 0.8 ms.
func cpuBound(server bool) *result.Sweep {
	step := func(x, tput, p99 float64) result.SweepStep {
		srv := 0.0
		if server {
			srv = 0.0004 * tput
		}
		return result.SweepStep{Label: "threads " + strings.Repeat("I", int(x)), X: x, Throughput: tput, AvgMs: p99 / 2, P99Ms: p99,
			Host: host(100*0.0008*tput/4, srv), ServerStats: &result.ServerStats{Source: "pg_stat_activity", Samples: 100, Active: int64(100 * x), Waits: []result.Wait{{Type: "CPU", Samples: int64(100 * x)}}}}
	}
	return &result.Sweep{SchemaVersion: result.SchemaVersion, ID: "C", Workload: "oltp_point_select", Axis: "threads", HostIsServer: true, Steps: []result.SweepStep{
		step(1, 1000, 0.5), step(2, 2000, 0.5), step(3, 3000, 0.6), step(4, 4700, 0.9), step(5, 4800, 3),
	}}
}

func TestSizeFromSweepUsesTheServersOwnCPU(t *testing.T) {
	s, err := SizeFromSweep(FromSweep{Host: eightCores, Sweep: cpuBound(true), Name: "c.json", Rate: TargetRate{PerSecond: 8000, Text: "8000"}, CPUTargetPct: 80})
	if err != nil {
		t.Fatal(err)
	}
	// 8000/s × 0.4 ms = 3.2 busy cores; at 80 %, 4 vCPUs (the host's 0.8 ms
	// would have made it 8).
	if s.NotCPU != nil || s.VCPU != 4 || s.BusyCores < 3.19 || s.BusyCores > 3.21 {
		t.Errorf("sizing %d vCPUs, %.3g busy cores (%+v), want 4 from the server's 0.4 ms per event", s.VCPU, s.BusyCores, s.NotCPU)
	}
	if !strings.Contains(strings.Join(s.Reasons, "\n"), "sized from the database server's own CPU: its processes on this host (postgres (PID 2243)") {
		t.Errorf("reasons do not say the server's CPU was used:\n%s", strings.Join(s.Reasons, "\n"))
	}
	// Without it, the host's CPU, and the reasons say what that bills.
	s, err = SizeFromSweep(FromSweep{Host: eightCores, Sweep: cpuBound(false), Name: "c.json", Rate: TargetRate{PerSecond: 8000, Text: "8000"}, CPUTargetPct: 80})
	if err != nil {
		t.Fatal(err)
	}
	if s.VCPU != 8 || !strings.Contains(strings.Join(s.Reasons, "\n"), "bills every other process on the host to the database") {
		t.Errorf("without the server's CPU: %d vCPUs, reasons:\n%s", s.VCPU, strings.Join(s.Reasons, "\n"))
	}
}

// curveOf reads the server's CPU when sizing from it.
func TestServerCurve(t *testing.T) {
	a := analysis.Analyze(cpuBound(true), analysis.Options{CPUTargetPct: 80})
	c := curveOf(a, serverBusy)
	if len(c) < 2 || c[0].BusyPct != 10 || c[1].BusyPct != 20 {
		t.Errorf("server curve %+v, want 10 %%, 20 %%, ... of 4 CPUs", c)
	}
}

// TestSizeFromSweepAtAnObjective: plan --slo analyses the sweep at the
// user's objective rather than the sweep's own (issue 49: plan had no
// --slo): the knee it reasons from is that objective's.
func TestSizeFromSweepAtAnObjective(t *testing.T) {
	in := FromSweep{Host: eightCores, Sweep: lockBound(), Name: "l.json", Rate: TargetRate{PerSecond: 1000, Text: "1000"}, CPUTargetPct: 80}
	plain, err := SizeFromSweep(in)
	if err != nil {
		t.Fatal(err)
	}
	in.SLOMs = 2.5
	at, err := SizeFromSweep(in)
	if err != nil {
		t.Fatal(err)
	}
	p, a := strings.Join(plain.Reasons, "\n"), strings.Join(at.Reasons, "\n")
	if strings.Contains(p, "(slo method)") || !strings.Contains(a, "knee at threads 2: 1750/s on 4 CPUs (slo method)") {
		t.Errorf("reasons at a 2.5 ms objective:\n%s\nwithout:\n%s", a, p)
	}
}

// TestSizeFromSweepAnswersTheObjective: with an objective the answer is
// the fewest vCPUs whose predicted p99 meets it, not the 80 % rule's: at
// 8,000/s on the server's 0.4 ms per event the rule gives 4 vCPUs (80 %
// busy), where the wait for a CPU alone would take about 2 ms at the p99.
// The sweep met p99 <= 1.5 ms at 4,700/s on its 4 CPUs and missed it at
// 4,800/s, which an M/M/c queue on all 4 would not: the model's usable
// share of the CPUs is fitted to that crossing (0.8), and it asks 6 (on
// every CPU it would have asked 5). An objective under what no CPU count
// shortens (the measured p99s less their waits and service) has no VM,
// and the plan fails.
func TestSizeFromSweepAnswersTheObjective(t *testing.T) {
	in := FromSweep{Host: eightCores, Sweep: cpuBound(true), Name: "c.json", Rate: TargetRate{PerSecond: 8000, Text: "8000"}, CPUTargetPct: 80, SLOMs: 1.5}
	s, err := SizeFromSweep(in)
	if err != nil {
		t.Fatal(err)
	}
	o := s.Objective
	if o == nil || o.VCPU != 6 || s.VCPU != 6 || o.PredictedP99Ms > 1.5 || o.PredictedP99Ms < 0.55 || o.MeasuredCPUs != 4 || !o.Extrapolated || len(o.Fit) == 0 ||
		math.Abs(o.Share-0.8) > 0.05 || o.ShareFrom != "on 4 CPUs within it at 4700/s, past it at 4800/s" {
		t.Fatalf("sizing %d vCPUs, objective %+v: want 6 vCPUs predicted within 1.5 ms, extrapolated from 4 measured CPUs, 0.8 of them usable", s.VCPU, o)
	}
	r := strings.Join(s.Reasons, "\n")
	if !strings.Contains(r, "at the objective (p99 <= 1.5 ms): 6 vCPU(s)") || !strings.Contains(r, "the 80% CPU rule alone gives 4") {
		t.Errorf("reasons:\n%s", r)
	}
	if (&Report{Sizing: &s}).Fails() || s.Plan.VM.VCPU != 6 {
		t.Errorf("a plan that meets its objective fails, or checks %d vCPUs", s.Plan.VM.VCPU)
	}
	in.SLOMs = 0.5
	if s, err = SizeFromSweep(in); err != nil {
		t.Fatal(err)
	}
	if s.Objective == nil || s.Objective.VCPU != 0 || !strings.Contains(s.Limit, "No vCPU count meets p99 <= 0.5 ms") || !(&Report{Sizing: &s}).Fails() {
		t.Errorf("an objective no CPU count meets: objective %+v, limit %q", s.Objective, s.Limit)
	}
}

// TestSizeFromSweepTheAllotmentIsCPU (issue 50): a database held to one CPU
// by its cgroup that used 0.9 of it at the knee, and ran out of quota in
// 13 % of its periods, was held by CPU, its allotment, whatever a sample
// of its sessions saw (row locks here, CPU there) and however idle the
// host's CPUs: both views get the same vCPUs. Without the allotment the
// same figures are 0.9 of the host's 4 CPUs, and the refusal says so.
func TestSizeFromSweepTheAllotmentIsCPU(t *testing.T) {
	held := func(view func(i int) *result.ServerStats) *result.Sweep {
		sw := lockBound()
		for i := range sw.Steps {
			st := &sw.Steps[i]
			srv := st.Host.ServerCPU[0].UsedCPUs
			st.Host.Cgroups = []result.Cgroup{{Role: "database", Path: "/db", LimitCPUs: 1, UsedCPUs: srv, Periods: 50, ThrottledPeriods: 6.5, ThrottledPct: 13}}
			st.ServerStats = view(i)
		}
		return sw
	}
	in := FromSweep{Host: eightCores, Name: "h.json", Rate: TargetRate{PerSecond: 5000, Text: "5000"}, CPUTargetPct: 80}
	var vcpus []int
	for _, view := range []func(int) *result.ServerStats{
		func(i int) *result.ServerStats { return waits(int64([]int{10, 30, 62, 80, 88}[i])) },
		func(int) *result.ServerStats { return waits(0) },
	} {
		in.Sweep = held(view)
		s, err := SizeFromSweep(in)
		if err != nil {
			t.Fatal(err)
		}
		if s.NotCPU != nil || s.VCPU < 1 {
			t.Fatalf("held to 1 CPU, used 0.9 of it: NotCPU %+v, %d vCPUs; want a VM", s.NotCPU, s.VCPU)
		}
		vcpus = append(vcpus, s.VCPU)
	}
	if vcpus[0] != vcpus[1] {
		t.Errorf("the same allotment, two samples of the sessions: %v vCPUs", vcpus)
	}
	sw := lockBound()
	for i := range sw.Steps {
		sw.Steps[i].ServerStats = nil
	}
	in.Sweep = sw
	s, err := SizeFromSweep(in)
	if err != nil {
		t.Fatal(err)
	}
	if s.NotCPU == nil || !strings.Contains(s.Limit, "the database's own processes used 0.90 of its 4 CPUs there (22%, under 50%), unthrottled") {
		t.Errorf("no allotment, 0.9 of 4 CPUs: limit %q", s.Limit)
	}
}

// TestKneeReasonNoKnee: a sweep whose every step met the objective has no
// knee in its range, and the plan says so rather than "found its knee"
// at its last step (slo method); a sweep held to an allotment names it.
func TestKneeReasonNoKnee(t *testing.T) {
	sw := &result.Sweep{ID: "n", Workload: "oltp_read_only", Axis: "rate", SLOMs: 50}
	for i, tput := range []float64{100, 200, 300} {
		h := host(10*float64(i+1), 0)
		h.Cgroups = []result.Cgroup{{Role: "database", Path: "/db", LimitCPUs: 0.5}}
		sw.Steps = append(sw.Steps, result.SweepStep{Label: fmt.Sprintf("rate %g/s", tput), X: tput, Offered: tput, Throughput: tput, P99Ms: 5, Host: h})
	}
	got := KneeReason(analysis.Analyze(sw, analysis.OptionsOf(sw)))
	if want := "met its objective at every step, up to rate 300/s: 300/s on the database's 0.5 CPUs (its cgroup's limit; the host has 4): no knee in its range"; !strings.Contains(got, want) {
		t.Errorf("KneeReason = %q, want %q", got, want)
	}
}
