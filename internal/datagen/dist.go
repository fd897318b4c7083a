package datagen

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Kind names a distribution of random integers over a closed range, as
// sysbench's --rand-type does.
type Kind uint8

const (
	// Uniform: every value equally likely.
	Uniform Kind = iota
	// Gaussian: the mean of SpecIter uniform draws (a bell centred on the middle).
	Gaussian
	// Special: sysbench 1.0's default: SpecRes percent of the values fall
	// uniformly in the middle SpecPct percent of the range (in practice its
	// upper three quarters, as in sysbench, which reuses the branch draw), the
	// rest are Gaussian over the whole range.
	Special
	// Pareto: values crowd at the low end (ParetoH 0.2 gives the 80/20 rule:
	// 80 % of values in the lowest 20 % of the range).
	Pareto
	// Zipfian: P(a+k-1) is proportional to 1/k^ZipfExp.
	Zipfian
)

var kindNames = [...]string{"uniform", "gaussian", "special", "pareto", "zipfian"}

// KindNames lists the accepted --rand-type values.
func KindNames() []string { return kindNames[:] }

func (k Kind) String() string { return enumName(k, kindNames[:], "Kind") }

// ParseKind parses a --rand-type value (case-insensitive).
func ParseKind(s string) (Kind, error) {
	return parseEnum[Kind](s, kindNames[:], "random distribution")
}

// enumName is k's name in names, or typ(k) for a k past them.
func enumName[K ~uint8](k K, names []string, typ string) string {
	if int(k) < len(names) {
		return names[k]
	}
	return fmt.Sprintf("%s(%d)", typ, uint8(k))
}

