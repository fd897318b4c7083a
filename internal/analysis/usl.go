package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat"
)

// USL is a fitted Universal Scalability Law model (Gunther):
//
//	X(N) = λN / (1 + σ(N−1) + κN(N−1))
//
// with X the throughput and N the concurrency (threads or instances).
type USL struct {
	Lambda, Sigma, Kappa float64 // λ: throughput of one unit (X(1)); σ: contention; κ: coherency
	R2                   float64 // coefficient of determination of the fit on the data (NaN when X does not vary)
	Peak                 float64 // N* = sqrt((1-σ)/κ): concurrency of maximum throughput (+Inf when κ == 0)
	PeakX                float64 // X(N*), the predicted maximum (for κ == 0: λ/σ as N → ∞, or +Inf when σ == 0 too)
	// Confidence intervals (2.5 % and 97.5 % quantiles) from a bootstrap of
	// the residuals; NaN when no bootstrap rounds were asked for.
	SigmaCI, KappaCI, PeakCI [2]float64
	Retrograde               bool // the data extend past N* (throughput falls with more concurrency there)
	N                        int  // points fitted
}

// Predict returns the model's throughput at concurrency n.
func (u USL) Predict(n float64) float64 {
	return u.Lambda * n / (1 + u.Sigma*(n-1) + u.Kappa*n*(n-1))
}

