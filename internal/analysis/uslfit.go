package analysis

import (
	"math"

	"gonum.org/v1/gonum/optimize"
)

// uslFitter is the least-squares problem FitUSL solves: the concurrencies,
// the throughput being fitted, and the maps between the bounded parameters
// (λ, σ, κ) and the unconstrained ones (a, b, c) the optimiser moves:
// λ = λ0·e^a, σ = sin²b and κ = (c/Nmax)². setY changes what every later fit
// fits, so a uslFitter is not safe for concurrent use.
type uslFitter struct {
	n           []float64
	y           []float64 // the throughput being fitted: x for the fit, a resample in the bootstrap
	scale       float64   // normalises the sum of squares to order one: Σy², or 1 when that is 0
	lam0        float64   // λ0, the scale of λ
	nmax, nmax2 float64   // Nmax and Nmax², the scale of κ
}

// newUSLFitter returns the problem for the concurrencies n, with λ scaled by
// lam0 and κ by nmax; call setY before fitting.
func newUSLFitter(n []float64, lam0, nmax float64) *uslFitter {
	return &uslFitter{n: n, y: make([]float64, len(n)), scale: 1, lam0: lam0, nmax: nmax, nmax2: nmax * nmax}
}

// decode maps the unconstrained parameters to (λ, σ, κ).
func (f *uslFitter) decode(p []float64) (l, s, kp float64) {
	sb := math.Sin(p[1])
	return f.lam0 * math.Exp(p[0]), sb * sb, p[2] * p[2] / f.nmax2
}

// encode maps (λ, σ, κ) to the unconstrained parameters, clamping σ to
// [0, 1] and κ to ≥ 0.
func (f *uslFitter) encode(l, s, kp float64) []float64 {
	return []float64{math.Log(l / f.lam0), math.Asin(math.Sqrt(math.Min(math.Max(s, 0), 1))), f.nmax * math.Sqrt(math.Max(kp, 0))}
}

// setY makes v (copied) the throughput the next fits fit.
func (f *uslFitter) setY(v []float64) {
	copy(f.y, v)
	f.scale = 0
	for _, yi := range f.y {
		f.scale += yi * yi
	}
	if f.scale == 0 {
		f.scale = 1
	}
}

// objective is the scaled sum of squared residuals at the unconstrained
// parameters p, +Inf where a denominator of the model is not positive.
func (f *uslFitter) objective(p []float64) float64 {
	l, s, kp := f.decode(p)
	var ssr float64
	for i, ni := range f.n {
		d := 1 + s*(ni-1) + kp*ni*(ni-1)
		if d <= 0 {
			return math.Inf(1)
		}
		r := l*ni/d - f.y[i]
		ssr += r * r
	}
	return ssr / f.scale
}

// gradient stores objective's gradient at p in grad (NaN where a
// denominator is not positive).
func (f *uslFitter) gradient(grad, p []float64) {
	l, s, kp := f.decode(p)
	var gl, gs, gk float64
	for i, ni := range f.n {
		d := 1 + s*(ni-1) + kp*ni*(ni-1)
		if d <= 0 {
			grad[0], grad[1], grad[2] = math.NaN(), math.NaN(), math.NaN()
			return
		}
		g := ni / d
		r := l*g - f.y[i]
		gl += r * g
		dd := -l * ni * (ni - 1) / (d * d)
		gs += r * dd
		gk += r * dd * ni
	}
	grad[0] = 2 * gl * l / f.scale
	grad[1] = 2 * gs * math.Sin(2*p[1]) / f.scale
	grad[2] = 2 * gk * 2 * p[2] / f.nmax2 / f.scale
}

// uslSettings are the optimiser's settings for every minimisation.
func uslSettings() *optimize.Settings {
	return &optimize.Settings{
		Converger:       &optimize.FunctionConverge{Absolute: 1e-16, Iterations: 25},
		MajorIterations: 2000,
	}
}

// minimise fits the parameters marked free (b = 0 gives σ = 0 and c = 0
// gives κ = 0 for the fixed ones) from init and returns the full parameter
// vector and its objective: by L-BFGS with the analytic gradient, by
// Nelder–Mead when that fails outright, and init itself when neither
// improves on it.
func (f *uslFitter) minimise(free [3]bool, init []float64) ([]float64, float64) {
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
		Func: func(q []float64) float64 { expand(q); return f.objective(full) },
		Grad: func(grad, q []float64) {
			expand(q)
			f.gradient(g, full)
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
	res, err := optimize.Minimize(sub, q0, uslSettings(), &optimize.LBFGS{})
	if res == nil || math.IsNaN(res.F) || math.IsInf(res.F, 0) || (err != nil && res.F >= f0) {
		// L-BFGS failed outright (say, a line search off the region
		// where the denominator is positive): Nelder–Mead needs no
		// gradient.
		res, _ = optimize.Minimize(optimize.Problem{Func: sub.Func}, q0, uslSettings(), &optimize.NelderMead{})
	}
	if res == nil || !(res.F < f0) {
		expand(q0)
		return append([]float64(nil), full...), f0
	}
	expand(res.X)
	return append([]float64(nil), full...), res.F
}

// uslCandidate is one minimisation's result: the unconstrained parameters
// and their objective.
type uslCandidate struct {
	p []float64
	f float64
}

// best minimises the parameters marked free from each of inits and returns
// the best result (the first of equals).
func (f *uslFitter) best(free [3]bool, inits [][]float64) uslCandidate {
	c := uslCandidate{f: math.Inf(1)}
	for _, init := range inits {
		if p, v := f.minimise(free, init); v < c.f || c.p == nil {
			c = uslCandidate{p, v}
		}
	}
	return c
}

// fit fits the full model from each start (σ, κ·Nmax²), the faces σ = 0 and
// κ = 0 of the feasible region from the starts' κ and σ, and the corner
// σ = κ = 0, and returns (λ, σ, κ) of the simplest of these fits that is as
// good as the best. An optimum on a face is reached only asymptotically
// through the sin² and square maps; fitting the face itself puts σ or κ at
// exactly 0 there (and N* at +Inf for κ = 0).
func (f *uslFitter) fit(l0 float64, starts [][2]float64) (l, s, kp float64) {
	var fullInits, sigmaInits, kappaInits [][]float64
	for _, st := range starts {
		fullInits = append(fullInits, f.encode(l0, st[0], st[1]/f.nmax2))
		sigmaInits = append(sigmaInits, f.encode(l0, st[0], 0))
		kappaInits = append(kappaInits, f.encode(l0, 0, st[1]/f.nmax2))
	}
	// Simplest first: the first within a hair of the best wins.
	cands := []uslCandidate{
		f.best([3]bool{true, false, false}, fullInits[:1]),
		f.best([3]bool{true, true, false}, sigmaInits),
		f.best([3]bool{true, false, true}, kappaInits),
		f.best([3]bool{true, true, true}, fullInits),
	}
	fmin := math.Inf(1)
	for _, c := range cands {
		fmin = math.Min(fmin, c.f)
	}
	for _, c := range cands {
		if c.f <= fmin*(1+1e-9)+1e-15 {
			return f.decode(c.p)
		}
	}
	return f.decode(cands[3].p)
}
