package sizing

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/topology"
)

// A rate that needs more vCPUs than any VM can have is refused at once
// (ErrNoVMFits, naming what the host carries), never looped over nor
// overflowed into "1 vCPUs ... PASS".
func TestRightSizeHugeRate(t *testing.T) {
	for _, rate := range []float64{1e14, 1e25, 1e300} {
		start := time.Now()
		s, err := RightSize(SizeRequest{Host: seedTopology(), CoreSecondsPerEvent: 0.0025, Rate: rate, CPUTargetPct: 80})
		if took := time.Since(start); took > time.Second {
			t.Errorf("rate %g took %v", rate, took)
		}
		if !errors.Is(err, ErrNoVMFits) {
			t.Fatalf("rate %g: sizing %d vCPUs, %v: want ErrNoVMFits", rate, s.VCPU, err)
		}
		for _, want := range []string{"more than any VM can have (4096)", "this host's 24 cores carry at most 7680/s at 80%"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("rate %g: %v: lacks %q", rate, err, want)
			}
		}
	}
	// Just within the bound: 4096 vCPUs answer (on no host: no layout), quickly.
	start := time.Now()
	s, err := RightSize(SizeRequest{Host: seedTopology(), CoreSecondsPerEvent: 0.001, Rate: 4096 * 800, CPUTargetPct: 80,
		Curve: []CurvePoint{{10, 1, 2}, {20, 1.1, 2.5}}})
	if err != nil || s.VCPU != MaxVCPU || s.Plan.Worst() != Fail || s.ResponseBasis != "queueing estimate" || time.Since(start) > 100*time.Millisecond {
		t.Errorf("4096 vCPUs: %+v, %v in %v", s, err, time.Since(start))
	}
}

// A sizing beyond the host's cores says why in one sentence (Limit), in
// its reasons too, with the most the host carries as a multiple of the
// baseline.
func TestRightSizeSaysWhyItFails(t *testing.T) {
	small := topology.Host{Sockets: 1, CoresPerSocket: 2, ThreadsPerCore: 1, NUMANodes: 1, MemoryPerNode: 8 * gib}
	// 2.48 ms × 1200/s = 2.98 cores; at 80 %: 3.72 vCPUs → 4 on 2 cores.
	s, err := RightSize(SizeRequest{Host: small, CoreSecondsPerEvent: 0.00248, Rate: 1200, Baseline: 400, RateText: "3x of the baseline 400/s = 1200/s", CPUTargetPct: 80})
	if err != nil || s.Plan.Worst() != Fail {
		t.Fatalf("%+v, %v", s, err)
	}
	// 2 cores at 80 % carry 1.6 / 0.00248 = 645/s, 1.61x.
	want := "No VM on this host carries 3x (1200/s): it needs 3.7 vCPUs at 80% peak CPU and the host has 2 physical cores, which carry at most 1.61x (645.2/s) at 80%."
	if s.Limit != want {
		t.Errorf("limit %q\nwant  %q", s.Limit, want)
	}
	if !strings.Contains(strings.Join(s.Reasons, " "), want) {
		t.Errorf("reasons lack the limit: %q", s.Reasons)
	}
	// Within the host: no limit.
	s, err = RightSize(SizeRequest{Host: small, CoreSecondsPerEvent: 0.00248, Rate: 400, CPUTargetPct: 80})
	if err != nil || s.Limit != "" || s.Plan.Worst() == Fail {
		t.Errorf("1x: %+v, %v", s, err)
	}
	// Failing for memory, not cores: the limit names the failing rule.
	s, err = RightSize(SizeRequest{Host: small, CoreSecondsPerEvent: 0.00248, Rate: 400, CPUTargetPct: 80, Memory: 64 * gib})
	if err != nil || !strings.Contains(s.Limit, "memory-fits-host") {
		t.Errorf("64 GiB on 8: limit %q, %v", s.Limit, err)
	}
}

