package datagen

import (
	"fmt"
	"math"
	"math/bits"
)

// PgbenchKind names one of pgbench's random functions: random (uniform),
// random_gaussian, random_exponential and random_zipfian. The distributions
// are pgbench's as its documentation defines them; the sampling methods are
// this package's own.
type PgbenchKind uint8

const (
	// PgbenchUniform: every integer of [min, max] equally likely (random).
	PgbenchUniform PgbenchKind = iota
	// PgbenchGaussian: a standard normal truncated at ±parameter, mapped onto
	// [min, max] (random_gaussian). With mu = (max+min)/2 and
	// f(x) = PHI(2*parameter*(x-mu)/(max-min+1)), value i is drawn with
	// probability (f(i+0.5) - f(i-0.5)) / (2*PHI(parameter) - 1).
	PgbenchGaussian
	// PgbenchExponential: a decreasing exponential truncated at parameter,
	// mapped onto [min, max] (random_exponential). With
	// f(x) = exp(-parameter*(x-min)/(max-min+1)) / (1 - exp(-parameter)),
	// value i is drawn with probability f(i) - f(i+1).
	PgbenchExponential
	// PgbenchZipfian: a bounded Zipfian (random_zipfian): value min+k-1,
	// k in [1, max-min+1], is drawn with probability proportional to
	// 1/k^parameter.
	PgbenchZipfian
)

var pgbenchNames = [...]string{"uniform", "gaussian", "exponential", "zipfian"}

// PgbenchKindNames lists the accepted names, in PgbenchKind order.
func PgbenchKindNames() []string { return pgbenchNames[:] }

func (k PgbenchKind) String() string { return enumName(k, pgbenchNames[:], "PgbenchKind") }

// ParsePgbenchKind parses a distribution's name (case-insensitive).
func ParsePgbenchKind(s string) (PgbenchKind, error) {
	return parseEnum[PgbenchKind](s, pgbenchNames[:], "distribution")
}

// The limits of pgbench's parameters.
const (
	// MinGaussianParameter is the smallest parameter of random_gaussian: at
	// 2.0 a draw is rejected (and drawn again) about 4.6 % of the time.
	MinGaussianParameter = 2.0
	// MinZipfianParameter and MaxZipfianParameter bound random_zipfian's
	// parameter in pgbench 13 and later. pgbench 11 and 12 also accepted
	// parameters in (0, 1), which this package accepts too.
	MinZipfianParameter = 1.001
	MaxZipfianParameter = 1000.0
	// MaxPgbenchSpan is the largest max-min of the non-uniform
	// distributions: beyond 2^53 a float64 no longer tells neighbouring
	// integers apart, so the mapping onto the range would skip values.
	MaxPgbenchSpan = 1 << 53
)

// CheckPgbench returns why parameter is not valid for k, or nil. A uniform
// distribution takes no parameter (pass 0).
func CheckPgbench(k PgbenchKind, parameter float64) error {
	if math.IsNaN(parameter) || math.IsInf(parameter, 0) {
		return fmt.Errorf("%s parameter must be a finite number, got %g", k, parameter)
	}
	switch k {
	case PgbenchUniform:
		if parameter != 0 {
			return fmt.Errorf("uniform takes no parameter, got %g", parameter)
		}
	case PgbenchGaussian:
		if parameter < MinGaussianParameter {
			return fmt.Errorf("gaussian parameter must be >= %.1f, got %g", MinGaussianParameter, parameter)
		}
	case PgbenchExponential:
		if parameter <= 0 {
			return fmt.Errorf("exponential parameter must be > 0, got %g", parameter)
		}
	case PgbenchZipfian:
		ok := parameter > 0 && parameter < 1 || parameter >= MinZipfianParameter && parameter <= MaxZipfianParameter
		if !ok {
			return fmt.Errorf("zipfian parameter must be in (0, 1) or [%g, %g], got %g", MinZipfianParameter, MaxZipfianParameter, parameter)
		}
	default:
		return fmt.Errorf("unknown distribution %d", uint8(k))
	}
	return nil
}

// Pgbench draws integers in [min, max] from one of pgbench's distributions.
// It is immutable after NewPgbench and safe for concurrent use; the
// randomness comes from the Source passed to Next, which does not allocate.
type Pgbench struct {
	kind      PgbenchKind
	min, max  int64
	span      uint64  // max - min + 1, 0 when it is 2^64 (never: see NewPgbench)
	size      float64 // float64(span)
	parameter float64
	expCut    float64 // 1 - exp(-parameter)
	zipfHN    float64 // H(n + 0.5)
	zipfHX1   float64 // H(1.5) - 1
	zipfS     float64 // the rejection-inversion's acceptance shortcut
}

