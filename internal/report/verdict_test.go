package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// bottleneck words what analysis finds in a step's host figures.
func bottleneck(h *result.Host, hostIsServer bool) string {
	return Bottleneck(analysis.BottleneckOf(h, hostIsServer))
}

// verdict is the Verdict of the points, with the bottleneck at the step
// analysis.Locate names.
func verdict(axis string, ps []analysis.Point, hosts []*result.Host, knees []analysis.Knee, hostIsServer bool) []string {
	return Verdict(axis, ps, knees, analysis.Locate(ps, hosts, knees, hostIsServer))
}

func TestBottleneck(t *testing.T) {
	cases := []struct {
		name   string
		h      *result.Host
		server bool
		want   []string
		not    []string
	}{
		{"cpu", &result.Host{CPUs: 2, RunQueue: 9, CPU: result.CPUPct{User: 80, System: 15, Idle: 5}}, true,
			[]string{"CPU-bound", "95% busy", "9 runnable threads on 2 CPUs"}, []string{"client", "steal"}},
		{"cpu on the client", &result.Host{CPUs: 2, RunQueue: 2, CPU: result.CPUPct{User: 85, System: 10}}, false,
			[]string{"CPU-bound", "load generator", "client, not the database"}, []string{"runnable"}},
		{"storage by iowait", &result.Host{CPUs: 2, CPU: result.CPUPct{User: 10, System: 5, Iowait: 60, Idle: 25},
			Disks: []result.Disk{{Name: "sda", UtilPct: 40}, {Name: "vdb", UtilPct: 97, ReadIOPS: 3000}}}, true,
			[]string{"storage-bound", "iowait 60%", "vdb 97%", "3000 reads/s"}, []string{"CPU-bound"}},
		{"storage by util", &result.Host{CPUs: 2, CPU: result.CPUPct{User: 10, System: 5, Iowait: 5},
			Disks: []result.Disk{{Name: "nvme0n1", UtilPct: 92}}}, true,
			[]string{"storage-bound", "nvme0n1 92%"}, nil},
		{"neither", &result.Host{CPUs: 2, CPU: result.CPUPct{User: 30, System: 10, Iowait: 2, Idle: 58}}, true,
			[]string{"neither CPU (40% busy)", "locks"}, []string{"network"}},
		{"neither, remote", &result.Host{CPUs: 2, CPU: result.CPUPct{User: 30, System: 10, Idle: 60}}, false,
			[]string{"neither", "network"}, nil},
		{"steal", &result.Host{CPUs: 2, CPU: result.CPUPct{User: 50, System: 10, Steal: 25, Idle: 15}}, true,
			[]string{"steal", "25%", "understate"}, nil},
	}
	for _, c := range cases {
		got := bottleneck(c.h, c.server)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q should not say %q", c.name, got, w)
			}
		}
	}
	if got := bottleneck(nil, true); !strings.Contains(got, "no host figures") {
		t.Errorf("nil host: %q", got)
	}
}

func TestVerdict(t *testing.T) {
	// Throughput doubles to 4 threads, then gains little while p99 climbs.
	ps := []analysis.Point{{X: 1, Throughput: 100, P99Ms: 2}, {X: 2, Throughput: 200, P99Ms: 2}, {X: 4, Throughput: 390, P99Ms: 3}, {X: 8, Throughput: 400, P99Ms: 9}, {X: 16, Throughput: 402, P99Ms: 25}}
	busy := &result.Host{CPUs: 2, CPU: result.CPUPct{User: 85, System: 10}}
	hosts := []*result.Host{nil, nil, busy, busy, busy}
	knees := []analysis.Knee{analysis.MarginalKnee(ps, 0.2), analysis.Kneedle(ps)}
	if knees[0].Index != 2 {
		t.Fatalf("marginal knee at %d, want 2 (4 threads): %s", knees[0].Index, knees[0].Reason)
	}
	got := strings.Join(verdict("threads", ps, hosts, knees, true), " ")
	for _, w := range []string{"The knee is at 4 threads (marginal method)", "Why: throughput stops scaling at 4", "At the knee, CPU-bound", "+3% more for +300% more load"} {
		if !strings.Contains(got, w) {
			t.Errorf("verdict %q lacks %q", got, w)
		}
	}
	// An SLO that 8 threads still meets takes precedence, and the others differ.
	knees = append(knees, analysis.SLOKnee(ps, 10))
	got = strings.Join(verdict("threads", ps, hosts, knees, true), " ")
	if !strings.Contains(got, "The knee is at 8 threads (slo method)") || !strings.Contains(got, "Other methods put it at marginal at 4") {
		t.Errorf("slo verdict: %q", got)
	}
	// Still scaling linearly: no knee, and the last step's host is described.
	lin := []analysis.Point{{X: 1, Throughput: 100, P99Ms: 1}, {X: 2, Throughput: 200, P99Ms: 1}, {X: 3, Throughput: 300, P99Ms: 1}, {X: 4, Throughput: 400, P99Ms: 1}}
	got = strings.Join(verdict("instances", lin, []*result.Host{nil, nil, nil, busy}, []analysis.Knee{analysis.MarginalKnee(lin, 0.2), analysis.Kneedle(lin)}, true), " ")
	if !strings.Contains(got, "No knee in the range") || !strings.Contains(got, "4 instances") || !strings.Contains(got, "At the last step: CPU-bound") {
		t.Errorf("linear verdict: %q", got)
	}
}