// On a host without hyperthreads, too many vCPUs are explained without
// hyperthreads; with them, the sibling is named.
func TestVCPUWithinCoresWords(t *testing.T) {
	noHT := topology.Host{Sockets: 1, CoresPerSocket: 2, ThreadsPerCore: 1, NUMANodes: 1}
	p := CheckVM(noHT, VM{Name: "db", VCPU: 4})
	check(t, p, "vcpu-within-cores", Fail, "4 vCPUs > 2 physical cores", "no hyperthreads")
	for _, c := range p.Checks {
		if c.Rule == "vcpu-within-cores" && (strings.Contains(c.Detail, "sibling") || strings.Contains(c.Detail, "hyperthreads are not cores")) {
			t.Errorf("non-HT host explained by hyperthreading: %q", c.Detail)
		}
		if c.Rule == "fits-numa-node" && strings.Contains(c.Detail, "allowed") {
			t.Errorf("a VM larger than the host is called an allowed wide VM: %q", c.Detail)
		}
	}
	p = CheckVM(seedTopology(), VM{Name: "db", VCPU: 36})
	check(t, p, "vcpu-within-cores", Fail, "36 vCPUs > 24 physical cores (48 logical CPUs: ", "hyperthreads are not cores")
}

// Every numeric setting of a VM is bounded, and a setting given twice
// (under either of its names) is refused.
func TestParseVMSpecBounds(t *testing.T) {
	for spec, want := range map[string]string{
		"db:vcpu=16,mem=8GB,vcpu=32":   "vcpu given twice",
		"db:vcpu=16,vcpus=32":          "vcpu given twice",
		"db:vcpu=4,mem=1GB,memory=2GB": "mem given twice",
		"db:vcpu=4,busy=0.5,busy=0.6":  "busy given twice",
		"db:vcpu=99999999999":          "at most 4096",
		"db:vcpu=4,cps=5000":           "at most 4096",
		"db:vcpu=4,mem=2PiB":           "at most 1 PiB",
	} {
		if _, err := ParseVMSpec(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", spec, err, want)
		}
	}
	if _, err := ParseVMs([]byte("- name: a\n  vcpu: 2\n  vcpus: 4\n"), "vms.yaml"); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("vcpu and vcpus in one VM: %v", err)
	}
	if _, err := ParseVMs([]byte("- name: a\n  vcpu: 5000\n"), "vms.yaml"); err == nil || !strings.Contains(err.Error(), "at most 4096") {
		t.Errorf("vcpu 5000: %v", err)
	}
}

// ErlangC costs O(√a), not O(c): a million servers answer at once, and
// agree with the recursion where both run.
func TestErlangCLargeC(t *testing.T) {
	start := time.Now()
	if p := ErlangC(1<<40, 1e6); p != 0 || time.Since(start) > 100*time.Millisecond {
		t.Errorf("ErlangC(2^40, 1e6) = %g in %v", p, time.Since(start))
	}
	start = time.Now()
	p := ErlangC(1_000_100, 1e6)
	if !(p > 0 && p < 1) || time.Since(start) > 100*time.Millisecond {
		t.Errorf("ErlangC(1000100, 1e6) = %g in %v", p, time.Since(start))
	}
	for _, c := range []int{1, 2, 5, 24, 100, 1000, 4096} {
		for _, f := range []float64{0.01, 0.3, 0.8, 0.95, 0.999} {
			a := f * float64(c)
			if got, want := ErlangC(c, a), erlangCRecursion(c, a); math.Abs(got-want) > 1e-12*max(want, 1e-300) && math.Abs(got-want) > 1e-300 {
				t.Errorf("ErlangC(%d, %g) = %.17g, recursion %.17g", c, a, got, want)
			}
		}
	}
}

// erlangCRecursion is the O(c) Erlang B recursion, for comparison.
func erlangCRecursion(c int, a float64) float64 {
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	fc := float64(c)
	return math.Min(1, math.Max(0, fc*b/(fc-a*(1-b))))
}
