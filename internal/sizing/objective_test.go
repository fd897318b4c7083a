package sizing

import (
	"container/heap"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// TestWaitP99MM1: on one CPU the wait of M/M/1 exceeds t with
// probability ρ·e^(−(μ−λ)t), whose p99 is ln(ρ/0.01)/(μ − λ); a quota of
// half a CPU is one CPU at half speed; a queue that waits less than 1 % of
// the time has a p99 wait of 0.
func TestWaitP99MM1(t *testing.T) {
	for _, c := range []struct{ cpus, rate, s, want float64 }{
		{1, 0.5, 1, math.Log(50) / 0.5},
		{1, 0.9, 1, math.Log(90) / 0.1},
		{0.5, 0.25, 1, math.Log(50) / (0.5 - 0.25)},
		{1, 0.005, 1, 0},
	} {
		if got := waitP99(c.cpus, c.rate, c.s); math.Abs(got-c.want) > 1e-6*c.want+1e-12 {
			t.Errorf("cpus %g, rate %g, s %g: p99 wait %.6f, want %.6f", c.cpus, c.rate, c.s, got, c.want)
		}
	}
	if got := waitP99(2, 2, 1); !math.IsInf(got, 1) {
		t.Errorf("a saturated queue: p99 %g, want +Inf", got)
	}
}

type times []float64

func (h times) Len() int           { return len(h) }
func (h times) Less(i, j int) bool { return h[i] < h[j] }
func (h times) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *times) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *times) Pop() any          { old := *h; x := old[len(old)-1]; *h = old[:len(old)-1]; return x }

// simulatedP99 is the p99 wait of n events for one of c servers of an
// M/M/c FIFO queue (Poisson arrivals at rate, exponential service of mean
// s).
func simulatedP99(c int, rate, s float64, n int, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	free := make(times, c) // when each server is next free
	heap.Init(&free)
	var now float64
	out := make([]float64, 0, n)
	for range n {
		now += rng.ExpFloat64() / rate
		start := max(now, heap.Pop(&free).(float64))
		done := start + rng.ExpFloat64()*s
		heap.Push(&free, done)
		out = append(out, start-now)
	}
	slices.Sort(out)
	return out[len(out)*99/100]
}

// TestWaitP99AgainstSimulation: for several CPUs the closed form agrees
// with a simulation of the queue within 5 %.
func TestWaitP99AgainstSimulation(t *testing.T) {
	for _, c := range []struct {
		cpus int
		rho  float64
	}{{2, 0.6}, {2, 0.8}, {4, 0.7}, {8, 0.9}} {
		rate := c.rho * float64(c.cpus) // s = 1
		want := simulatedP99(c.cpus, rate, 1, 400_000, uint64(c.cpus))
		if got := waitP99(float64(c.cpus), rate, 1); math.Abs(got/want-1) > 0.05 {
			t.Errorf("%d CPUs at %.0f%%: p99 %.3f, the simulation's %.3f", c.cpus, 100*c.rho, got, want)
		}
	}
}

// TestObjectiveFitsTheWaitScale: steps whose p99 is a fixed part, the
// service and 0.3 of the M/M/c p99 wait give back that scale and that
// part; a step past the objective is not fitted.
func TestObjectiveFitsTheWaitScale(t *testing.T) {
	const cpus, s, other = 2.0, 1.0, 2.0 // ms
	var steps []result.SweepStep
	for _, rate := range []float64{400, 800, 1200, 1500} {
		p99 := other + s + 0.3*waitP99(cpus, rate/1000, s)
		steps = append(steps, result.SweepStep{Label: fmt.Sprint(rate), X: rate, Offered: rate, Throughput: rate, P99Ms: p99,
			Host: &result.Host{CPUs: 2}})
	}
	steps = append(steps, result.SweepStep{Label: "past", X: 1900, Offered: 1900, Throughput: 1700, P99Ms: 900, Host: &result.Host{CPUs: 2}})
	sw := &analysis.Result{Sweep: &result.Sweep{Steps: steps}}
	o := &Objective{ServiceMs: s}
	if !o.fit(sw, []int{0, 1, 2, 3, 4}, 50) {
		t.Fatal("no fit")
	}
	if math.Abs(o.WaitScale-0.3) > 1e-6 || math.Abs(o.OtherP99Ms-other) > 1e-6 || o.fitSteps != 4 {
		t.Errorf("wait scale %.4f, other %.4f over %d steps; want 0.3, 2 over 4", o.WaitScale, o.OtherP99Ms, o.fitSteps)
	}
}

