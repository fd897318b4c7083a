package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/sizing"
)

const seedHostFile = "../topology/testdata/seed-host.yaml"

// The planner on the seed study's host: the article's examples through the
// command line, in text, JSON and Markdown, with exit 1 on a failing rule.
func TestPlanSeedHost(t *testing.T) {
	ctx := context.Background()
	o := run(t, ctx, "plan", "--host", seedHostFile, "--vm", "db:vcpu=16,mem=96GiB")
	if o.code != ExitOK {
		t.Fatalf("16 vCPUs: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, want := range []string{"Socket(s):           2", "NUMA node(s):        2", "VM db: 16 vCPUs, 96 GiB: INFO",
		"layout: 2 vNUMA node(s) × 8 vCPUs × 48 GiB, 2 virtual socket(s) of 8 cores", "pass wide-even-split"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, o.stdout)
		}
	}
	o = run(t, ctx, "plan", "--host", seedHostFile, "--vm", "db:vcpu=36", "--format", "json")
	if o.code != ExitFailure {
		t.Fatalf("36 vCPUs: exit %d, want %d\n%s", o.code, ExitFailure, o.stderr)
	}
	var r sizing.Report
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil {
		t.Fatalf("json: %v\n%s", err, o.stdout)
	}
	if len(r.VMs) != 1 || r.VMs[0].Worst() != sizing.Fail || r.Host.Cores() != 24 || !strings.Contains(o.stdout, `"status": "fail"`) {
		t.Errorf("json report %+v", r)
	}
	o = run(t, ctx, "plan", "--host", seedHostFile, "--vm", "db:vcpu=12", "--format", "markdown")
	if o.code != ExitOK || !strings.Contains(o.stdout, "# Capacity plan") || !strings.Contains(o.stdout, "- **pass** fits-numa-node") {
		t.Errorf("markdown: exit %d\n%s", o.code, o.stdout)
	}
	// The seed's example 3: two busy 24-vCPU VMs on the 24-core host.
	o = run(t, ctx, "plan", "--host", seedHostFile, "--vm", "db1:vcpu=24,busy=0.85", "--vm", "db2:vcpu=24,busy=0.85", "--consolidate", "--format", "json")
	if o.code != ExitFailure {
		t.Fatalf("consolidation: exit %d\n%s", o.code, o.stderr)
	}
	r = sizing.Report{}
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil || r.Consolidation == nil {
		t.Fatalf("json: %v\n%s", err, o.stdout)
	}
	if d := r.Consolidation.VMs[0].Sim.Delivered; !(d < 0.95) || r.Consolidation.VMs[0].Sim.ResponseFactor < 1.2 {
		t.Errorf("two busy VMs keep %g of their throughput: want a loss", d)
	}
	for _, args := range [][]string{
		{"plan", "--host", seedHostFile, "--vm", "db:cpus=4"},
		{"plan", "--host", seedHostFile, "--consolidate"},
		{"plan", "--host", seedHostFile, "--format", "html"},
		{"plan", "--host", seedHostFile, "--target-rate", "100"},
		{"plan", "--host", seedHostFile, "--ht-gain", "150"},
		{"plan", "--host", seedHostFile, "--ht-gain", "measure"},
	} {
		if o := run(t, ctx, args...); o.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, o.code, ExitUsage, o.stderr)
		}
	}
	if o := run(t, ctx, "plan", "--host", filepath.Join(t.TempDir(), "none.yaml")); o.code != ExitFailure {
		t.Errorf("missing host file: exit %d", o.code)
	}
}

