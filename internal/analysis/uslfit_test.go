package analysis

import (
	"math"
	"testing"
)

// TestUSLFitterGradient checks the analytic gradient the fit relies on
// against central differences of the objective, away from the bounds.
func TestUSLFitterGradient(t *testing.T) {
	n := []float64{1, 2, 4, 8, 16, 32}
	m := USL{Lambda: 900, Sigma: 0.07, Kappa: 0.001}
	y := make([]float64, len(n))
	for i := range n {
		y[i] = m.Predict(n[i]) * (1 + 0.03*float64(i%3-1))
	}
	f := newUSLFitter(n, y[0], 32)
	f.setY(y)
	for _, p := range [][]float64{{0.1, 0.3, 0.5}, {-0.2, 0.8, 2}, {0, 0.05, 0.1}} {
		grad := make([]float64, 3)
		f.gradient(grad, p)
		for j := range p {
			h := 1e-6
			up, down := append([]float64(nil), p...), append([]float64(nil), p...)
			up[j] += h
			down[j] -= h
			num := (f.objective(up) - f.objective(down)) / (2 * h)
			if math.Abs(grad[j]-num) > 1e-5*math.Max(1, math.Abs(num)) {
				t.Errorf("p = %v: ∂/∂p[%d] = %v, central difference %v", p, j, grad[j], num)
			}
		}
	}
	l, s, kp := f.decode(f.encode(m.Lambda, m.Sigma, m.Kappa))
	if math.Abs(l-m.Lambda) > 1e-9*m.Lambda || math.Abs(s-m.Sigma) > 1e-12 || math.Abs(kp-m.Kappa) > 1e-15 {
		t.Errorf("decode(encode(%v, %v, %v)) = %v, %v, %v", m.Lambda, m.Sigma, m.Kappa, l, s, kp)
	}
}
