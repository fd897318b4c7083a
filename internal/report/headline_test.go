package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/sizing"
	"github.com/rightsize/rightsize/internal/topology"
)

// headSweep is a sweep whose knee is at 4 threads, CPU-bound there.
func headSweep(slo float64) *analysis.Result {
	sw := &result.Sweep{ID: "s", Workload: "oltp_read_write", Axis: "threads", HostIsServer: true, SLOMs: slo, Steps: []result.SweepStep{
		{Label: "threads 1", X: 1, Throughput: 100, P99Ms: 2, Host: &result.Host{CPUs: 2, CPU: result.CPUPct{User: 20, System: 5}}},
		{Label: "threads 2", X: 2, Throughput: 200, P99Ms: 2, Host: &result.Host{CPUs: 2, CPU: result.CPUPct{User: 45, System: 5}}},
		{Label: "threads 4", X: 4, Throughput: 390, P99Ms: 4, Host: &result.Host{CPUs: 2, CPU: result.CPUPct{User: 85, System: 10}}},
		{Label: "threads 8", X: 8, Throughput: 400, P99Ms: 30, Host: &result.Host{CPUs: 2, CPU: result.CPUPct{User: 88, System: 10}}},
	}}
	return analysis.Analyze(sw, analysis.OptionsOf(sw))
}

func TestHeadlineOfASweep(t *testing.T) {
	got := strings.Join(Headline(Doc{Sweep: headSweep(10)}), " ")
	for _, want := range []string{
		"Knee: threads 4 (slo method): 390/s, p99 4 ms.",
		"Bottleneck at the knee: CPU-bound: the host (database and load generator) was 95% busy",
		"Most throughput within the SLO (p99 ≤ 10 ms): 390/s at threads 4 (p99 4 ms).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("headline lacks %q:\n%s", want, got)
		}
	}
	got = strings.Join(Headline(Doc{Sweep: headSweep(0)}), " ")
	if !strings.Contains(got, "Most throughput: 400/s at threads 8 (p99 30 ms).") || strings.Contains(got, "SLO") {
		t.Errorf("headline without an SLO:\n%s", got)
	}
}