// This machine's own topology from /sys, and measure ht, which must say
// that there is no sibling to measure when there is none.
func TestPlanThisMachineAndMeasureHT(t *testing.T) {
	ctx := context.Background()
	o := run(t, ctx, "plan", "--vm", "db:vcpu=64")
	if o.code != ExitFailure || !strings.Contains(o.stdout, "(sysfs)") || !strings.Contains(o.stdout, "fail vcpu-within-cores") {
		t.Errorf("plan --host auto: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	o = run(t, ctx, "plan", "--ht-gain", "measure")
	if o.code != ExitOK || !strings.Contains(o.stdout, "hyperthreading gain") || !(strings.Contains(o.stdout, "measured on this machine") || strings.Contains(o.stdout, "not measured: ")) {
		t.Errorf("plan --ht-gain measure: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	o = run(t, ctx, "measure", "ht", "--time", "100ms", "--rounds", "1")
	if o.code != ExitOK {
		t.Fatalf("measure ht: exit %d\n%s", o.code, o.stderr)
	}
	siblings := false
	for _, l := range strings.Split(o.stdout, "\n") {
		if strings.HasPrefix(l, "hyperthreading gain") {
			siblings = true
		}
	}
	if !siblings && !strings.Contains(o.stdout, "no hyperthreading gain measured") {
		t.Errorf("measure ht says neither a gain nor why not:\n%s", o.stdout)
	}
}

// Right-sizing from a sweep file: the service demand, the client's share
// taken out, the knee and the response time from the curve.
func TestPlanFromSweep(t *testing.T) {
	path := writePlanSweep(t)
	// 4 ms of the database's CPU per event × 3000/s = 12 cores; at 50 %: 24,
	// 2 nodes of 12. The curve without the client's CPU (1 ms × rate over
	// 2 CPUs) is 20 %, 40 %, 60 %: at 50 % the response is between the
	// second and third steps, 2.75 ms.
	o := run(t, context.Background(), "plan", "--host", seedHostFile, "--from", path, "--target-rate", "3000", "--cpu-target", "50", "--format", "json")
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	var r sizing.Report
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil || r.Sizing == nil {
		t.Fatalf("json: %v\n%s", err, o.stdout)
	}
	s := r.Sizing
	if s.VCPU != 24 || s.Plan.Layout.VNUMANodes != 2 || s.ResponseBasis != "measured" || math.Abs(s.ResponseMs-2.75) > 1e-9 {
		t.Errorf("sizing %+v", s)
	}
	words := strings.Join(s.Reasons, " ")
	for _, want := range []string{"found its knee at threads 4", "of which the load generator on the same host used 1 ms", "keeps 12.00 cores busy", "needs 24 vCPU"} {
		if !strings.Contains(words, want) {
			t.Errorf("reasons lack %q: %s", want, words)
		}
	}
	if o := run(t, context.Background(), "plan", "--host", seedHostFile, "--from", path, "--target-rate", "3x"); o.code != ExitUsage || !strings.Contains(o.stderr, "no baseline rate") {
		t.Errorf("3x without a baseline: exit %d\n%s", o.code, o.stderr)
	}
}

// quickstart runs the whole story on the embedded default (the vm-rate
// study, small) in brief and ends with the report's path and the answer.
func TestQuickstart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "qs")
	o := run(t, context.Background(), "quickstart", "--dir", dir, "--time", "1s")
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), "<svg"); n < 6 || !strings.Contains(string(page), "Capacity plan") {
		t.Errorf("report has %d charts, plan %v", n, strings.Contains(string(page), "Capacity plan"))
	}
	for _, want := range []string{"$ rightsize sweep oltp_read_write", "--rate=1x,2x,3x,4x,5x", "$ rightsize plan --from", "$ rightsize report",
		"The report: " + filepath.Join(dir, "report.html"), "  rate 5x "} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	// Brief: one line per step, no live lines; it ends with the answer,
	// the planned VM last.
	if n := strings.Count(o.stdout, "\n"); n > 60 || strings.Contains(o.stdout, "thds:") {
		t.Errorf("%d lines of output (at most 60, no live lines):\n%s", n, o.stdout)
	}
	tail := o.stdout[strings.LastIndex(o.stdout, "answer:"):]
	if lines := strings.Split(strings.TrimSpace(tail), "\n"); !strings.HasPrefix(strings.TrimSpace(lines[len(lines)-1]), "Planned VM:") {
		t.Errorf("the output does not end with the answer and its planned VM:\n%s", tail)
	}
}

