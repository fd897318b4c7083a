package sizing

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The seed study's host: 2 sockets × 12 cores, hyperthreaded.
var seedHost = SimHost{Cores: 24, ThreadsPerCore: 2, HTGain: 0.2}

func simulate(t *testing.T, cfg SimSetup, vms ...SimVM) []SimResult {
	t.Helper()
	res, err := Simulate(cfg, vms)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(vms) {
		t.Fatalf("%d results for %d VMs", len(res), len(vms))
	}
	for i, r := range res {
		if r.Name != vms[i].Name {
			t.Errorf("result %d is %q, want %q", i, r.Name, vms[i].Name)
		}
		// Run, ready and co-stop are shares of vCPU time and leave idle.
		sum := r.ReadyPct + r.CoStopPct + r.RunPct
		if r.ReadyPct < 0 || r.CoStopPct < 0 || r.HTLossPct < 0 || r.HTLossPct > r.RunPct || sum > 100+1e-6 {
			t.Errorf("%s: ready %.3g + co-stop %.3g + run %.3g (HT loss %.3g) is not a share of vCPU time", r.Name, r.ReadyPct, r.CoStopPct, r.RunPct, r.HTLossPct)
		}
		if r.Delivered < 0 || r.Delivered > 1 || r.ResponseFactor < 1-1e-9 {
			t.Errorf("%s: delivered %g, response factor %g out of range", r.Name, r.Delivered, r.ResponseFactor)
		}
	}
	return res
}

// (a) One 12-vCPU VM half busy on the 24-core host: no contention.
func TestSimAloneIsUncontended(t *testing.T) {
	r := simulate(t, SimSetup{Host: seedHost, Seed: 1}, SimVM{Name: "db", VCPUs: 12, Busy: 0.5})[0]
	t.Logf("alone: %+v", r)
	if r.ReadyPct >= 2 || r.Delivered <= 0.98 {
		t.Errorf("ready %.3g%%, delivered %.4f; want < 2%% and > 0.98", r.ReadyPct, r.Delivered)
	}
	// 12 vCPUs on 24 cores never share a core: nothing is lost at all.
	if r.ReadyPct != 0 || r.CoStopPct != 0 || r.HTLossPct != 0 || math.Abs(r.Delivered-1) > 1e-9 || math.Abs(r.ResponseFactor-1) > 1e-9 {
		t.Errorf("alone on the host and still delayed: %+v", r)
	}
	if math.Abs(r.RunPct-50) > 2 {
		t.Errorf("run %.3g%%, want about the demanded 50%%", r.RunPct)
	}
}

// (b) The seed study's consolidation: two busy 24-vCPU VMs on the 24-core
// host, measured at −16 % throughput and +50 % response time per VM.
func TestSimConsolidationSeedExample(t *testing.T) {
	alone := simulate(t, SimSetup{Host: seedHost, Seed: 1}, SimVM{Name: "db", VCPUs: 12, Busy: 0.5})[0]
	res := simulate(t, SimSetup{Host: seedHost, Seed: 1},
		SimVM{Name: "db1", VCPUs: 24, Busy: 0.85}, SimVM{Name: "db2", VCPUs: 24, Busy: 0.85})
	for _, r := range res {
		t.Logf("consolidated: %+v", r)
		if r.Delivered < 0.6 || r.Delivered > 0.95 {
			t.Errorf("%s delivered %.3f, want clearly below 1 (0.6..0.95)", r.Name, r.Delivered)
		}
		if r.ResponseFactor <= 1.2 {
			t.Errorf("%s response factor %.3f, want > 1.2", r.Name, r.ResponseFactor)
		}
		// 48 vCPUs on 48 logical CPUs: a vCPU always finds a thread, so the
		// model's ready time stays near zero here; the loss is the shared
		// cores'. Contention (ready + co-stop + HT loss) is what rises.
		cont := r.ReadyPct + r.CoStopPct + r.HTLossPct
		if cont < 10+alone.ReadyPct+alone.CoStopPct+alone.HTLossPct {
			t.Errorf("%s contention %.3g%%, want well above alone (%.3g%%)", r.Name, cont, alone.ReadyPct+alone.CoStopPct+alone.HTLossPct)
		}
	}
	// The two identical VMs come out alike.
	if d := math.Abs(res[0].Delivered - res[1].Delivered); d > 0.02 {
		t.Errorf("identical VMs differ by %.3f in delivered share", d)
	}
}