// TestObjectiveAcrossAllotments (issue 50): steps measured on 0.5, 1 and
// 1.5 CPUs (the database's cgroup limit, --db-cpus), each p99 a fixed
// part, the service and 0.4 of the M/M/c wait on its own CPUs, give back
// the scale and the part; the capacity at the objective on an allotment is
// the rate whose predicted p99 is the objective, grows with the CPUs, and
// the demand's spread over the steps brackets it.
func TestObjectiveAcrossAllotments(t *testing.T) {
	const s, other, slo = 1.0, 2.0, 20.0 // ms
	var steps []result.SweepStep
	for k, c := range []struct{ cpus, rate float64 }{{0.5, 200}, {0.5, 350}, {1, 500}, {1, 800}, {1.5, 900}, {1.5, 1200}} {
		p99 := other + s + 0.4*waitP99(c.cpus, c.rate/1000, s)
		demand := s * (1 + 0.1*float64(k%3-1)) // 0.9, 1, 1.1 ms
		steps = append(steps, result.SweepStep{Label: fmt.Sprint(c.cpus, "/", c.rate), X: c.rate, Offered: c.rate, Throughput: c.rate, P99Ms: p99,
			Host: &result.Host{CPUs: 2, Cgroups: []result.Cgroup{{Role: "database", Path: "/db", LimitCPUs: c.cpus}},
				ServerCPU: []result.ServerCPU{{Server: "postgres", UsedCPUs: demand * c.rate / 1000}}}})
	}
	sw := &analysis.Result{Sweep: &result.Sweep{Steps: steps}}
	o := planObjective(sw, s/1000, 600, slo)
	if o == nil || math.Abs(o.WaitScale-0.4) > 1e-6 || math.Abs(o.OtherP99Ms-other) > 1e-6 || o.MeasuredCPUs != 0.5 || o.MostCPUs != 1.5 {
		t.Fatalf("objective %+v: want scale 0.4, other 2 ms, measured 0.5 to 1.5 CPUs", o)
	}
	if math.Abs(o.ServiceLowMs-0.9) > 1e-9 || math.Abs(o.ServiceHighMs-1.1) > 1e-9 {
		t.Errorf("the demand's spread %.3g to %.3g ms, want 0.9 to 1.1", o.ServiceLowMs, o.ServiceHighMs)
	}
	prev := 0.0
	for _, cpus := range []float64{0.5, 1, 1.5, 3} {
		p := o.PredictAt(cpus, 300)
		if got := o.predict(cpus, p.Capacity); !p.CapacityReached && math.Abs(got-slo) > 0.01 {
			t.Errorf("%g CPUs: the p99 at the capacity %.1f/s is %.3f ms, want the objective", cpus, p.Capacity, got)
		}
		if !(p.Capacity > prev) || !(p.CapacityLow < p.Capacity && p.Capacity < p.CapacityHigh) || !(p.P99LowMs < p.P99Ms && p.P99Ms < p.P99HighMs) {
			t.Errorf("%g CPUs: %+v: want more than %.1f/s, bracketed by the spread", cpus, p, prev)
		}
		if p.CPUsMeasured != (cpus <= 1.5) {
			t.Errorf("%g CPUs: measured %v", cpus, p.CPUsMeasured)
		}
		prev = p.Capacity
	}
}

// TestObjectiveJSONHasNoInfinity: where the demand's spread puts the most
// CPU per event past the answer's capacity, the prediction there has no
// finite figure, and the plan file still encodes (0: none).
func TestObjectiveJSONHasNoInfinity(t *testing.T) {
	var steps []result.SweepStep
	for k, rate := range []float64{100, 200, 300} {
		demand := []float64{0.5, 1, 3}[k] // ms
		steps = append(steps, result.SweepStep{Label: fmt.Sprint(rate), X: rate, Offered: rate, Throughput: rate, P99Ms: 5,
			Host: &result.Host{CPUs: 2, ServerCPU: []result.ServerCPU{{Server: "postgres", UsedCPUs: demand * rate / 1000}}}})
	}
	o := planObjective(&analysis.Result{Sweep: &result.Sweep{Steps: steps}}, 0.001, 900, 50)
	if o == nil || o.VCPU == 0 {
		t.Fatalf("objective %+v", o)
	}
	o.At = append(o.At, o.PredictAt(1, 900))
	if _, err := json.Marshal(o); err != nil || o.PredictedP99HighMs != 0 || o.At[0].P99HighMs != 0 {
		t.Errorf("json: %v; high-demand p99 %g and %g, want 0 (none)", err, o.PredictedP99HighMs, o.At[0].P99HighMs)
	}
}
