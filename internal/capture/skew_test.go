package capture

import (
	"math"
	"strconv"
	"testing"

	"github.com/rightsize/rightsize/internal/datagen"
)

// draws counts calls values drawn by dist (zipfian with parameter s over
// [1, n], or uniform when s is 0), the keys shuffled by a multiplier so
// that the hot ones are not the smallest.
func draws(t *testing.T, n int64, s float64, calls int, seed uint64) *Counts {
	t.Helper()
	kind, param := datagen.PgbenchZipfian, s
	if s == 0 {
		kind, param = datagen.PgbenchUniform, 0
	}
	d, err := datagen.NewPgbench(kind, 1, n, param)
	if err != nil {
		t.Fatal(err)
	}
	src := datagen.NewSource(seed)
	c := &Counts{N: map[string]int64{}}
	for range calls {
		c.add(strconv.FormatInt(d.Next(src)*7919%n, 10))
	}
	return c
}

// topShare is the share of the draws the first 1 % of n values take under
// a zipfian s.
func topShare(n int64, s float64) float64 {
	return harmonic(max(n/100, 1), s) / harmonic(n, s)
}

// TestSkewFits draws keys as pgbench's random_zipfian does and checks
// that the fitted exponent gives the busiest 1 % of the keys their share
// within 5 points, and that uniform draws read as uniform.
func TestSkewFits(t *testing.T) {
	for _, c := range []struct {
		n     int64
		s     float64
		calls int
	}{
		{10_000, 1.1, 2_000}, {10_000, 1.1, 20_000}, {10_000, 0.8, 20_000}, {10_000, 1.5, 5_000},
		{1_000, 0.99, 20_000}, {100_000, 1.2, 50_000},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			sk := skewOf(draws(t, c.n, c.s, c.calls, seed), c.n)
			want, got := topShare(c.n, c.s), topShare(c.n, sk.S)
			if sk.Uniform || math.Abs(got-want) > 0.05 {
				t.Errorf("zipfian %g over %d, %d calls (seed %d): fitted %+v: the busiest 1 %% get %.3f, want %.3f", c.s, c.n, c.calls, seed, sk, got, want)
			}
		}
	}
	for _, c := range []struct {
		n     int64
		calls int
	}{{1_000, 2_000}, {1_000, 50_000}, {10_000, 3_000}, {5, 1_000}} {
		for seed := uint64(1); seed <= 3; seed++ {
			if sk := skewOf(draws(t, c.n, 0, c.calls, seed), c.n); !sk.Uniform {
				t.Errorf("uniform over %d, %d calls (seed %d): read as skewed: %+v", c.n, c.calls, seed, sk)
			}
		}
	}
}