// (b') The same consolidation with hyperthreading off: 48 vCPUs on 24
// logical CPUs, where ready and co-stop time appear.
func TestSimConsolidationWithoutHT(t *testing.T) {
	host := SimHost{Cores: 24, ThreadsPerCore: 1}
	alone := simulate(t, SimSetup{Host: host, Seed: 1}, SimVM{Name: "db", VCPUs: 12, Busy: 0.5})[0]
	res := simulate(t, SimSetup{Host: host, Seed: 1},
		SimVM{Name: "db1", VCPUs: 24, Busy: 0.85}, SimVM{Name: "db2", VCPUs: 24, Busy: 0.85})
	for _, r := range res {
		t.Logf("no HT: %+v", r)
		if r.ReadyPct < 10+alone.ReadyPct {
			t.Errorf("%s ready %.3g%%, want well above alone (%.3g%%)", r.Name, r.ReadyPct, alone.ReadyPct)
		}
		if r.CoStopPct <= 0 {
			t.Errorf("%s: no co-stop although its vCPUs wait unevenly", r.Name)
		}
		// 24 cores for a demand of 40.8: at most 24/40.8 = 0.59 each.
		if r.Delivered > 24/40.8+0.01 || r.Delivered < 0.5 {
			t.Errorf("%s delivered %.3f, want just under 24/40.8 = 0.588", r.Name, r.Delivered)
		}
	}
	// Without co-scheduling the same VMs wait but never co-stop.
	free := simulate(t, SimSetup{Host: host, Seed: 1, SkewLimit: -1},
		SimVM{Name: "db1", VCPUs: 24, Busy: 0.85}, SimVM{Name: "db2", VCPUs: 24, Busy: 0.85})
	for _, r := range free {
		t.Logf("no HT, no co-scheduling: %+v", r)
		if r.CoStopPct != 0 || r.ReadyPct < 10 {
			t.Errorf("%s without co-scheduling: co-stop %.3g%%, ready %.3g%%", r.Name, r.CoStopPct, r.ReadyPct)
		}
	}
}

// (c) The same seed gives the same result; another seed another one.
func TestSimDeterministic(t *testing.T) {
	cfg := SimSetup{Host: seedHost, Duration: 2 * time.Second, Seed: 42}
	vms := []SimVM{{Name: "a", VCPUs: 24, Busy: 0.85}, {Name: "b", VCPUs: 24, Busy: 0.85}, {Name: "c", VCPUs: 8, Busy: 0.3}}
	first := simulate(t, cfg, vms...)
	second := simulate(t, cfg, vms...)
	if !reflect.DeepEqual(first, second) {
		t.Errorf("same seed, different results:\n%+v\n%+v", first, second)
	}
	cfg.Seed = 43
	if other := simulate(t, cfg, vms...); reflect.DeepEqual(first, other) {
		t.Error("another seed gave identical results")
	}
}

// (d) A one-vCPU VM has no siblings to wait for, however busy the host.
func TestSimSingleVCPUNeverCoStops(t *testing.T) {
	host := SimHost{Cores: 4, ThreadsPerCore: 1}
	res := simulate(t, SimSetup{Host: host, Seed: 7, Duration: 3 * time.Second},
		SimVM{Name: "small", VCPUs: 1, Busy: 0.9}, SimVM{Name: "wide", VCPUs: 4, Busy: 0.9}, SimVM{Name: "tiny", VCPUs: 1, Busy: 0.5})
	if res[0].CoStopPct != 0 || res[2].CoStopPct != 0 {
		t.Errorf("one-vCPU VMs co-stopped: %+v, %+v", res[0], res[2])
	}
	if res[0].ReadyPct == 0 {
		t.Errorf("the host is over-committed but the one-vCPU VM never waited: %+v", res[0])
	}
	if res[1].CoStopPct == 0 {
		t.Errorf("the 4-vCPU VM on an over-committed host never co-stopped: %+v", res[1])
	}
}

// (e) Demand beyond the host: the logical CPUs stay busy and each VM gets
// its share of the capacity — delivered ≈ capacity / demand, where the
// capacity is cores × (1 + HTGain) with every sibling busy, cores without
// HT. Tolerance 3 % of the ratio.
func TestSimSaturation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		host     SimHost
		vms      []SimVM
		capacity float64 // cores of work per second
	}{
		{"HT, always busy", SimHost{Cores: 4, ThreadsPerCore: 2, HTGain: 0.2},
			[]SimVM{{Name: "a", VCPUs: 8, Busy: 1}, {Name: "b", VCPUs: 8, Busy: 1}}, 4 * 1.2},
		{"HT, 90 % busy", SimHost{Cores: 4, ThreadsPerCore: 2, HTGain: 0.2},
			[]SimVM{{Name: "a", VCPUs: 8, Busy: 0.9}, {Name: "b", VCPUs: 8, Busy: 0.9}}, 4 * 1.2},
		{"no HT, 90 % busy", SimHost{Cores: 4, ThreadsPerCore: 1},
			[]SimVM{{Name: "a", VCPUs: 4, Busy: 0.9}, {Name: "b", VCPUs: 4, Busy: 0.9}}, 4},
		{"no HT, 4:1", SimHost{Cores: 2, ThreadsPerCore: 1},
			[]SimVM{{Name: "a", VCPUs: 2, Busy: 1}, {Name: "b", VCPUs: 2, Busy: 1}, {Name: "c", VCPUs: 2, Busy: 1}, {Name: "d", VCPUs: 2, Busy: 1}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := simulate(t, SimSetup{Host: tc.host, Seed: 3, Duration: 5 * time.Second}, tc.vms...)
			demand := 0.0
			for _, vm := range tc.vms {
				demand += float64(vm.VCPUs) * vm.Busy
			}
			want := tc.capacity / demand
			for _, r := range res {
				if math.Abs(r.Delivered-want) > 0.03*want {
					t.Errorf("%s delivered %.4f, want capacity/demand = %.4f ± 3%%: %+v", r.Name, r.Delivered, want, r)
				}
			}
		})
	}
}

