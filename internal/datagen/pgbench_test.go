package datagen

import (
	"math"
	"strings"
	"testing"
)

// pgbenchProb is the probability of value i under pgbench's documented
// definition of each distribution over [lo, hi].
func pgbenchProb(k PgbenchKind, lo, hi int64, p float64, i int64) float64 {
	n := float64(hi - lo + 1)
	x := float64(i)
	switch k {
	case PgbenchGaussian:
		phi := func(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
		mu := float64(hi+lo) / 2
		f := func(x float64) float64 { return phi(2 * p * (x - mu) / n) }
		return (f(x+0.5) - f(x-0.5)) / (2*phi(p) - 1)
	case PgbenchExponential:
		f := func(x float64) float64 { return math.Exp(-p*(x-float64(lo))/n) / (1 - math.Exp(-p)) }
		return f(x) - f(x+1)
	case PgbenchZipfian:
		var h float64
		for k := 1.0; k <= n; k++ {
			h += math.Pow(k, -p)
		}
		return math.Pow(x-float64(lo)+1, -p) / h
	}
	return 1 / n
}

// moments returns the exact mean, variance and fourth central moment of
// the distribution.
func moments(k PgbenchKind, lo, hi int64, p float64) (mean, variance, m4 float64) {
	for i := lo; i <= hi; i++ {
		mean += pgbenchProb(k, lo, hi, p, i) * float64(i)
	}
	for i := lo; i <= hi; i++ {
		w, d := pgbenchProb(k, lo, hi, p, i), float64(i)-mean
		variance += w * d * d
		m4 += w * d * d * d * d
	}
	return mean, variance, m4
}

func TestPgbenchMomentsMatchTheDefinitions(t *testing.T) {
	cases := []struct {
		k      PgbenchKind
		lo, hi int64
		p      float64
	}{
		{PgbenchUniform, 1, 1000, 0},
		{PgbenchUniform, -50, 49, 0},
		{PgbenchGaussian, 1, 1000, 2},
		{PgbenchGaussian, 1, 1000, 5},
		{PgbenchGaussian, 10, 19, 3},
		{PgbenchExponential, 1, 1000, 0.5},
		{PgbenchExponential, 1, 1000, 5},
		{PgbenchExponential, 0, 9, 20},
		{PgbenchZipfian, 1, 1000, 1.001},
		{PgbenchZipfian, 1, 1000, 1.5},
		{PgbenchZipfian, 1, 1000, 2.5},
		{PgbenchZipfian, 1, 1000, 0.5},
		{PgbenchZipfian, 100, 109, 0.99},
	}
	const n = 200_000
	for _, c := range cases {
		d, err := NewPgbench(c.k, c.lo, c.hi, c.p)
		if err != nil {
			t.Fatal(err)
		}
		s := NewSource(42)
		var sum, sq float64
		for range n {
			v := d.Next(s)
			if v < c.lo || v > c.hi {
				t.Fatalf("%v(%d, %d, %g) drew %d", c.k, c.lo, c.hi, c.p, v)
			}
			sum += float64(v)
			sq += float64(v) * float64(v)
		}
		m := sum / n
		v := sq/n - m*m
		wm, wv, m4 := moments(c.k, c.lo, c.hi, c.p)
		// Within five standard errors: sqrt(variance/n) for the mean,
		// sqrt((m4 - variance^2)/n) for the variance (large for Zipfian's
		// heavy tails).
		if se := math.Sqrt(wv / n); math.Abs(m-wm) > 5*se+1e-9 {
			t.Errorf("%v(%d, %d, %g): mean %.4f, want %.4f ± %.4f", c.k, c.lo, c.hi, c.p, m, wm, 5*se)
		}
		if se := math.Sqrt((m4 - wv*wv) / n); math.Abs(v-wv) > 5*se+1e-9 {
			t.Errorf("%v(%d, %d, %g): variance %.4f, want %.4f ± %.4f", c.k, c.lo, c.hi, c.p, v, wv, 5*se)
		}
	}
}

// TestPgbenchFrequencies compares each value's frequency with its
// probability on a small range (a chi-square statistic well below the
// 0.1 % critical value).
func TestPgbenchFrequencies(t *testing.T) {
	for _, c := range []struct {
		k PgbenchKind
		p float64
	}{{PgbenchUniform, 0}, {PgbenchGaussian, 2.5}, {PgbenchExponential, 3}, {PgbenchZipfian, 1.2}, {PgbenchZipfian, 0.7}} {
		const lo, hi, n = 1, 20, 400_000
		d, err := NewPgbench(c.k, lo, hi, c.p)
		if err != nil {
			t.Fatal(err)
		}
		var count [hi + 1]float64
		s := NewSource(7)
		for range n {
			count[d.Next(s)]++
		}
		var chi2 float64
		for i := int64(lo); i <= hi; i++ {
			want := n * pgbenchProb(c.k, lo, hi, c.p, i)
			chi2 += (count[i] - want) * (count[i] - want) / want
		}
		if chi2 > 43.8 { // 19 degrees of freedom, p = 0.001
			t.Errorf("%v(%g): chi-square %.1f over 20 values, want below 43.8", c.k, c.p, chi2)
		}
	}
}

// TestPgbenchZipfianRatio checks the documentation's example: with
// parameter 2.5, 1 is drawn about (2/1)^2.5 = 5.66 times as often as 2.
func TestPgbenchZipfianRatio(t *testing.T) {
	d, err := NewPgbench(PgbenchZipfian, 1, 1_000_000, 2.5)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSource(3)
	var ones, twos float64
	for range 500_000 {
		switch d.Next(s) {
		case 1:
			ones++
		case 2:
			twos++
		}
	}
	within(t, "P(1)/P(2)", ones/twos, math.Pow(2, 2.5), 0.15)
}

func TestPgbenchLimits(t *testing.T) {
	bad := []struct {
		k        PgbenchKind
		lo, hi   int64
		p        float64
		contains string
	}{
		{PgbenchUniform, 1, 10, 1, "no parameter"},
		{PgbenchGaussian, 1, 10, 1.99, ">= 2.0"},
		{PgbenchExponential, 1, 10, 0, "> 0"},
		{PgbenchExponential, 1, 10, math.Inf(1), "finite"},
		{PgbenchZipfian, 1, 10, 1, "(0, 1) or [1.001, 1000]"},
		{PgbenchZipfian, 1, 10, 1.0005, "(0, 1) or"},
		{PgbenchZipfian, 1, 10, 1000.5, "(0, 1) or"},
		{PgbenchZipfian, 1, 10, 0, "(0, 1) or"},
		{PgbenchZipfian, 1, 10, math.NaN(), "finite"},
		{PgbenchUniform, 10, 1, 0, "below min"},
		{PgbenchUniform, math.MinInt64, math.MaxInt64, 0, "too wide"},
		{PgbenchGaussian, 0, 1<<53 + 1, 2, "at most 2^53"},
		{PgbenchKind(9), 0, 1, 0, "unknown"},
	}
	for _, c := range bad {
		_, err := NewPgbench(c.k, c.lo, c.hi, c.p)
		if err == nil || !strings.Contains(err.Error(), c.contains) {
			t.Errorf("NewPgbench(%v, %d, %d, %g) = %v, want an error containing %q", c.k, c.lo, c.hi, c.p, err, c.contains)
		}
	}
	for _, c := range []struct {
		k      PgbenchKind
		lo, hi int64
		p      float64
	}{
		{PgbenchZipfian, 1, 10, 1.001}, {PgbenchZipfian, 1, 10, 1000}, {PgbenchZipfian, 1, 10, 0.001},
		{PgbenchGaussian, 5, 5, 2}, {PgbenchExponential, 5, 5, 1e9}, {PgbenchUniform, 0, math.MaxInt64 - 1, 0}, {PgbenchUniform, math.MinInt64, -2, 0},
		{PgbenchGaussian, 0, 1 << 53, 1e6},
	} {
		d, err := NewPgbench(c.k, c.lo, c.hi, c.p)
		if err != nil {
			t.Errorf("NewPgbench(%v, %d, %d, %g): %v", c.k, c.lo, c.hi, c.p, err)
			continue
		}
		s := NewSource(1)
		for range 10_000 {
			if v := d.Next(s); v < c.lo || v > c.hi {
				t.Fatalf("%v(%d, %d, %g) drew %d", c.k, c.lo, c.hi, c.p, v)
			}
		}
	}
}

func TestParsePgbenchKind(t *testing.T) {
	for i, n := range PgbenchKindNames() {
		k, err := ParsePgbenchKind(n)
		if err != nil || int(k) != i || k.String() != n {
			t.Errorf("ParsePgbenchKind(%q) = %v, %v", n, k, err)
		}
	}
	if k, err := ParsePgbenchKind("Zipfian"); err != nil || k != PgbenchZipfian {
		t.Errorf("case-insensitive: %v, %v", k, err)
	}
	if _, err := ParsePgbenchKind("pareto"); err == nil {
		t.Error("pareto accepted")
	}
}

func TestPgbenchDoesNotAllocate(t *testing.T) {
	for _, c := range []struct {
		k PgbenchKind
		p float64
	}{{PgbenchUniform, 0}, {PgbenchGaussian, 2}, {PgbenchExponential, 1}, {PgbenchZipfian, 1.1}} {
		d, err := NewPgbench(c.k, 1, 1000, c.p)
		if err != nil {
			t.Fatal(err)
		}
		s := NewSource(1)
		if a := testing.AllocsPerRun(1000, func() { d.Next(s) }); a != 0 {
			t.Errorf("%v: %.1f allocations per draw", c.k, a)
		}
	}
}

func BenchmarkPgbench(b *testing.B) {
	for _, c := range []struct {
		k PgbenchKind
		p float64
	}{{PgbenchUniform, 0}, {PgbenchGaussian, 2}, {PgbenchExponential, 1}, {PgbenchZipfian, 1.1}} {
		d, err := NewPgbench(c.k, 1, 1_000_000, c.p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.k.String(), func(b *testing.B) {
			s := NewSource(1)
			for b.Loop() {
				d.Next(s)
			}
		})
	}
}