func TestHeadlineOfARunAndAPlan(t *testing.T) {
	r := &result.Run{Event: "transaction", Config: "24 vCPU", Summary: result.Summary{Throughput: 1803.2, Offered: 2000, Latency: result.Latency{AvgMs: 2.2, P99Ms: 4.11}}}
	p := &sizing.Report{Sizing: &sizing.Sizing{Plan: sizing.VMCheck{VM: sizing.VM{VCPU: 8}, Layout: sizing.Layout{Fits: true, VNUMANodes: 2, VCPUPerNode: 4, Sockets: 2, CoresPerSocket: 4},
		Checks: []sizing.Check{{Status: sizing.Pass}, {Status: sizing.Warn}}}}}
	got := Headline(Doc{Runs: []*result.Run{r}, Plan: p})
	want := []string{
		"24 vCPU: 1803/s (transactions), response time avg 2.2 ms, p99 4.11 ms, of 2000/s offered.",
		"Planned VM: 8 vCPUs, 2 vNUMA nodes of 4 vCPUs, 2 sockets × 4 cores: WARN.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("headline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The answer opens every form of the report: the HTML page before its
// first table or chart, the Markdown and text documents after the title.
func TestHeadlineComesFirst(t *testing.T) {
	sw := headSweep(10)
	var b bytes.Buffer
	if err := HTML(&b, Doc{Title: "t", Sweep: sw, Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	at := strings.Index(page, `<section class="answer"`)
	for _, later := range []string{"<table", "<figure", "<h2"} {
		if i := strings.Index(page, later); at < 0 || (i >= 0 && i < at) {
			t.Errorf("the answer (at %d) is not before the first %s (at %d)", at, later, i)
		}
	}
	for _, f := range []Format{Markdown, Text} {
		b.Reset()
		if err := SweepReport(&b, sw, f); err != nil {
			t.Fatal(err)
		}
		doc := b.String()
		if a, s := strings.Index(doc, "Knee: threads 4"), strings.Index(doc, "steps"); a < 0 || a > s {
			t.Errorf("format %v: the answer is not before the steps:\n%s", f, doc)
		}
	}
}

func TestMs(t *testing.T) {
	for v, want := range map[float64]string{4.11: "4.11 ms", 0.052: "0.052 ms", 68.94: "68.9 ms", 689.4: "689 ms", 9974.1: "9974 ms", 12884.9: "12.9 s"} {
		if got := Ms(v); got != want {
			t.Errorf("Ms(%v) = %q, want %q", v, got, want)
		}
	}
}

// A planned VM larger than the host has no layout: the headline gives its
// vCPUs and verdict and no vNUMA nodes or sockets that do not add up to
// them (3 vCPUs on a 2-core host were "2 vNUMA node(s) of 1 vCPUs, 2
// socket(s) × 1 cores"); the reasons count cores in words that agree.
func TestHeadlineOfAVMThatDoesNotFit(t *testing.T) {
	small := topology.Host{Sockets: 1, CoresPerSocket: 2, ThreadsPerCore: 1, NUMANodes: 1, MemoryPerNode: 8 << 30}
	// 2.2 busy cores at 80 % need 2.75 vCPUs: 3, one core more than the host has.
	s, err := sizing.RightSize(sizing.SizeRequest{Host: small, CoreSecondsPerEvent: 0.0022, Rate: 1000, CPUTargetPct: 80})
	if err != nil {
		t.Fatal(err)
	}
	if s.VCPU != 3 || s.Plan.Layout.Fits {
		t.Fatalf("sizing %d vCPUs, fits %v: want 3 that do not fit", s.VCPU, s.Plan.Layout.Fits)
	}
	got := strings.Join(Headline(Doc{Plan: &sizing.Report{Host: small, Sizing: &s}}), "\n")
	if !strings.HasPrefix(got, "Planned VM: recommended 3 vCPUs") || !strings.Contains(got, "FAIL") {
		t.Errorf("headline %q: want the 3 vCPUs and FAIL", got)
	}
	for _, bad := range []string{"vNUMA", "socket", "of 1 vCPUs", "1 cores"} {
		if strings.Contains(got, bad) {
			t.Errorf("headline %q: %q, a layout the VM cannot have", got, bad)
		}
	}
	if words := strings.Join(s.Reasons, " "); strings.Contains(words, "(1 cores short)") || !strings.Contains(words, "(1 core short)") {
		t.Errorf("reasons %q: want '(1 core short)'", words)
	}
}

// The headline names the slowest of the frequently used transaction types
// at the knee, and its p95 one step further.
func TestHeadlineNamesTheSlowestFrequentType(t *testing.T) {
	sw := headSweep(10)
	for i := range sw.Steps {
		k := float64(i + 1)
		sw.Steps[i].Types = []result.Type{{Name: "new_order", SharePct: 45, P95Ms: 3 * k, Frequent: true}, {Name: "payment", SharePct: 43, P95Ms: k, Frequent: true}}
		sw.Steps[i].SlowestFrequent = "new_order"
	}
	got := strings.Join(Headline(Doc{Sweep: sw}), " ")
	if want := "Slowest of the frequently used transactions there: new_order, p95 9 ms (45% of the mix); at threads 8, p95 12 ms."; !strings.Contains(got, want) {
		t.Errorf("headline lacks %q:\n%s", want, got)
	}
}

// A run in which no event completed has no response time to show: its
// latency figures are only those of the events in flight at the end.
func TestHeadlineOfARunWithNoneCompleted(t *testing.T) {
	r := &result.Run{Event: "transaction", Summary: result.Summary{Errors: 500, Censored: 1, Latency: result.Latency{AvgMs: 0.7, P99Ms: 0.7}}}
	got := Headline(Doc{Runs: []*result.Run{r}})
	if want := "0/s (transactions): none completed in the window."; len(got) != 1 || got[0] != want {
		t.Errorf("headline %q, want %q", got, want)
	}
}