// FitUSL fits X(N) = λN / (1 + σ(N−1) + κN(N−1)) to the points (n[i], x[i])
// by nonlinear least squares on X, then runs a residual bootstrap of boot
// rounds (deterministic for a seed) for the confidence intervals of σ, κ and
// N*.
//
// The bounds λ > 0, 0 ≤ σ ≤ 1 and κ ≥ 0 are kept by fitting unconstrained
// parameters (a, b, c) with λ = λ0·e^a, σ = sin²b and κ = (c/Nmax)², where λ0
// is X at the smallest N divided by that N; L-BFGS with the analytic gradient
// minimises the sum of squared residuals from a few starting points and keeps
// the best. The boundary models κ = 0 (Amdahl), σ = 0 and σ = κ = 0 are
// fitted too, and the simplest one as good as the full fit is taken, so a
// parameter at its bound comes out as exactly 0 (κ = 0 gives N* = +Inf).
// Bootstrap rounds add centred residuals, inflated by √(n/(n−3))
// for the three fitted parameters, drawn with replacement to the fitted
// curve, and refit.
//
// It needs at least 4 points with distinct N > 0, X ≥ 0, all finite, and
// not all X zero; points may repeat an N.
func FitUSL(n, x []float64, boot int, seed uint64) (USL, error) {
	if len(n) != len(x) {
		return USL{}, fmt.Errorf("analysis: USL fit: %d concurrency levels but %d throughputs", len(n), len(x))
	}
	if boot < 0 {
		return USL{}, fmt.Errorf("analysis: USL fit: negative bootstrap rounds (%d)", boot)
	}
	distinct := map[float64]bool{}
	imin, nmax, anyX := -1, 0.0, false
	for i := range n {
		if math.IsNaN(n[i]) || math.IsInf(n[i], 0) || math.IsNaN(x[i]) || math.IsInf(x[i], 0) {
			return USL{}, fmt.Errorf("analysis: USL fit: point %d is not finite (N = %v, X = %v)", i, n[i], x[i])
		}
		if n[i] <= 0 {
			return USL{}, fmt.Errorf("analysis: USL fit: point %d has N = %v; concurrency must be > 0", i, n[i])
		}
		if x[i] < 0 {
			return USL{}, fmt.Errorf("analysis: USL fit: point %d has X = %v; throughput must be ≥ 0", i, x[i])
		}
		distinct[n[i]] = true
		if imin < 0 || n[i] < n[imin] {
			imin = i
		}
		nmax = math.Max(nmax, n[i])
		anyX = anyX || x[i] > 0
	}
	if len(distinct) < 4 {
		return USL{}, fmt.Errorf("analysis: USL fit: needs at least 4 distinct concurrency levels N > 0, got %d (from %d points)", len(distinct), len(n))
	}
	if !anyX {
		return USL{}, errors.New("analysis: USL fit: every throughput is zero; nothing to scale")
	}
	lam0 := x[imin] / n[imin]
	if lam0 <= 0 { // the smallest N measured nothing: take the best per-unit rate seen
		for i := range n {
			lam0 = math.Max(lam0, x[i]/n[i])
		}
	}
	k := len(n)
	nmax2 := nmax * nmax

	// decode maps the unconstrained parameters to (λ, σ, κ).
	decode := func(p []float64) (l, s, kp float64) {
		sb := math.Sin(p[1])
		return lam0 * math.Exp(p[0]), sb * sb, p[2] * p[2] / nmax2
	}
	encode := func(l, s, kp float64) []float64 {
		return []float64{math.Log(l / lam0), math.Asin(math.Sqrt(math.Min(math.Max(s, 0), 1))), nmax * math.Sqrt(math.Max(kp, 0))}
	}

	// y is the throughput being fitted: x for the fit, a resample in the
	// bootstrap. scale normalises the sum of squares to order one.
	y := make([]float64, k)
	scale := 1.0
	setY := func(v []float64) {
		copy(y, v)
		scale = 0
		for _, yi := range y {
			scale += yi * yi
		}
		if scale == 0 {
			scale = 1
		}
	}
	problem := optimize.Problem{
		Func: func(p []float64) float64 {
			l, s, kp := decode(p)
			var ssr float64
			for i, ni := range n {
				d := 1 + s*(ni-1) + kp*ni*(ni-1)
				if d <= 0 {
					return math.Inf(1)
				}
				r := l*ni/d - y[i]
				ssr += r * r
			}
			return ssr / scale
		},
		Grad: func(grad, p []float64) {
			l, s, kp := decode(p)
			var gl, gs, gk float64
			for i, ni := range n {
				d := 1 + s*(ni-1) + kp*ni*(ni-1)
				if d <= 0 {
					grad[0], grad[1], grad[2] = math.NaN(), math.NaN(), math.NaN()
					return
				}
				g := ni / d
				r := l*g - y[i]
				gl += r * g
				dd := -l * ni * (ni - 1) / (d * d)
				gs += r * dd
				gk += r * dd * ni
			}
			grad[0] = 2 * gl * l / scale
			grad[1] = 2 * gs * math.Sin(2*p[1]) / scale
			grad[2] = 2 * gk * 2 * p[2] / nmax2 / scale
		},
	}
	settings := func() *optimize.Settings {
		return &optimize.Settings{
			Converger:       &optimize.FunctionConverge{Absolute: 1e-16, Iterations: 25},
			MajorIterations: 2000,
		}
	}
	// minimise fits the parameters marked free (b = 0 gives σ = 0 and c = 0
	// gives κ = 0 for the fixed ones) from init and returns the full
	// parameter vector and its objective.
	minimise := func(free [3]bool, init []float64) ([]float64, float64) {
		full, g := make([]float64, 3), make([]float64, 3)
		expand := func(q []float64) {
			j := 0
			for i := range full {
				full[i] = 0
				if free[i] {
					full[i] = q[j]
					j++
				}
			}
		}
		sub := optimize.Problem{
			Func: func(q []float64) float64 { expand(q); return problem.Func(full) },
			Grad: func(grad, q []float64) {
				expand(q)
				problem.Grad(g, full)
				j := 0
				for i := range g {
					if free[i] {
						grad[j] = g[i]
						j++
					}
				}
			},
		}
		var q0 []float64
		for i := range init {
			if free[i] {
				q0 = append(q0, init[i])
			}
		}
		f0 := sub.Func(q0)
		res, err := optimize.Minimize(sub, q0, settings(), &optimize.LBFGS{})
		if res == nil || math.IsNaN(res.F) || math.IsInf(res.F, 0) || (err != nil && res.F >= f0) {
			// L-BFGS failed outright (say, a line search off the region
			// where the denominator is positive): Nelder–Mead needs no
			// gradient.
			res, _ = optimize.Minimize(optimize.Problem{Func: sub.Func}, q0, settings(), &optimize.NelderMead{})
		}
		if res == nil || !(res.F < f0) {
			expand(q0)
			return append([]float64(nil), full...), f0
		}
		expand(res.X)
		return append([]float64(nil), full...), res.F
	}
	// fit fits the full model from each start (σ, κ·Nmax²), the faces σ = 0
	// and κ = 0 of the feasible region from the starts' κ and σ, and the
	// corner σ = κ = 0, and returns (λ, σ, κ) of the simplest of these fits
	// that is as good as the best. An optimum on a face is reached only
	// asymptotically through the sin² and square maps; fitting the face
	// itself puts σ or κ at exactly 0 there (and N* at +Inf for κ = 0).
	fit := func(l0 float64, starts [][2]float64) (l, s, kp float64) {
		type cand struct {
			p []float64
			f float64
		}
		best := func(free [3]bool, inits [][]float64) cand {
			c := cand{f: math.Inf(1)}
			for _, init := range inits {
				if p, f := minimise(free, init); f < c.f || c.p == nil {
					c = cand{p, f}
				}
			}
			return c
		}
		var fullInits, sigmaInits, kappaInits [][]float64
		for _, st := range starts {
			fullInits = append(fullInits, encode(l0, st[0], st[1]/nmax2))
			sigmaInits = append(sigmaInits, encode(l0, st[0], 0))
			kappaInits = append(kappaInits, encode(l0, 0, st[1]/nmax2))
		}
		// Simplest first: the first within a hair of the best wins.
		cands := []cand{
			best([3]bool{true, false, false}, fullInits[:1]),
			best([3]bool{true, true, false}, sigmaInits),
			best([3]bool{true, false, true}, kappaInits),
			best([3]bool{true, true, true}, fullInits),
		}
		fmin := math.Inf(1)
		for _, c := range cands {
			fmin = math.Min(fmin, c.f)
		}
		for _, c := range cands {
			if c.f <= fmin*(1+1e-9)+1e-15 {
				return decode(c.p)
			}
		}
		return decode(cands[3].p)
	}
	peakOf := func(l, s, kp float64) (peak, peakX float64) {
		switch {
		case kp > 0:
			peak = math.Sqrt((1 - s) / kp)
			return peak, l * peak / (1 + s*(peak-1) + kp*peak*(peak-1))
		case s > 0:
			return math.Inf(1), l / s
		default:
			return math.Inf(1), math.Inf(1)
		}
	}

	setY(x)
	l, s, kp := fit(lam0, [][2]float64{{0.01, 0.1}, {0.01, 10}, {0.3, 0.1}, {0.3, 10}})
	u := USL{Lambda: l, Sigma: s, Kappa: kp, N: k}
	u.Peak, u.PeakX = peakOf(l, s, kp)
	u.Retrograde = nmax > u.Peak

	fitted := make([]float64, k)
	resid := make([]float64, k)
	var mean, ssr, sst, rmean float64
	for i := range n {
		mean += x[i]
	}
	mean /= float64(k)
	for i := range n {
		fitted[i] = u.Predict(n[i])
		resid[i] = x[i] - fitted[i]
		ssr += resid[i] * resid[i]
		sst += (x[i] - mean) * (x[i] - mean)
		rmean += resid[i]
	}
	u.R2 = math.NaN()
	if sst > 0 {
		u.R2 = 1 - ssr/sst
	}

	nan := [2]float64{math.NaN(), math.NaN()}
	u.SigmaCI, u.KappaCI, u.PeakCI = nan, nan, nan
	if boot == 0 {
		return u, nil
	}
	rmean /= float64(k)
	inflate := math.Sqrt(float64(k) / float64(k-3))
	for i := range resid {
		resid[i] = (resid[i] - rmean) * inflate
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	// Refits start at the fit (kept off the boundary, where the sin² and
	// square maps have zero gradient) and at one generic point.
	starts := [][2]float64{{math.Max(s, 1e-3), math.Max(kp*nmax2, 1e-3)}, {0.05, 1}}
	sig, kap, pk := make([]float64, boot), make([]float64, boot), make([]float64, boot)
	ystar := make([]float64, k)
	for b := range boot {
		for i := range ystar {
			ystar[i] = fitted[i] + resid[rng.IntN(k)]
		}
		setY(ystar)
		bl, bs, bk := fit(l, starts)
		sig[b], kap[b] = bs, bk
		pk[b], _ = peakOf(bl, bs, bk)
	}
	ci := func(v []float64) [2]float64 {
		sort.Float64s(v)
		return [2]float64{stat.Quantile(0.025, stat.Empirical, v, nil), stat.Quantile(0.975, stat.Empirical, v, nil)}
	}
	u.SigmaCI, u.KappaCI, u.PeakCI = ci(sig), ci(kap), ci(pk)
	return u, nil
}