// A step whose load generator fell behind is named in the verdict.
func TestSweepVerdictCautionsLag(t *testing.T) {
	sw := &result.Sweep{Axis: "threads", HostIsServer: true, CPUTargetPct: 80, Steps: []result.SweepStep{
		{Label: "threads 1", X: 1, Throughput: 100, P99Ms: 1},
		{Label: "threads 2", X: 2, Throughput: 190, P99Ms: 1},
		{Label: "threads 4", X: 4, Throughput: 200, P99Ms: 3},
		{Label: "threads 8", X: 8, Throughput: 150, P99Ms: 9, TickerLag: &result.TickerLag{Ticks: 10, Late: 3, MaxS: 2.4}},
	}}
	got := strings.Join(SweepSentences(analysis.Analyze(sw, analysis.OptionsOf(sw))), " ")
	if !strings.Contains(got, "fell behind its report ticks at threads 8 (worst 2.4 s)") {
		t.Errorf("verdict: %q", got)
	}
	sw.Steps[3].TickerLag = nil
	if got := strings.Join(SweepSentences(analysis.Analyze(sw, analysis.OptionsOf(sw))), " "); strings.Contains(got, "fell behind") {
		t.Errorf("verdict without lag: %q", got)
	}
}

// Review findings: the verdict names methods that found no knee, and a peak
// before the knee is said plainly; steps out of order are sorted first.
func TestVerdictWording(t *testing.T) {
	// Bent 11 % above the chord at 2 threads (Kneedle's knee; a curve bent
	// 2 % is straight since issue 49), and still growing (no marginal knee).
	ps := []analysis.Point{{X: 1, Throughput: 100, P99Ms: 2}, {X: 2, Throughput: 250, P99Ms: 3}, {X: 4, Throughput: 400, P99Ms: 4}, {X: 8, Throughput: 700, P99Ms: 6}}
	got := strings.Join(verdict("threads", ps, nil, []analysis.Knee{analysis.MarginalKnee(ps, 0.2), analysis.Kneedle(ps)}, true), " ")
	if !strings.Contains(got, "The marginal method finds none (throughput still grows") {
		t.Errorf("verdict %q does not say the marginal method found nothing", got)
	}
	peak := []analysis.Point{{X: 1, Throughput: 100, P99Ms: 2}, {X: 2, Throughput: 400, P99Ms: 3}, {X: 4, Throughput: 390, P99Ms: 4}, {X: 8, Throughput: 290, P99Ms: 20}}
	got = strings.Join(verdict("threads", peak, nil, []analysis.Knee{analysis.SLOKnee(peak, 10), analysis.MarginalKnee(peak, 0.2)}, true), " ")
	if !strings.Contains(got, "came at a lighter load (2 threads)") || strings.Contains(got, "more load") {
		t.Errorf("verdict %q", got)
	}
	sw := &result.Sweep{Axis: "threads", Steps: []result.SweepStep{{Label: "threads 8", X: 8, Throughput: 300}, {Label: "threads 1", X: 1, Throughput: 100},
		{Label: "threads 2", X: 2, Throughput: 190}, {Label: "threads 4", X: 4, Throughput: 290}}}
	r := analysis.Analyze(sw, analysis.OptionsOf(sw))
	if v := SweepSentences(r); r.Steps[0].X != 1 || r.Steps[3].X != 8 || strings.Contains(strings.Join(v, " "), "does not grow past the first step") {
		t.Errorf("unsorted sweep: steps %v, verdict %q", r.Steps, v)
	}
	if sw.Steps[0].X != 8 {
		t.Errorf("Analyze sorted its input: %v", sw.Steps)
	}
}