// parseEnum is the K whose name in names is s, case aside; what names
// the kind in the error when none is.
func parseEnum[K ~uint8](s string, names []string, what string) (K, error) {
	for i, n := range names {
		if strings.EqualFold(s, n) {
			return K(i), nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q (want one of %s)", what, s, strings.Join(names, ", "))
}

// DistSpec holds a distribution and its shape parameters, named after
// sysbench's options.
type DistSpec struct {
	Kind     Kind
	SpecIter int     // --rand-spec-iter: uniform draws averaged by gaussian and special (sysbench: 12)
	SpecPct  int     // --rand-spec-pct: width of the special band, percent of the range (sysbench: 1)
	SpecRes  int     // --rand-spec-res: percent of values drawn from the special band (sysbench: 75)
	ParetoH  float64 // --rand-pareto-h: Pareto shape, in (0, 1) (sysbench: 0.2)
	ZipfExp  float64 // --rand-zipfian-exp: Zipf exponent theta, >= 0 (sysbench: 0.8)
}

// DefaultDistSpec returns sysbench 1.0's defaults for every parameter with
// the given kind.
func DefaultDistSpec(k Kind) DistSpec {
	return DistSpec{Kind: k, SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2, ZipfExp: 0.8}
}

// Validate returns every problem with c at once.
func (c DistSpec) Validate() error {
	var errs []error
	if int(c.Kind) >= len(kindNames) {
		errs = append(errs, fmt.Errorf("unknown distribution %d", c.Kind))
	}
	if c.SpecIter < 1 {
		errs = append(errs, fmt.Errorf("rand-spec-iter must be >= 1, got %d", c.SpecIter))
	}
	if c.SpecPct < 0 || c.SpecPct > 100 {
		errs = append(errs, fmt.Errorf("rand-spec-pct must be in [0, 100], got %d", c.SpecPct))
	}
	if c.SpecRes < 0 || c.SpecRes >= 100 {
		errs = append(errs, fmt.Errorf("rand-spec-res must be in [0, 100), got %d", c.SpecRes))
	}
	if !(c.ParetoH > 0 && c.ParetoH < 1) {
		errs = append(errs, fmt.Errorf("rand-pareto-h must be in (0, 1), got %g", c.ParetoH))
	}
	if !(c.ZipfExp >= 0) || math.IsInf(c.ZipfExp, 0) {
		errs = append(errs, fmt.Errorf("rand-zipfian-exp must be >= 0, got %g", c.ZipfExp))
	}
	return errors.Join(errs...)
}

// Dist draws integers from one distribution. It is immutable after NewDist and
// safe for concurrent use; the randomness comes from the Source passed to Next.
type Dist struct {
	cfg DistSpec

	iterMult    float64 // 1 / SpecIter
	pctMult     float64 // SpecPct / 100
	pct2Mult    float64 // SpecPct / 200
	resMult     float64 // 100 / (100 - SpecRes)
	paretoPower float64 // log(h) / log(1-h)
	zipfS       float64
	zipfHX1     float64 // hIntegral(1.5) - 1
}

// NewDist validates cfg and precomputes its constants.
func NewDist(cfg DistSpec) (*Dist, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := &Dist{
		cfg:         cfg,
		iterMult:    1 / float64(cfg.SpecIter),
		pctMult:     float64(cfg.SpecPct) / 100,
		pct2Mult:    float64(cfg.SpecPct) / 200,
		resMult:     100 / (100 - float64(cfg.SpecRes)),
		paretoPower: math.Log(cfg.ParetoH) / math.Log(1-cfg.ParetoH),
	}
	e := cfg.ZipfExp
	d.zipfS = 2 - zipfHIntegralInverse(zipfHIntegral(2.5, e)-zipfH(2, e), e)
	d.zipfHX1 = zipfHIntegral(1.5, e) - 1
	return d, nil
}

// Config returns the configuration d was built from.
func (d *Dist) Config() DistSpec { return d.cfg }

// Next returns an integer in [a, b] drawn from d using s. If b <= a it returns a.
func (d *Dist) Next(s *Source, a, b int64) int64 {
	if b <= a {
		return a
	}
	var v int64
	switch d.cfg.Kind {
	case Gaussian:
		v = d.gaussian(s, a, b)
	case Special:
		v = d.special(s, a, b)
	case Pareto:
		v = a + int64(float64(b-a+1)*math.Pow(s.Float64(), d.paretoPower))
	case Zipfian:
		v = a + d.zipf(s, b-a+1) - 1
	default:
		return s.Uniform(a, b)
	}
	// Floating-point rounding must never leave the range.
	return min(max(v, a), b)
}

// gaussian is sysbench's sb_rand_gaussian: the mean of SpecIter uniform draws
// over [a, b].
func (d *Dist) gaussian(s *Source, a, b int64) int64 {
	t := float64(b - a + 1)
	var sum float64
	for range d.cfg.SpecIter {
		sum += s.Float64() * t
	}
	return a + int64(sum*d.iterMult)
}

// special is sysbench 1.0's sb_rand_special. One uniform draw decides the
// branch: with probability (100-SpecRes)% the value is gaussian over [a, b);
// otherwise the same draw is mapped uniformly onto a band of SpecPct percent of
// the range, centred on the middle.
func (d *Dist) special(s *Source, a, b int64) int64 {
	t := float64(b - a)
	rnd := s.Float64()
	if rnd*t*d.resMult < t {
		var sum float64
		for range d.cfg.SpecIter {
			sum += s.Float64()
		}
		return a + int64(sum*t*d.iterMult)
	}
	res := rnd*(t*d.pctMult+1) + t/2 - t*d.pct2Mult
	return a + int64(res)
}

// zipf is sysbench's sb_rand_zipfian_int: rejection-inversion sampling
// (Hörmann and Derflinger 1996, as in Apache Commons RNG) of k in [1, n] with
// P(k) proportional to 1/k^e.
func (d *Dist) zipf(s *Source, n int64) int64 {
	e := d.cfg.ZipfExp
	hN := zipfHIntegral(float64(n)+0.5, e)
	for {
		u := hN + s.Float64()*(d.zipfHX1-hN)
		x := zipfHIntegralInverse(u, e)
		k := int64(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > n {
			k = n
		}
		if float64(k)-x <= d.zipfS || u >= zipfHIntegral(float64(k)+0.5, e)-zipfH(float64(k), e) {
			return k
		}
	}
}

// zipfHIntegral is H(x) = (x^(1-e) - 1) / (1-e), or log(x) when e == 1.
func zipfHIntegral(x, e float64) float64 {
	logX := math.Log(x)
	return helperExpm1(logX*(1-e)) * logX
}

// zipfH is h(x) = x^-e, the derivative of H.
func zipfH(x, e float64) float64 { return math.Exp(-e * math.Log(x)) }

// zipfHIntegralInverse is the inverse of zipfHIntegral.
func zipfHIntegralInverse(x, e float64) float64 {
	t := x * (1 - e)
	if t < -1 {
		t = -1 // numerical noise; keep log1p defined
	}
	return math.Exp(helperLog1p(t) * x)
}

// helperLog1p is log(1+x)/x, with a Taylor series near 0.
func helperLog1p(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// helperExpm1 is (exp(x)-1)/x, with a Taylor series near 0.
func helperExpm1(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}
