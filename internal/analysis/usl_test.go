package analysis

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestUSL fits synthetic data of known shape. Everything is local to it so
// that the package's other tests can use any name.
func TestUSL(t *testing.T) {
	// The sweep and the model: λ = 1000, σ = 0.05, κ = 0.002, so
	// N* = sqrt(0.95/0.002) ≈ 21.8, inside the sweep.
	uslSteps := []float64{1, 2, 4, 8, 16, 24, 32, 48, 64}
	uslData := func(lambda, sigma, kappa float64, noise float64, seed uint64) []float64 {
		m := USL{Lambda: lambda, Sigma: sigma, Kappa: kappa}
		var rng *rand.Rand
		if noise > 0 {
			rng = rand.New(rand.NewPCG(seed, 7))
		}
		x := make([]float64, len(uslSteps))
		for i, n := range uslSteps {
			x[i] = m.Predict(n)
			if rng != nil {
				x[i] *= 1 + noise*(2*rng.Float64()-1)
			}
		}
		return x
	}
	within := func(t *testing.T, name string, got, want, relTol float64) {
		t.Helper()
		if math.Abs(got-want) > relTol*math.Abs(want) {
			t.Errorf("%s = %.6g, want %.6g within %.2g %%", name, got, want, relTol*100)
		}
	}

	t.Run("exact", func(t *testing.T) {
		x := uslData(1000, 0.05, 0.002, 0, 0)
		u, err := FitUSL(uslSteps, x, 200, 1)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("λ=%.4f σ=%.6f κ=%.7f R²=%.8f N*=%.4f X*=%.2f σCI=%v κCI=%v N*CI=%v", u.Lambda, u.Sigma, u.Kappa, u.R2, u.Peak, u.PeakX, u.SigmaCI, u.KappaCI, u.PeakCI)
		within(t, "λ", u.Lambda, 1000, 0.005)
		within(t, "σ", u.Sigma, 0.05, 0.01)
		within(t, "κ", u.Kappa, 0.002, 0.01)
		within(t, "N*", u.Peak, math.Sqrt(0.95/0.002), 0.02)
		within(t, "X*", u.PeakX, USL{Lambda: 1000, Sigma: 0.05, Kappa: 0.002}.Predict(math.Sqrt(0.95/0.002)), 0.01)
		if u.R2 <= 0.999 {
			t.Errorf("R² = %v, want > 0.999", u.R2)
		}
		if !u.Retrograde {
			t.Error("data to N = 64 pass N* ≈ 21.8, yet not retrograde")
		}
		if u.N != len(uslSteps) {
			t.Errorf("N = %d, want %d", u.N, len(uslSteps))
		}
	})

	t.Run("noise", func(t *testing.T) {
		x := uslData(1000, 0.05, 0.002, 0.03, 42)
		u, err := FitUSL(uslSteps, x, 200, 1)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("λ=%.4f σ=%.6f κ=%.7f R²=%.6f N*=%.4f X*=%.2f σCI=%v κCI=%v N*CI=%v", u.Lambda, u.Sigma, u.Kappa, u.R2, u.Peak, u.PeakX, u.SigmaCI, u.KappaCI, u.PeakCI)
		if math.Abs(u.Sigma-0.05) > 0.02 {
			t.Errorf("σ = %v, want 0.05 ± 0.02", u.Sigma)
		}
		within(t, "κ", u.Kappa, 0.002, 0.30)
		within(t, "N*", u.Peak, math.Sqrt(0.95/0.002), 0.20)
		if !(u.SigmaCI[0] <= 0.05 && 0.05 <= u.SigmaCI[1]) {
			t.Errorf("σ CI %v misses the true 0.05", u.SigmaCI)
		}
		if !(u.KappaCI[0] <= 0.002 && 0.002 <= u.KappaCI[1]) {
			t.Errorf("κ CI %v misses the true 0.002", u.KappaCI)
		}
		if !(u.PeakCI[0] <= u.PeakCI[1]) || !(u.SigmaCI[0] <= u.Sigma && u.Sigma <= u.SigmaCI[1]) {
			t.Errorf("CIs out of order: σ %v in %v, N* CI %v", u.Sigma, u.SigmaCI, u.PeakCI)
		}
		if !u.Retrograde {
			t.Error("not retrograde")
		}
	})

	t.Run("linear", func(t *testing.T) {
		x := uslData(500, 0, 0, 0, 0)
		u, err := FitUSL(uslSteps, x, 50, 3)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("λ=%.4f σ=%.3g κ=%.3g R²=%.8f N*=%v X*=%v", u.Lambda, u.Sigma, u.Kappa, u.R2, u.Peak, u.PeakX)
		if u.Sigma >= 1e-3 || u.Kappa >= 1e-3 {
			t.Errorf("σ = %v, κ = %v; want both < 1e-3 for linear scaling", u.Sigma, u.Kappa)
		}
		within(t, "λ", u.Lambda, 500, 0.005)
		if !math.IsInf(u.Peak, 1) || !math.IsInf(u.PeakX, 1) {
			t.Errorf("N* = %v, X(N*) = %v; linear scaling peaks at +Inf", u.Peak, u.PeakX)
		}
		if u.Retrograde {
			t.Error("linear scaling reported retrograde")
		}
	})

	t.Run("amdahl", func(t *testing.T) {
		x := uslData(1000, 0.1, 0, 0, 0)
		u, err := FitUSL(uslSteps, x, 50, 4)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("λ=%.4f σ=%.6f κ=%.3g R²=%.8f N*=%v X*=%v", u.Lambda, u.Sigma, u.Kappa, u.R2, u.Peak, u.PeakX)
		if u.Kappa > 1e-6 {
			t.Errorf("κ = %v, want ≈ 0 for Amdahl data", u.Kappa)
		}
		within(t, "σ", u.Sigma, 0.1, 0.01)
		within(t, "λ", u.Lambda, 1000, 0.005)
		if u.Retrograde {
			t.Error("Amdahl data reported retrograde")
		}
	})

	t.Run("errors", func(t *testing.T) {
		nan := math.NaN()
		for _, c := range []struct {
			name string
			n, x []float64
			want string
		}{
			{"three points", []float64{1, 2, 4}, []float64{1, 2, 3}, "at least 4 distinct"},
			{"repeated N", []float64{1, 2, 4, 4}, []float64{1, 2, 3, 3}, "at least 4 distinct"},
			{"negative N", []float64{-1, 2, 4, 8}, []float64{1, 2, 3, 4}, "concurrency must be > 0"},
			{"zero N", []float64{0, 2, 4, 8}, []float64{1, 2, 3, 4}, "concurrency must be > 0"},
			{"negative X", []float64{1, 2, 4, 8}, []float64{1, -2, 3, 4}, "throughput must be ≥ 0"},
			{"mismatched lengths", []float64{1, 2, 4, 8}, []float64{1, 2, 3}, "4 concurrency levels but 3 throughputs"},
			{"NaN X", []float64{1, 2, 4, 8}, []float64{1, nan, 3, 4}, "not finite"},
			{"NaN N", []float64{1, nan, 4, 8}, []float64{1, 2, 3, 4}, "not finite"},
			{"Inf X", []float64{1, 2, 4, 8}, []float64{1, 2, math.Inf(1), 4}, "not finite"},
			{"all zero", []float64{1, 2, 4, 8}, []float64{0, 0, 0, 0}, "zero"},
		} {
			_, err := FitUSL(c.n, c.x, 10, 1)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.want)
			}
		}
		if _, err := FitUSL(uslSteps, uslData(1000, 0.05, 0.002, 0, 0), -1, 1); err == nil {
			t.Error("negative bootstrap rounds accepted")
		}
	})

	t.Run("predict", func(t *testing.T) {
		u := USL{Lambda: 1000, Sigma: 0.05, Kappa: 0.002}
		for _, n := range []float64{1, 2, 7.5, 21.8, 64, 200} {
			want := 1000 * n / (1 + 0.05*(n-1) + 0.002*n*(n-1))
			if got := u.Predict(n); math.Abs(got-want) > 1e-9*want {
				t.Errorf("Predict(%v) = %v, want %v", n, got, want)
			}
		}
		if got := u.Predict(1); got != 1000 {
			t.Errorf("Predict(1) = %v, want λ", got)
		}
	})

	t.Run("deterministic", func(t *testing.T) {
		x := uslData(1000, 0.05, 0.002, 0.03, 9)
		a, err := FitUSL(uslSteps, x, 100, 77)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := FitUSL(uslSteps, x, 100, 77)
		if a.SigmaCI != b.SigmaCI || a.KappaCI != b.KappaCI || a.PeakCI != b.PeakCI || a.Sigma != b.Sigma || a.Kappa != b.Kappa {
			t.Errorf("same seed, different fits:\n%+v\n%+v", a, b)
		}
		c, _ := FitUSL(uslSteps, x, 100, 78)
		if c.SigmaCI == a.SigmaCI && c.KappaCI == a.KappaCI {
			t.Error("another seed gave the very same CIs; is the seed used?")
		}
	})
}
