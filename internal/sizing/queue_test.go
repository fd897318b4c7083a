package sizing

import (
	"math"
	"testing"
)

// erlangCDirect is the textbook formula, summed in log space so that a^k/k!
// neither overflows nor underflows:
//
//	C = (a^c/c! · c/(c−a)) / (Σ_{k<c} a^k/k! + a^c/c! · c/(c−a))
//
// It is an independent check of ErlangC's recursion.
func erlangCDirect(c int, a float64) float64 {
	logs := make([]float64, 0, c+1)
	for k := 0; k < c; k++ {
		lg, _ := math.Lgamma(float64(k + 1))
		logs = append(logs, float64(k)*math.Log(a)-lg)
	}
	lg, _ := math.Lgamma(float64(c + 1))
	last := float64(c)*math.Log(a) - lg + math.Log(float64(c)/(float64(c)-a))
	logs = append(logs, last)
	m := math.Inf(-1)
	for _, l := range logs {
		m = math.Max(m, l)
	}
	sum := 0.0
	for _, l := range logs {
		sum += math.Exp(l - m)
	}
	return math.Exp(last - m - math.Log(sum))
}

func TestErlangCKnownValues(t *testing.T) {
	for _, tc := range []struct {
		c    int
		a    float64
		want float64
		tol  float64 // absolute
	}{
		{1, 0.5, 0.5, 1e-12},       // M/M/1: P(wait) = ρ
		{1, 0.9, 0.9, 1e-12},       // ditto
		{2, 1, 1.0 / 3, 1e-12},     // 2a²/(2+2a+a²)·… = 1/3 exactly
		{10, 8, 0.409180, 1e-6},    // exact rational sum: 0.40918015...
		{24, 20.4, 0.345182, 1e-6}, // 24 cores at 85 %: 0.34518160...
	} {
		if got := ErlangC(tc.c, tc.a); math.Abs(got-tc.want) > tc.tol {
			t.Errorf("ErlangC(%d, %g) = %.6f, want %.6f ± %g", tc.c, tc.a, got, tc.want, tc.tol)
		}
	}
}

func TestErlangCMatchesDirectSum(t *testing.T) {
	// Relative tolerance 1e-9: both are accurate to far better, the two
	// computations just round differently.
	for _, tc := range []struct {
		c int
		a float64
	}{
		{1, 0.3}, {2, 1}, {10, 8}, {24, 20.4}, {48, 40}, {100, 90}, {100, 99.5},
		{1000, 950}, {5000, 4900},
	} {
		got, want := ErlangC(tc.c, tc.a), erlangCDirect(tc.c, tc.a)
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("ErlangC(%d, %g) = %.12g, direct sum %.12g", tc.c, tc.a, got, want)
		}
	}
	// c = 100, a = 90 against a third computation, the same sum in exact
	// rational arithmetic (done once outside Go): 0.21694048090636...
	// This pins the magnitude so that a mistake shared by the two above
	// would show.
	if got := ErlangC(100, 90); math.Abs(got-0.2169404809) > 1e-9 {
		t.Errorf("ErlangC(100, 90) = %.10f, want 0.2169404809", got)
	}
}

func TestErlangCMonotone(t *testing.T) {
	for _, c := range []int{1, 2, 4, 12, 24, 48, 100} {
		prev := 0.0
		for i := 1; i < 200; i++ {
			a := float64(c) * float64(i) / 200
			p := ErlangC(c, a)
			if p < prev || p < 0 || p > 1 {
				t.Fatalf("ErlangC(%d, %g) = %g after %g: not increasing in a within [0, 1]", c, a, p, prev)
			}
			prev = p
		}
	}
	// Decreasing in c for a fixed load.
	for _, a := range []float64{0.5, 3, 20} {
		prev := 1.0
		for c := int(a) + 1; c < int(a)+60; c++ {
			p := ErlangC(c, a)
			if p > prev {
				t.Fatalf("ErlangC(%d, %g) = %g > %g at c−1: not decreasing in c", c, a, p, prev)
			}
			prev = p
		}
	}
}

func TestQueueEdges(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		c                   int
		a                   float64
		erlang, wait, ready float64
		response            float64
	}{
		{4, 0, 0, 0, 0, 1},
		{4, -1, 0, 0, 0, 1},
		{4, 4, 1, inf, 1, inf},
		{4, 7, 1, inf, 1, inf},
		{0, 1, 1, inf, 1, inf},
		{-3, 1, 1, inf, 1, inf},
	} {
		if got := ErlangC(tc.c, tc.a); got != tc.erlang {
			t.Errorf("ErlangC(%d, %g) = %g, want %g", tc.c, tc.a, got, tc.erlang)
		}
		if got := MMcWait(tc.c, tc.a); got != tc.wait {
			t.Errorf("MMcWait(%d, %g) = %g, want %g", tc.c, tc.a, got, tc.wait)
		}
		if got := ReadyShare(tc.c, tc.a); got != tc.ready {
			t.Errorf("ReadyShare(%d, %g) = %g, want %g", tc.c, tc.a, got, tc.ready)
		}
		if got := MMcResponse(tc.c, tc.a); got != tc.response {
			t.Errorf("MMcResponse(%d, %g) = %g, want %g", tc.c, tc.a, got, tc.response)
		}
	}
	if !math.IsNaN(ErlangC(4, math.NaN())) || !math.IsNaN(ReadyShare(4, math.NaN())) {
		t.Error("a NaN load should give NaN, not a number")
	}
}

func TestMMcFormulas(t *testing.T) {
	// M/M/1: Wq = ρ/(1−ρ), R = 1/(1−ρ), ready share = ρ.
	for _, rho := range []float64{0.1, 0.5, 0.8, 0.99} {
		if got, want := MMcWait(1, rho), rho/(1-rho); math.Abs(got-want) > 1e-9*want {
			t.Errorf("MMcWait(1, %g) = %g, want %g", rho, got, want)
		}
		if got, want := MMcResponse(1, rho), 1/(1-rho); math.Abs(got-want) > 1e-9*want {
			t.Errorf("MMcResponse(1, %g) = %g, want %g", rho, got, want)
		}
		if got := ReadyShare(1, rho); math.Abs(got-rho) > 1e-9 {
			t.Errorf("ReadyShare(1, %g) = %g, want %g", rho, got, rho)
		}
	}
	// M/M/2 at a = 1: C = 1/3, Wq = C/(c−a) = 1/3, R = 4/3, ready = 1/4.
	if got := MMcWait(2, 1); math.Abs(got-1.0/3) > 1e-12 {
		t.Errorf("MMcWait(2, 1) = %g, want 1/3", got)
	}
	if got := MMcResponse(2, 1); math.Abs(got-4.0/3) > 1e-12 {
		t.Errorf("MMcResponse(2, 1) = %g, want 4/3", got)
	}
	if got := ReadyShare(2, 1); math.Abs(got-0.25) > 1e-12 {
		t.Errorf("ReadyShare(2, 1) = %g, want 1/4", got)
	}
	// Response and ready grow with load, and the knee: at 24 cores the wait
	// is negligible at 50 % and a large share of service time at 95 %.
	if r := MMcResponse(24, 12); r > 1.001 {
		t.Errorf("MMcResponse(24, 12) = %g, want about 1", r)
	}
	if r := MMcResponse(24, 22.8); r < 1.2 {
		t.Errorf("MMcResponse(24, 22.8) = %g, want a visible queue (> 1.2)", r)
	}
}
