package capture

import "math"

// Skew is how unevenly a parameter's values were drawn, from the counts
// of the values a statement log showed.
type Skew struct {
	Calls    int64 // values counted
	Distinct int   // distinct values among them
	Of       int64 // the values there were to draw from (n)
	// Uniform tells that the counts are what n equally likely values
	// would give (an index of dispersion within 4 standard deviations of
	// a uniform draw's), or too few to tell (fewer than minSkewCalls).
	Uniform bool
	// S is the zipfian exponent that fits the counts best (maximum
	// likelihood, the values ranked by their counts): value k of the
	// ranking drawn in proportion to 1/k^S.
	S float64
	// Top is the share of the calls the busiest 1 % of the n values took
	// (at least one value).
	Top float64
}

const minSkewCalls = 200

// skewOf fits the counts of c, drawn from n values (n below the distinct
// values seen counts as their number). With n known (more values than
// were seen), the exponent makes the draws show as many distinct values
// as they did; else it fits the ranks of the values seen often.
func skewOf(c *Counts, n int64) Skew {
	counts := c.sorted()
	known := n > int64(len(counts))
	sk := Skew{Calls: c.total(), Distinct: len(counts), Of: max(n, int64(len(counts)))}
	n = sk.Of
	var seen int64
	for _, k := range counts {
		seen += k
	}
	top := max(n/100, 1)
	var hot int64
	for i := int64(0); i < top && i < int64(len(counts)); i++ {
		hot += counts[i]
	}
	if sk.Calls > 0 {
		sk.Top = float64(hot) / float64(sk.Calls)
	}
	if sk.Calls < minSkewCalls || n < 2 {
		sk.Uniform = true
		return sk
	}
	lambda := float64(seen) / float64(n)
	d := float64(n-int64(len(counts))) * lambda
	for _, k := range counts {
		d += (float64(k) - lambda) * (float64(k) - lambda) / lambda
	}
	dof := float64(n - 1)
	if d <= dof+4*math.Sqrt(2*dof) {
		sk.Uniform = true
		return sk
	}
	if known {
		sk.S = matchDistinct(seen, len(counts), n)
	} else {
		sk.S = fitZipf(counts, n)
	}
	return sk
}

// matchDistinct is the zipfian exponent over n values whose calls draws
// are expected to show distinct values, as many as were seen: a statistic
// of the whole draw that rare values do not bias as they bias ranks.
func matchDistinct(calls int64, distinct int, n int64) float64 {
	lo, hi := 0.0, 6.0
	for range 50 {
		mid := (lo + hi) / 2
		if expectDistinct(calls, n, mid) > float64(distinct) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// expectDistinct is the number of distinct values calls draws of a
// zipfian s over n values are expected to show: the sum over the values
// of 1 - (1 - p)^calls, exact up to 100,000 values, then integrated.
func expectDistinct(calls int64, n int64, s float64) float64 {
	const exact = 100_000
	h := harmonic(n, s)
	c := float64(calls)
	var e float64
	for k := int64(1); k <= n && k <= exact; k++ {
		e += -math.Expm1(c * math.Log1p(-math.Pow(float64(k), -s)/h))
	}
	if n <= exact {
		return e
	}
	// The tail by the midpoint rule over 4,000 log-spaced steps.
	a, b := math.Log(float64(exact)+0.5), math.Log(float64(n)+0.5)
	const steps = 4000
	w := (b - a) / steps
	for i := range steps {
		x := math.Exp(a + (float64(i)+0.5)*w)
		e += -math.Expm1(-c*math.Pow(x, -s)/h) * x * w
	}
	return e
}

// fitZipf is the zipfian exponent, by maximum likelihood, of counts
// (most first) drawn from n values. Ranks are read from the counts, and
// the rare values' ranks are mostly wrong (a value seen once may rank
// anywhere in the tail): when at least three values were seen
// minHeadCount times or more, only those head ranks are fitted, each
// given its probability among the head's.
func fitZipf(counts []int64, n int64) float64 {
	head := 0
	for head < len(counts) && counts[head] >= minHeadCount {
		head++
	}
	if head >= 3 {
		counts, n = counts[:head], int64(head)
	}
	var a float64 // the sum of count * ln(rank)
	var seen int64
	for i, k := range counts {
		a += float64(k) * math.Log(float64(i+1))
		seen += k
	}
	ll := func(s float64) float64 { return -s*a - float64(seen)*math.Log(harmonic(n, s)) }
	lo, hi := 0.0, 6.0
	const phi = 0.6180339887498949
	x1, x2 := hi-phi*(hi-lo), lo+phi*(hi-lo)
	f1, f2 := ll(x1), ll(x2)
	for hi-lo > 1e-4 {
		if f1 < f2 {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + phi*(hi-lo)
			f2 = ll(x2)
		} else {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - phi*(hi-lo)
			f1 = ll(x1)
		}
	}
	return (lo + hi) / 2
}

// minHeadCount is how often a value must have been seen for its rank to
// count as known.
const minHeadCount = 20

// harmonic is the sum of 1/k^s for k from 1 to n: exact up to 100,000
// terms, then the integral of the rest by the midpoint rule.
func harmonic(n int64, s float64) float64 {
	const exact = 100_000
	var h float64
	for k := int64(1); k <= n && k <= exact; k++ {
		h += math.Pow(float64(k), -s)
	}
	if n <= exact {
		return h
	}
	a, b := float64(exact)+0.5, float64(n)+0.5
	if math.Abs(s-1) < 1e-9 {
		return h + math.Log(b/a)
	}
	return h + (math.Pow(b, 1-s)-math.Pow(a, 1-s))/(1-s)
}

// zipfParameter is s as a workload file's zipfian takes it: in (0, 1) or
// [1.001, 1000].
func zipfParameter(s float64) float64 {
	if s >= 1 && s < 1.001 {
		return 1.001
	}
	if s > 0.999 && s < 1 {
		return 0.999
	}
	return math.Round(s*1000) / 1000
}