// A step the load generator limited is named with its reason, and the
// knee it would have been is not claimed.
func TestSweepVerdictNamesTheGeneratorLimit(t *testing.T) {
	sw := &result.Sweep{Axis: "threads", HostIsServer: true, Steps: []result.SweepStep{
		{Label: "threads 1", X: 1, Throughput: 100, P99Ms: 1},
		{Label: "threads 2", X: 2, Throughput: 200, P99Ms: 1},
		{Label: "threads 4", X: 4, Throughput: 400, P99Ms: 1},
		{Label: "threads 8", X: 8, Throughput: 800, P99Ms: 2, ClientSharePct: 91},
		{Label: "threads 16", X: 16, Throughput: 820, P99Ms: 9},
	}}
	got := strings.Join(SweepSentences(analysis.Analyze(sw, analysis.OptionsOf(sw))), " ")
	for _, want := range []string{
		"No knee in the range: throughput still scales at threads 4 (",
		"The load generator, not the system under test, limited threads 8 (the generator used 91% of the host's CPU (at least 80%))",
		"the knee is sought among the steps before threads 8 only",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict lacks %q: %q", want, got)
		}
	}
	if strings.Contains(got, "The knee is at 8") {
		t.Errorf("a knee claimed at the limited step: %q", got)
	}
	// The first step limited: no knee at all.
	sw.Steps[0].ClientSharePct = 95
	got = strings.Join(SweepSentences(analysis.Analyze(sw, analysis.OptionsOf(sw))), " ")
	if !strings.Contains(got, "no knee can be claimed") || strings.Contains(got, "The knee is at") {
		t.Errorf("verdict with every step limited: %q", got)
	}
}

// Too few steps for a knee method, but throughput fell after the first:
// neither the verdict nor the headline may say it still scales (the
// scaled-instances study on PostgreSQL: 679/s at 4 instances, 649/s at 8,
// the steps after generator-limited).
func TestNoKneeButThroughputFell(t *testing.T) {
	sw := &result.Sweep{Axis: "instances", Steps: []result.SweepStep{{Label: "instances 4", X: 4, Throughput: 679, P99Ms: 13.4}, {Label: "instances 8", X: 8, Throughput: 649, P99Ms: 29.8}}}
	r := analysis.Analyze(sw, analysis.OptionsOf(sw))
	for what, got := range map[string]string{"verdict": strings.Join(SweepSentences(r), " "), "headline": strings.Join(Headline(Doc{Sweep: r}), " ")} {
		if strings.Contains(got, "still scales") || !strings.Contains(got, "peaked at") || !strings.Contains(got, "4 instances") && !strings.Contains(got, "instances 4") {
			t.Errorf("%s %q: want the peak at 4 instances said, not 'still scales'", what, got)
		}
	}
	grows := &result.Sweep{Axis: "instances", Steps: []result.SweepStep{{Label: "instances 4", X: 4, Throughput: 600}, {Label: "instances 8", X: 8, Throughput: 650}}}
	if got := strings.Join(Headline(Doc{Sweep: analysis.Analyze(grows, analysis.OptionsOf(grows))}), " "); !strings.Contains(got, "still scales") {
		t.Errorf("growing: %q", got)
	}
}

// A rate sweep's steps are named as rates: multiples of a baseline "2x",
// absolute rates "800/s" (the verdict said "2 (rate)").
func TestVerdictNamesRateSteps(t *testing.T) {
	steps := []result.SweepStep{{Label: "rate 1x", X: 1, Throughput: 400, P99Ms: 15}, {Label: "rate 2x", X: 2, Throughput: 566, P99Ms: 3553},
		{Label: "rate 3x", X: 3, Throughput: 585, P99Ms: 6682}, {Label: "rate 4x", X: 4, Throughput: 580, P99Ms: 8112}}
	sw := &result.Sweep{Axis: "rate", BaselineRate: 400, Steps: steps}
	got := strings.Join(SweepSentences(analysis.Analyze(sw, analysis.OptionsOf(sw))), " ")
	if !strings.Contains(got, "The knee is at rate 2x (") || strings.Contains(got, "(rate)") {
		t.Errorf("multiples: %q", got)
	}
	abs := &result.Sweep{Axis: "rate", Steps: steps}
	abs.Steps = slices.Clone(steps)
	for i := range abs.Steps {
		abs.Steps[i].X *= 400
		abs.Steps[i].Label = fmt.Sprintf("rate %g", abs.Steps[i].X)
	}
	if got := strings.Join(SweepSentences(analysis.Analyze(abs, analysis.OptionsOf(abs))), " "); !strings.Contains(got, "The knee is at rate 800 (") {
		t.Errorf("rates: %q", got)
	}
}

