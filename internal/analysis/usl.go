package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

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
	lam0, nmax, err := checkUSLPoints(n, x, boot)
	if err != nil {
		return USL{}, err
	}
	f := newUSLFitter(n, lam0, nmax)
	f.setY(x)
	l, s, kp := f.fit(lam0, [][2]float64{{0.01, 0.1}, {0.01, 10}, {0.3, 0.1}, {0.3, 10}})
	u := USL{Lambda: l, Sigma: s, Kappa: kp, N: len(n)}
	u.Peak, u.PeakX = uslPeak(l, s, kp)
	u.Retrograde = nmax > u.Peak

	var fitted, resid []float64
	fitted, resid, u.R2 = uslResiduals(u, n, x)
	nan := [2]float64{math.NaN(), math.NaN()}
	u.SigmaCI, u.KappaCI, u.PeakCI = nan, nan, nan
	if boot == 0 {
		return u, nil
	}
	u.SigmaCI, u.KappaCI, u.PeakCI = f.bootstrap(u, fitted, resid, boot, seed)
	return u, nil
}

// checkUSLPoints checks FitUSL's input (matching lengths, boot ≥ 0, finite
// points with N > 0 and X ≥ 0, at least 4 distinct N, some X > 0) and
// returns what the fit is scaled by: λ0, X at the smallest N divided by that
// N (or the best per-unit rate seen when the smallest N measured nothing),
// and Nmax, the largest N.
func checkUSLPoints(n, x []float64, boot int) (lam0, nmax float64, err error) {
	if len(n) != len(x) {
		return 0, 0, fmt.Errorf("analysis: USL fit: %d concurrency levels but %d throughputs", len(n), len(x))
	}
	if boot < 0 {
		return 0, 0, fmt.Errorf("analysis: USL fit: negative bootstrap rounds (%d)", boot)
	}
	distinct := map[float64]bool{}
	imin, anyX := -1, false
	for i := range n {
		if math.IsNaN(n[i]) || math.IsInf(n[i], 0) || math.IsNaN(x[i]) || math.IsInf(x[i], 0) {
			return 0, 0, fmt.Errorf("analysis: USL fit: point %d is not finite (N = %v, X = %v)", i, n[i], x[i])
		}
		if n[i] <= 0 {
			return 0, 0, fmt.Errorf("analysis: USL fit: point %d has N = %v; concurrency must be > 0", i, n[i])
		}
		if x[i] < 0 {
			return 0, 0, fmt.Errorf("analysis: USL fit: point %d has X = %v; throughput must be ≥ 0", i, x[i])
		}
		distinct[n[i]] = true
		if imin < 0 || n[i] < n[imin] {
			imin = i
		}
		nmax = math.Max(nmax, n[i])
		anyX = anyX || x[i] > 0
	}
	if len(distinct) < 4 {
		return 0, 0, fmt.Errorf("analysis: USL fit: needs at least 4 distinct concurrency levels N > 0, got %d (from %d points)", len(distinct), len(n))
	}
	if !anyX {
		return 0, 0, errors.New("analysis: USL fit: every throughput is zero; nothing to scale")
	}
	lam0 = x[imin] / n[imin]
	if lam0 <= 0 { // the smallest N measured nothing: take the best per-unit rate seen
		for i := range n {
			lam0 = math.Max(lam0, x[i]/n[i])
		}
	}
	return lam0, nmax, nil
}

// uslPeak returns N*, the concurrency of maximum throughput, and X(N*) for
// the model (λ, σ, κ): sqrt((1−σ)/κ) for κ > 0; for κ = 0, N* = +Inf and
// X(N*) is the limit λ/σ, or +Inf when σ = 0 too.
func uslPeak(l, s, kp float64) (peak, peakX float64) {
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

// uslResiduals measures the fit u against the points (n[i], x[i]): the
// fitted curve at each point, the residuals x − fitted, and R² (NaN when X
// does not vary).
func uslResiduals(u USL, n, x []float64) (fitted, resid []float64, r2 float64) {
	k := len(n)
	fitted = make([]float64, k)
	resid = make([]float64, k)
	var mean, ssr, sst float64
	for i := range n {
		mean += x[i]
	}
	mean /= float64(k)
	for i := range n {
		fitted[i] = u.Predict(n[i])
		resid[i] = x[i] - fitted[i]
		ssr += resid[i] * resid[i]
		sst += (x[i] - mean) * (x[i] - mean)
	}
	r2 = math.NaN()
	if sst > 0 {
		r2 = 1 - ssr/sst
	}
	return fitted, resid, r2
}

// bootstrap runs boot rounds of the residual bootstrap around the fit u
// (deterministic for a seed): each round adds centred residuals, inflated by
// √(k/(k−3)) for the three fitted parameters and drawn with replacement, to
// the fitted curve, and refits. It returns the 2.5 % and 97.5 % quantiles of
// the refits' σ, κ and N*. It leaves f fitting the last resample.
func (f *uslFitter) bootstrap(u USL, fitted, resid []float64, boot int, seed uint64) (sigmaCI, kappaCI, peakCI [2]float64) {
	k := len(fitted)
	var rmean float64
	for _, r := range resid {
		rmean += r
	}
	rmean /= float64(k)
	inflate := math.Sqrt(float64(k) / float64(k-3))
	centred := make([]float64, k)
	for i := range resid {
		centred[i] = (resid[i] - rmean) * inflate
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	// Refits start at the fit (kept off the boundary, where the sin² and
	// square maps have zero gradient) and at one generic point.
	starts := [][2]float64{{math.Max(u.Sigma, 1e-3), math.Max(u.Kappa*f.nmax2, 1e-3)}, {0.05, 1}}
	sig, kap, pk := make([]float64, boot), make([]float64, boot), make([]float64, boot)
	ystar := make([]float64, k)
	for b := range boot {
		for i := range ystar {
			ystar[i] = fitted[i] + centred[rng.IntN(k)]
		}
		f.setY(ystar)
		bl, bs, bk := f.fit(u.Lambda, starts)
		sig[b], kap[b] = bs, bk
		pk[b], _ = uslPeak(bl, bs, bk)
	}
	return quantiles95(sig), quantiles95(kap), quantiles95(pk)
}

// quantiles95 sorts v in place and returns its empirical 2.5 % and 97.5 %
// quantiles.
func quantiles95(v []float64) [2]float64 {
	sort.Float64s(v)
	return [2]float64{stat.Quantile(0.025, stat.Empirical, v, nil), stat.Quantile(0.975, stat.Empirical, v, nil)}
}