// (f) Against the M/M/c model: no HT, no co-scheduling, many one-vCPU VMs
// keeping 70 % of the cores busy. The simulation's vCPUs are a finite
// population whose next burst waits for the last (fewer queue than with
// Poisson arrivals), so only agreement within a factor 2 is asked.
func TestSimMatchesErlangC(t *testing.T) {
	const cores = 8
	host := SimHost{Cores: cores, ThreadsPerCore: 1}
	var vms []SimVM
	for range 112 {
		vms = append(vms, SimVM{Name: "vm", VCPUs: 1, Busy: 0.05}) // 5.6 Erlangs
	}
	res := simulate(t, SimSetup{Host: host, SkewLimit: -1, Seed: 11, Duration: 20 * time.Second}, vms...)
	var ready, run float64
	for _, r := range res {
		ready += r.ReadyPct
		run += r.RunPct
	}
	sim := ready / (ready + run)
	model := ReadyShare(cores, 0.7*cores)
	t.Logf("ready share: simulated %.4f, M/M/%d %.4f", sim, cores, model)
	if sim < model/2 || sim > model*2 {
		t.Errorf("simulated ready share %.4f, M/M/c %.4f: not within a factor 2", sim, model)
	}
}

func TestSimRejectsBadInput(t *testing.T) {
	_, err := Simulate(SimSetup{Host: SimHost{Cores: 0, ThreadsPerCore: -1, HTGain: 1.5}, Quantum: -time.Millisecond},
		[]SimVM{{Name: "x", VCPUs: 0, Busy: 1.2}, {Name: "y", VCPUs: 2, Busy: math.NaN()}})
	if err == nil {
		t.Fatal("no error for a host with no cores")
	}
	for _, want := range []string{"0 cores", "threads per core", "gain 1.5", "quantum", `"x"): 0 vCPUs`, `"x"): busy share 1.2`, `"y"): busy share NaN`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if _, err := Simulate(SimSetup{Host: seedHost}, nil); err == nil {
		t.Error("no error for no VMs")
	}
	if _, err := Simulate(SimSetup{Host: seedHost, Duration: time.Hour, MeanBurst: time.Microsecond},
		[]SimVM{{Name: "big", VCPUs: 24, Busy: 0.5}}); err == nil || !strings.Contains(err.Error(), "mean bursts") {
		t.Errorf("a run of 3.6e9 bursts was not refused: %v", err)
	}
	if _, err := Simulate(SimSetup{Host: SimHost{Cores: 1000}, Duration: time.Minute},
		[]SimVM{{Name: "huge", VCPUs: 2000, Busy: 0.5}}); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("a huge run was not refused: %v", err)
	}
}

func TestSimEdgeVMs(t *testing.T) {
	res := simulate(t, SimSetup{Host: seedHost, Seed: 5, Duration: time.Second},
		SimVM{Name: "idle", VCPUs: 4, Busy: 0}, SimVM{Name: "spin", VCPUs: 4, Busy: 1})
	if r := res[0]; r.RunPct != 0 || r.Delivered != 1 || r.ResponseFactor != 1 {
		t.Errorf("a VM that demands nothing: %+v", r)
	}
	if r := res[1]; math.Abs(r.RunPct-100) > 1e-6 || math.Abs(r.Delivered-1) > 1e-9 {
		t.Errorf("a spinning VM alone on the host: %+v", r)
	}
}

// Two 24-vCPU VMs over 10 s in well under a second: about 0.1 s here, 1.2 s
// with -race; the bound is generous for slow or shared machines.
func TestSimIsFast(t *testing.T) {
	start := time.Now()
	simulate(t, SimSetup{Host: seedHost, Seed: 9},
		SimVM{Name: "a", VCPUs: 24, Busy: 0.85}, SimVM{Name: "b", VCPUs: 24, Busy: 0.85})
	el := time.Since(start)
	t.Logf("2 × 24 vCPUs, 10 s simulated: %v", el)
	if el > 5*time.Second {
		t.Errorf("took %v", el)
	}
}

func BenchmarkSimulateSeedExample(b *testing.B) {
	vms := []SimVM{{Name: "a", VCPUs: 24, Busy: 0.85}, {Name: "b", VCPUs: 24, Busy: 0.85}}
	for b.Loop() {
		if _, err := Simulate(SimSetup{Host: seedHost, Seed: 9}, vms); err != nil {
			b.Fatal(err)
		}
	}
}