// A comparison's knee lines say the same of a configuration whose
// throughput peaked before its last step, and give p99 in ms or s.
func TestCompareKneeLinePeaked(t *testing.T) {
	mk := func(name string, tps ...float64) analysis.Candidate {
		sw := &result.Sweep{ID: name, Workload: "oltp_read_write", Axis: "instances", Config: name}
		for i, tp := range tps {
			x := float64(int(4) << i)
			sw.Steps = append(sw.Steps, result.SweepStep{Label: fmt.Sprintf("instances %g", x), X: x, Throughput: tp, P99Ms: 1687 * float64(i+1)})
		}
		return analysis.Candidate{Name: name, Sweep: analysis.Analyze(sw, analysis.OptionsOf(sw))}
	}
	c, err := analysis.CompareConfigs([]analysis.Candidate{mk("PostgreSQL", 679, 649), mk("MariaDB", 100, 200, 300, 310, 312)}, "8")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(CompareHeadline(c), "\n")
	if !strings.Contains(got, "PostgreSQL: no knee found (fewer than 3 steps), but throughput peaked at instances 4") || strings.Contains(got, "e+03") {
		t.Errorf("headline:\n%s", got)
	}
}

// With the sustained knee, the bottleneck is named where the system fell
// behind (the next step), not at the last rate it kept (PostgreSQL's
// vm-rate: 67 % busy at 1x, 94 % at 2x).
func TestSustainedKneeNamesTheBottleneckPastIt(t *testing.T) {
	host := func(busy float64) *result.Host {
		return &result.Host{CPUs: 2, RunQueue: 12, CPU: result.CPUPct{User: busy * 0.6, System: busy * 0.4, Idle: 100 - busy}}
	}
	sw := &result.Sweep{Axis: "rate", BaselineRate: 400, HostIsServer: true, Steps: []result.SweepStep{
		{Label: "rate 1x", X: 1, Throughput: 400, P99Ms: 24, Offered: 400, Host: host(67)},
		{Label: "rate 2x", X: 2, Throughput: 566, P99Ms: 3553, Offered: 800, Host: host(94)},
		{Label: "rate 3x", X: 3, Throughput: 585, P99Ms: 6682, Offered: 1200, Host: host(95)}}}
	r := analysis.Analyze(sw, analysis.OptionsOf(sw))
	head := strings.Join(Headline(Doc{Sweep: r}), " ")
	if !strings.Contains(head, "Bottleneck past the knee (at rate 2x, where it fell behind): CPU-bound") {
		t.Errorf("headline %q", head)
	}
	if v := strings.Join(SweepSentences(r), " "); !strings.Contains(v, "At rate 2x, where it fell behind, CPU-bound") {
		t.Errorf("verdict %q", v)
	}
}

func ptr(v float64) *float64 { return &v }