// NewPgbench checks the distribution and precomputes its constants. min
// must not exceed max; max-min must be below math.MaxInt64 (uniform) or at
// most MaxPgbenchSpan (the others).
func NewPgbench(k PgbenchKind, min, max int64, parameter float64) (*Pgbench, error) {
	if err := CheckPgbench(k, parameter); err != nil {
		return nil, err
	}
	if max < min {
		return nil, fmt.Errorf("max %d is below min %d", max, min)
	}
	diff := uint64(max) - uint64(min)
	if diff >= math.MaxInt64 {
		return nil, fmt.Errorf("range [%d, %d] is too wide (max-min must be below 2^63-1)", min, max)
	}
	if k != PgbenchUniform && diff > MaxPgbenchSpan {
		return nil, fmt.Errorf("range [%d, %d] is too wide for %s (max-min must be at most 2^53)", min, max, k)
	}
	d := &Pgbench{kind: k, min: min, max: max, span: diff + 1, size: float64(diff + 1), parameter: parameter}
	switch k {
	case PgbenchExponential:
		d.expCut = -math.Expm1(-parameter)
	case PgbenchZipfian:
		e := parameter
		d.zipfHN = zipfHIntegral(d.size+0.5, e)
		d.zipfHX1 = zipfHIntegral(1.5, e) - 1
		d.zipfS = 2 - zipfHIntegralInverse(zipfHIntegral(2.5, e)-zipfH(2, e), e)
	}
	return d, nil
}

// Kind returns the distribution's kind.
func (d *Pgbench) Kind() PgbenchKind { return d.kind }

// Parameter returns the distribution's parameter (0 for uniform).
func (d *Pgbench) Parameter() float64 { return d.parameter }

// Range returns the distribution's bounds.
func (d *Pgbench) Range() (min, max int64) { return d.min, d.max }

// Next returns an integer in [min, max] drawn using s.
func (d *Pgbench) Next(s *Source) int64 {
	switch d.kind {
	case PgbenchGaussian:
		return d.at(d.gaussian(s))
	case PgbenchExponential:
		// Inversion of the truncated exponential on [0, 1): its CDF is
		// (1 - exp(-parameter*r)) / (1 - exp(-parameter)).
		return d.at(-math.Log1p(-s.Float64()*d.expCut) / d.parameter)
	case PgbenchZipfian:
		return d.min + d.zipf(s) - 1
	}
	hi, _ := bits.Mul64(s.Uint64(), d.span)
	return d.min + int64(hi)
}

// at maps r in [0, 1) onto [min, max]: value min+j for r in [j/n, (j+1)/n).
func (d *Pgbench) at(r float64) int64 {
	j := int64(r * d.size)
	return min(max(d.min+j, d.min), d.max)
}

// gaussian returns r in [0, 1): a standard normal z drawn by the
// Box-Muller transform, redrawn until |z| < parameter, scaled as
// (z + parameter) / (2 * parameter). Value i then has pgbench's
// probability (see PgbenchGaussian).
func (d *Pgbench) gaussian(s *Source) float64 {
	p := d.parameter
	for {
		u1 := 1 - s.Float64() // (0, 1]: log is finite
		u2 := s.Float64()
		z := math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
		if z >= -p && z < p {
			return (z + p) / (2 * p)
		}
	}
}

// zipf returns k in [1, n] with P(k) proportional to k^-parameter, by
// rejection-inversion (W. Hörmann and G. Derflinger, "Rejection-inversion
// to generate variates from monotone discrete distributions", 1996): one
// or two uniform draws on average, for any parameter and range size, with
// no table.
func (d *Pgbench) zipf(s *Source) int64 {
	e, n := d.parameter, int64(d.span)
	for {
		u := d.zipfHN + s.Float64()*(d.zipfHX1-d.zipfHN)
		x := zipfHIntegralInverse(u, e)
		k := min(max(int64(x+0.5), 1), n)
		if float64(k)-x <= d.zipfS || u >= zipfHIntegral(float64(k)+0.5, e)-zipfH(float64(k), e) {
			return k
		}
	}
}