// The host's memory when sysfs's NUMA node says less than /proc/meminfo (a
// VM whose memory was hot-plugged: this machine's node 0 says 5.8 GiB of
// 23.5 GiB): the larger is used, and a note says so, so that an 8 GB VM fits
// a 24 GiB host. The trees are fixtures shaped like this machine's.
func TestPlanHostMemoryCrossCheckedWithMeminfo(t *testing.T) {
	sys := fstest.MapFS{
		"devices/system/cpu/online":                             {Data: []byte("0-1\n")},
		"devices/system/node/online":                            {Data: []byte("0\n")},
		"devices/system/node/node0/cpulist":                     {Data: []byte("0-1\n")},
		"devices/system/node/node0/meminfo":                     {Data: []byte("Node 0 MemTotal:        6121676 kB\nNode 0 MemFree:         4041504 kB\n")},
		"devices/system/cpu/cpu0/topology/physical_package_id":  {Data: []byte("0\n")},
		"devices/system/cpu/cpu0/topology/core_id":              {Data: []byte("0\n")},
		"devices/system/cpu/cpu0/topology/thread_siblings_list": {Data: []byte("0\n")},
		"devices/system/cpu/cpu1/topology/physical_package_id":  {Data: []byte("0\n")},
		"devices/system/cpu/cpu1/topology/core_id":              {Data: []byte("1\n")},
		"devices/system/cpu/cpu1/topology/thread_siblings_list": {Data: []byte("1\n")},
	}
	proc := t.TempDir()
	if err := os.WriteFile(filepath.Join(proc, "meminfo"), []byte("MemTotal:       24684084 kB\nMemFree:        22603860 kB\nMemAvailable:   22658268 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main(context.Background(), Env{
		Args: []string{"plan", "--vm", "db:vcpu=1,mem=8GB"}, Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, ProcRoot: proc, SysFS: sys,
	})
	if code != ExitOK {
		t.Errorf("exit %d, want %d\n%s\n%s", code, ExitOK, out.String(), errb.String())
	}
	for _, want := range []string{"Memory per node:     23.5 GiB", "pass memory-fits-host: 7.5 GiB ≤ the host's 23.5 GiB",
		"Note: sysfs's NUMA node holds 5.8 GiB but /proc/meminfo's MemTotal is 23.5 GiB", "the larger is used"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	// Without /proc, sysfs's figure stands, as before.
	out.Reset()
	code = Main(context.Background(), Env{
		Args: []string{"plan", "--vm", "db:vcpu=1,mem=8GB"}, Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, SysFS: sys,
	})
	if code != ExitFailure || !strings.Contains(out.String(), "fail memory-fits-host") {
		t.Errorf("no /proc: exit %d\n%s", code, out.String())
	}
}

// The plan names the knee the sweep's verdict and report name: in an open
// loop, the highest rate sustained (the quickstart's plan said 3x,
// marginal, under a report whose headline said 2x, sustained).
func TestPlanNamesThePrimaryKnee(t *testing.T) {
	sw := &result.Sweep{ID: "s", Workload: "oltp_read_write", Axis: "rate", BaselineRate: 400}
	for i, st := range [][3]float64{{400, 10, 400}, {800, 191, 800}, {984, 2613, 1200}, {1051, 4610, 1600}, {1065, 6094, 2000}} {
		x := float64(i + 1)
		sw.Steps = append(sw.Steps, result.SweepStep{Label: fmt.Sprintf("rate %gx", x), X: x, Throughput: st[0], P99Ms: st[1], Offered: st[2]})
	}
	if got := sizing.KneeReason(analysis.Analyze(sw, analysis.OptionsOf(sw))); !strings.Contains(got, "found its knee at rate 2x: 800/s on 0 CPUs (sustained method)") {
		t.Errorf("kneeReason: %q", got)
	}
}

// writePlanSweep writes a sweep file of 2 CPUs and 5 ms of CPU per event
// (4 of the database's, 1 of the client's), with its knee at 4 threads.
func writePlanSweep(t *testing.T) string {
	t.Helper()
	host := func(busy float64) *result.Host {
		return &result.Host{CPUs: 2, CPU: result.CPUPct{User: busy * 0.6, System: busy * 0.4, Idle: 100 - busy}}
	}
	// 2 CPUs, 5 ms of CPU per event: 100/s at 25 % (0.5 cores), 200/s at
	// 50 %, 300/s at 75 %, then 380/s at 95 % for four times the threads
	// (the knee is at 4); the client used 1 ms of each event.
	sw := result.Sweep{SchemaVersion: result.SchemaVersion, ID: "s", Workload: "oltp_read_write", Axis: "threads", HostIsServer: true,
		Steps: []result.SweepStep{
			{Label: "threads 1", X: 1, Throughput: 100, AvgMs: 2, P99Ms: 3, Host: host(25), ClientCPUUs: 1000},
			{Label: "threads 2", X: 2, Throughput: 200, AvgMs: 2.5, P99Ms: 4, Host: host(50), ClientCPUUs: 1000},
			{Label: "threads 4", X: 4, Throughput: 300, AvgMs: 3, P99Ms: 5, Host: host(75), ClientCPUUs: 1000},
			{Label: "threads 16", X: 16, Throughput: 380, AvgMs: 40, P99Ms: 90, Host: host(95), ClientCPUUs: 1000},
		}}
	path := filepath.Join(t.TempDir(), "s-sweep.json")
	b, _ := json.Marshal(sw)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every numeric input of plan is bounded: a target rate no VM can carry is
// refused at once (exit 2) naming what the host carries, never looped over
// nor overflowed; a VM setting given twice, a vCPU count or memory past any
// VM's, a host or VM file that never ends, each one message and exit 2.
func TestPlanBoundsInputs(t *testing.T) {
	ctx := context.Background()
	sweep := writePlanSweep(t)
	for _, rate := range []string{"1e14", "1e25", "1e300"} {
		start := time.Now()
		o := run(t, ctx, "plan", "--host", seedHostFile, "--from", sweep, "--target-rate", rate)
		if took := time.Since(start); took > time.Second {
			t.Errorf("target-rate %s took %v", rate, took)
		}
		if o.code != ExitUsage || !strings.Contains(o.stderr, "target-rate "+rate+": right-size: no VM fits") ||
			!strings.Contains(o.stderr, "more than any VM can have (4096); this host's 24 cores carry at most 4800/s at 80%") || strings.Contains(o.stdout, "PASS") {
			t.Errorf("target-rate %s: exit %d\n%s%s", rate, o.code, o.stdout, o.stderr)
		}
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml") // a host description that is not one
	if err := os.WriteFile(big, bytes.Repeat([]byte("# \n"), 400000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--vm", "db:vcpu=16,mem=8GB,vcpu=32"}, "vm db: vcpu given twice"},
		{[]string{"--vm", "db:vcpu=99999999999"}, "at most 4096"},
		{[]string{"--vm", "db:vcpu=4,mem=2PiB"}, "at most 1 PiB"},
		{[]string{"--from", sweep, "--target-rate", "100", "--mem", "2000TB"}, "mem 2000TB: at most 1 PiB"},
		{[]string{"--from", sweep, "--target-rate", "100", "--cpu-target", "0"}, "cpu-target 0"},
		{[]string{"--host", big}, big + ": larger than 64 KiB: not a host description"},
		{[]string{"--vms", big}, big + ": larger than 1 MiB: not a VM list"},
	} {
		args := append([]string{"plan", "--host", seedHostFile}, c.args...)
		if o := run(t, ctx, args...); o.code != ExitUsage || !strings.Contains(o.stderr, c.want) || strings.Count(o.stderr, "rightsize:") != 1 {
			t.Errorf("%v: exit %d, want %d and %q\n%s", c.args, o.code, ExitUsage, c.want, o.stderr)
		}
	}
	if o := run(t, ctx, "plan", "--host", dir); o.code != ExitFailure || !strings.Contains(o.stderr, "is a directory") {
		t.Errorf("a directory as host: exit %d\n%s", o.code, o.stderr)
	}
	// A sweep that never ends (a device) is refused before it is read.
	if o := run(t, ctx, "plan", "--host", seedHostFile, "--from", os.DevNull, "--target-rate", "3x"); o.code != ExitFailure || !strings.Contains(o.stderr, "not read: it is a device") {
		t.Errorf("--from a device: exit %d\n%s", o.code, o.stderr)
	}
}

// A VM too big for a host without hyperthreads is explained without
// hyperthreads; a right-sizing beyond the host says why, in its reasons,
// its JSON and the headline, with what the host carries.
func TestPlanBeyondASmallHost(t *testing.T) {
	ctx := context.Background()
	const noHT = "../topology/testdata/small-noht.yaml"
	o := run(t, ctx, "plan", "--host", noHT, "--vm", "db:vcpu=4")
	if o.code != ExitFailure || !strings.Contains(o.stdout, "4 vCPUs > 2 physical cores (no hyperthreads on this host: one vCPU per core)") ||
		strings.Contains(o.stdout, "hyperthreads are not cores") || strings.Contains(o.stdout, "sibling") {
		t.Errorf("4 vCPUs on 2 cores without HT: exit %d\n%s", o.code, o.stdout)
	}
	// 4 ms × 3x of 100/s = 1.2 cores, 1.5 vCPUs at 80 %: fits 2 cores;
	// 6x: 3 vCPUs, more than 2 cores, which carry 400/s, 4x.
	sweep := writePlanSweep(t)
	b, _ := os.ReadFile(sweep)
	var sw result.Sweep
	if err := json.Unmarshal(b, &sw); err != nil {
		t.Fatal(err)
	}
	sw.BaselineRate = 100
	b, _ = json.Marshal(sw)
	if err := os.WriteFile(sweep, b, 0o644); err != nil {
		t.Fatal(err)
	}
	o = run(t, ctx, "plan", "--host", noHT, "--from", sweep, "--target-rate", "6x", "--format", "json")
	var r sizing.Report
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil || r.Sizing == nil || o.code != ExitFailure {
		t.Fatalf("6x: exit %d, %v\n%s%s", o.code, err, o.stdout, o.stderr)
	}
	want := "No VM on this host carries 6x (600/s): it needs 3.0 vCPUs at 80% peak CPU and the host has 2 physical cores, which carry at most 4x (400/s) at 80%."
	if r.Sizing.Limit != want || !strings.Contains(strings.Join(r.Sizing.Reasons, " "), want) {
		t.Errorf("limit %q\nwant  %q\nreasons %q", r.Sizing.Limit, want, r.Sizing.Reasons)
	}
	if o := run(t, ctx, "plan", "--host", noHT, "--from", sweep, "--target-rate", "1e308x"); o.code != ExitUsage || !strings.Contains(o.stderr, "target-rate 1e308x: 1e308x of the baseline 100/s is past any number") {
		t.Errorf("1e308x: exit %d\n%s", o.code, o.stderr)
	}
	lines := report.Headline(report.Doc{Plan: &r})
	if got := strings.Join(lines, "\n"); !strings.Contains(got, "FAIL. "+want) {
		t.Errorf("headline lacks why:\n%s", got)
	}
}

// The response curve the planner interpolates runs up to the sweep's knee,
// the one its verdict names (Result.Knee: here the SLO method's, at
// threads 8), not the earliest any method found (the marginal method's,
// at threads 2).
func TestResponseCurveEndsAtTheChosenKnee(t *testing.T) {
	host := func(busy float64) *result.Host {
		return &result.Host{CPUs: 4, CPU: result.CPUPct{User: busy * 0.7, System: busy * 0.3, Idle: 100 - busy}}
	}
	sw := &result.Sweep{SchemaVersion: result.SchemaVersion, ID: "S", Workload: "oltp_read_only", Axis: "threads", HostIsServer: true, SLOMs: 10, Steps: []result.SweepStep{
		{Label: "threads 1", X: 1, Throughput: 100, AvgMs: 1, P99Ms: 1, Host: host(20)},
		{Label: "threads 2", X: 2, Throughput: 200, AvgMs: 1, P99Ms: 1, Host: host(40)},
		{Label: "threads 4", X: 4, Throughput: 210, AvgMs: 2, P99Ms: 2, Host: host(60)},
		{Label: "threads 8", X: 8, Throughput: 215, AvgMs: 3, P99Ms: 3, Host: host(70)},
		{Label: "threads 16", X: 16, Throughput: 216, AvgMs: 40, P99Ms: 50, Host: host(75)},
	}}
	r := analysis.Analyze(sw, analysis.OptionsOf(sw))
	k, ok := analysis.PrimaryKnee(r)
	if !ok || k.Method != "slo" || k.Index != 3 {
		t.Fatalf("the sweep's knee %+v (%v): want the slo method's at threads 8", k, ok)
	}
	earliest := len(r.Steps)
	for _, k := range r.Knees {
		if k.Index >= 0 {
			earliest = min(earliest, k.Index)
		}
	}
	if earliest >= k.Index {
		t.Fatalf("no method found a knee before the sweep's: knees %+v", r.Knees)
	}
	if curve := sizing.ResponseCurve(r, 0); len(curve) != k.Index+1 {
		t.Errorf("curve of %d points, want %d (up to the knee at %s): %+v", len(curve), k.Index+1, r.Steps[k.Index].Label, curve)
	}
}

// plan --from a lock-bound sweep (the database's sessions on row locks,
// the host's CPUs 40 % busy) at a rate past its knee gives no VM and exits
// 1, naming the class and what would have to change.
func TestPlanRefusesAKneeCPUDidNotCause(t *testing.T) {
	host := func(busy float64) *result.Host {
		return &result.Host{CPUs: 4, CPU: result.CPUPct{User: busy * 0.7, System: busy * 0.3, Idle: 100 - busy}}
	}
	locks := func(pct int64) *result.ServerStats {
		return &result.ServerStats{Source: "pg_stat_activity", IntervalMs: 100, Samples: 100, Active: 800,
			Waits: []result.Wait{{Type: "Lock", Event: "transactionid", Samples: 8 * pct}, {Type: "CPU", Samples: 8 * (100 - pct)}}}
	}
	sw := &result.Sweep{SchemaVersion: result.SchemaVersion, ID: "L", Workload: "oltp_update_index", Axis: "threads", HostIsServer: true, Steps: []result.SweepStep{
		{Label: "threads 1", X: 1, Throughput: 900, AvgMs: 1.1, P99Ms: 2, Host: host(15), ServerStats: locks(10)},
		{Label: "threads 2", X: 2, Throughput: 1750, AvgMs: 1.1, P99Ms: 2.2, Host: host(28), ServerStats: locks(30)},
		{Label: "threads 4", X: 4, Throughput: 2813, AvgMs: 1.4, P99Ms: 3, Host: host(40), ServerStats: locks(62)},
		{Label: "threads 8", X: 8, Throughput: 2790, AvgMs: 2.9, P99Ms: 9, Host: host(41), ServerStats: locks(80)},
	}}
	path := filepath.Join(t.TempDir(), "locks.json")
	b, _ := json.Marshal(sw)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	o := run(t, context.Background(), "plan", "--host", "../topology/testdata/seed-host.yaml", "--from", path, "--target-rate", "5000")
	if o.code != ExitFailure || !strings.Contains(o.stdout, "right-size: no VM: 5000/s is past a knee CPU did not cause (row/table locks): FAIL") ||
		!strings.Contains(o.stdout, "hot rows") || strings.Contains(o.stdout, "PASS") {
		t.Errorf("5000/s past a lock-bound knee at 2813/s: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := run(t, context.Background(), "plan", "--host", "../topology/testdata/seed-host.yaml", "--from", path, "--target-rate", "2000"); o.code != 0 {
		t.Errorf("2000/s, within the knee: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}