// TestBottleneckBeyondTheGuest: the causes the guest's CPU figures cannot
// show are named, with their figures, ahead of what those figures say.
func TestBottleneckBeyondTheGuest(t *testing.T) {
	idle := result.CPUPct{User: 30, System: 10, Idle: 60}
	throttled := func(role string) []result.Cgroup {
		return []result.Cgroup{{Role: "rightsize and database", Path: "/"}, {Role: role, Path: "/half", LimitCPUs: 0.5, UsedCPUs: 0.5, Periods: 10, ThrottledPeriods: 9, ThrottledPct: 90, ThrottledMsPerS: 450}}
	}
	cases := []struct {
		name string
		h    *result.Host
		want []string
		not  []string
	}{
		{"database throttled", &result.Host{CPUs: 2, CPU: idle, Cgroups: throttled("database")},
			[]string{"CPU-limited by a cgroup", "database's cgroup /half", "limit 0.50 CPUs", "throttled in 90% of its periods", "40% busy", "its CPU limit, not the host's CPUs"}, []string{"neither CPU", "measure the client"}},
		{"generator throttled", &result.Host{CPUs: 2, CPU: idle, Cgroups: throttled("rightsize")},
			[]string{"load generator's cgroup /half", "the figures measure the client"}, nil},
		{"throttled a little", &result.Host{CPUs: 2, CPU: idle, Cgroups: []result.Cgroup{{Role: "database", Path: "/x", LimitCPUs: 4, Periods: 10, ThrottledPeriods: 1, ThrottledPct: 10}}},
			[]string{"neither CPU"}, []string{"cgroup"}},
		{"ready", &result.Host{CPUs: 2, CPU: idle, Hypervisor: &result.Hypervisor{Source: "esxtop", HostCPUPct: ptr(97), ReadyPct: ptr(25), CoStopPct: ptr(1)}},
			[]string{"held back by the hypervisor", "ready 25.0% per vCPU (VMware's usual threshold 10%)", "guest saw its CPUs 40% busy and the host's 97%: the time a vCPU waited is not in the guest's CPU figure"}, []string{"co-stop", "neither CPU"}},
		{"co-stop and limit", &result.Host{CPUs: 2, CPU: idle, Hypervisor: &result.Hypervisor{Source: "esxtop", ReadyPct: ptr(2), CoStopPct: ptr(4), MaxLimitedPct: ptr(6)}},
			[]string{"co-stop 4.0% per vCPU (threshold 3%)", "max limited 6.0%"}, []string{"ready 2"}},
		{"hypervisor agrees", &result.Host{CPUs: 2, CPU: idle, Hypervisor: &result.Hypervisor{Source: "esxtop", HostCPUPct: ptr(55), ReadyPct: ptr(1.5), CoStopPct: ptr(0.2)}},
			[]string{"neither CPU", "the hypervisor saw the host 55% busy and the VM ready 1.5%, co-stop 0.2% per vCPU: no sign it held the VM back"}, []string{"held back"}},
		{"pressure while idle", &result.Host{CPUs: 2, CPU: idle, Pressure: &result.Pressure{CPUSomePct: 45}},
			[]string{"tasks waited for a CPU 45% of the time", "only 40% busy"}, nil},
		{"pressure while busy", &result.Host{CPUs: 2, CPU: result.CPUPct{User: 80, System: 15}, Pressure: &result.Pressure{CPUSomePct: 60}},
			[]string{"CPU-bound"}, []string{"waited for a CPU"}},
	}
	for _, c := range cases {
		got := bottleneck(c.h, true)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q should not say %q", c.name, got, w)
			}
		}
	}
}

// The sweep verdict says once that its CPU figures are the guest's own
// when no step has the hypervisor's, and names what else was sampled.
func TestVerdictSaysGuestOnly(t *testing.T) {
	sw := &result.Sweep{SchemaVersion: result.SchemaVersion, Workload: "oltp_point_select", Axis: "threads", HostIsServer: true}
	for i, x := range []float64{1, 2, 4, 8} {
		sw.Steps = append(sw.Steps, result.SweepStep{Label: fmt.Sprint("threads ", x), X: x, Throughput: 100 * float64(i+1), P99Ms: 1,
			Host: &result.Host{CPUs: 2, CPU: result.CPUPct{User: 20, Idle: 80}, Pressure: &result.Pressure{}}})
	}
	got := strings.Join(SweepSentences(analysis.Analyze(sw, analysis.OptionsOf(sw))), " ")
	if n := strings.Count(got, "The CPU figures are the guest's own"); n != 1 || !strings.Contains(got, "CPU pressure was sampled, cgroup throttling was not") {
		t.Errorf("verdict says it %d times: %s", n, got)
	}
	for i := range sw.Steps {
		sw.Steps[i].Host.Hypervisor = &result.Hypervisor{Source: "esxtop", ReadyPct: ptr(30)}
	}
	got = strings.Join(SweepSentences(analysis.Analyze(sw, analysis.OptionsOf(sw))), " ")
	if strings.Contains(got, "guest's own") || !strings.Contains(got, "ready 30.0% per vCPU") ||
		!strings.Contains(got, "Held back where the guest's CPU figures do not show it: threads 1 (ready 30.0% per vCPU); threads 2 (ready 30.0% per vCPU)") {
		t.Errorf("with the hypervisor's figures: %s", got)
	}
}

// Every sentence of the verdict and headline names a step by its label,
// as the steps table shows it ("rate 2x"), never by its bare axis value
// ("Why: 2 is the highest rate sustained …; at 3 the system fell behind")
// nor by a third form ("2x"): on a rate sweep of multiples, in the knee
// methods' reasons too.
func TestVerdictNamesStepsAsTheTable(t *testing.T) {
	sw := &result.Sweep{Axis: "rate", BaselineRate: 1000, HostIsServer: true, Steps: []result.SweepStep{
		{Label: "rate 1x", X: 1, Throughput: 1000, Offered: 1000, AvgMs: 1, P99Ms: 3},
		{Label: "rate 2x", X: 2, Throughput: 1990, Offered: 2000, AvgMs: 1.2, P99Ms: 4},
		{Label: "rate 3x", X: 3, Throughput: 2200, Offered: 3000, AvgMs: 50, P99Ms: 400},
		{Label: "rate 4x", X: 4, Throughput: 2250, Offered: 4000, AvgMs: 500, P99Ms: 4000}}}
	r := analysis.Analyze(sw, analysis.OptionsOf(sw))
	var b strings.Builder
	if err := SweepReport(&b, r, Text); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(append(Headline(Doc{Sweep: r}), SweepSentences(r)...), "\n") + "\n" + b.String()
	for _, want := range []string{"Why: rate 2x is the highest rate sustained", "at rate 3x the system fell behind", "The knee is at rate 2x (", "Knee: rate 2x ("} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(line, "oltp") || strings.Contains(line, "1x = ") {
			continue // the title gives the baseline: "1x = 1000/s"
		}
		for _, m := range regexp.MustCompile(`(\S*) (\d+(x|\b))`).FindAllStringSubmatch(line, -1) {
			if (m[1] == "at" || m[1] == "Why:" || m[1] == "(" || m[1] == "to") && !strings.HasPrefix(m[2], "rate") {
				if strings.HasSuffix(m[2], "x") || !strings.Contains(line, m[2]+"/s") && !strings.Contains(line, m[2]+" ms") && !strings.Contains(line, m[2]+"%") {
					t.Errorf("a step named %q, not as the table names it, in %q", m[1]+" "+m[2], line)
				}
			}
		}
	}
}

// TestBottleneckSaysWhoUsedTheCPU: a CPU-bound host whose database used a
// small share of the busy CPU says so, with the figures.
func TestBottleneckSaysWhoUsedTheCPU(t *testing.T) {
	h := &result.Host{CPUs: 2, CPU: result.CPUPct{User: 80, System: 17},
		ServerCPU: []result.ServerCPU{{Server: "postgres (PID 1)", UsedCPUs: 0.26, Processes: 8}}}
	s := Bottleneck(analysis.BottleneckOf(h, true))
	if !strings.Contains(s, "the database's own processes used 0.26 of the 1.94 busy CPUs") || !strings.Contains(s, "the database's CPU was not the limit") {
		t.Errorf("%q", s)
	}
}

// TestNoKneeNothingSaturatedIsRoom: a sweep that still scaled at its last
// step, where neither CPU nor storage was saturated, has room to go
// further: the verdict does not send the reader after a limit elsewhere
// (locks, commit latency) that the sweep never reached. A knee found where
// nothing was saturated still names the limit elsewhere.
func TestNoKneeNothingSaturatedIsRoom(t *testing.T) {
	idle := &result.Host{CPUs: 2, CPU: result.CPUPct{User: 20, System: 14}}
	lin := []analysis.Point{{X: 1, Throughput: 100, P99Ms: 1}, {X: 2, Throughput: 200, P99Ms: 1}, {X: 3, Throughput: 300, P99Ms: 1}, {X: 4, Throughput: 400, P99Ms: 1}}
	got := strings.Join(verdict("rate", lin, []*result.Host{idle, idle, idle, idle}, []analysis.Knee{analysis.MarginalKnee(lin, 0.2), analysis.Kneedle(lin)}, true), " ")
	if !strings.Contains(got, "No knee in the range") || strings.Contains(got, "the limit is elsewhere") || !strings.Contains(got, "At the last step: neither CPU (34% busy)") || !strings.Contains(got, "can go higher") {
		t.Errorf("linear verdict on an idle host: %q", got)
	}
	flat := []analysis.Point{{X: 1, Throughput: 100, P99Ms: 1}, {X: 2, Throughput: 200, P99Ms: 1}, {X: 4, Throughput: 390, P99Ms: 3}, {X: 8, Throughput: 400, P99Ms: 9}, {X: 16, Throughput: 402, P99Ms: 25}}
	got = strings.Join(verdict("threads", flat, []*result.Host{idle, idle, idle, idle, idle}, []analysis.Knee{analysis.MarginalKnee(flat, 0.2), analysis.Kneedle(flat)}, true), " ")
	if !strings.Contains(got, "the limit is elsewhere") {
		t.Errorf("a knee where nothing was saturated: %q, want the limit elsewhere", got)
	}
}
