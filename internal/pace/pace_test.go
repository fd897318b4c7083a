package pace_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/pace"
)

func TestParseArrival(t *testing.T) {
	for _, s := range []string{"constant", "poisson"} {
		a, err := pace.ParseArrival(s)
		if err != nil || string(a) != s {
			t.Errorf("ParseArrival(%q) = %q, %v; want %q, nil", s, a, err, s)
		}
	}
	if a, _ := pace.ParseArrival("constant"); a != pace.Constant {
		t.Errorf(`ParseArrival("constant") != Constant`)
	}
	if a, _ := pace.ParseArrival("poisson"); a != pace.Poisson {
		t.Errorf(`ParseArrival("poisson") != Poisson`)
	}
	for _, s := range []string{"", "Poisson", "CONSTANT", " constant", "uniform", "exponential"} {
		if a, err := pace.ParseArrival(s); err == nil {
			t.Errorf("ParseArrival(%q) = %q, nil; want an error", s, a)
		}
	}
}

func TestNewRejectsBadRate(t *testing.T) {
	for _, a := range []pace.Arrival{pace.Constant, pace.Poisson, ""} {
		for _, r := range []float64{0, math.Copysign(0, -1), -1, -1e-9, math.NaN(), math.Inf(1), math.Inf(-1)} {
			if s, err := pace.New(a, r, 1); err == nil || s != nil {
				t.Errorf("New(%q, %v) = %v, %v; want nil and an error", a, r, s, err)
			}
		}
	}
	if s, err := pace.New("burst", 10, 1); err == nil || s != nil {
		t.Errorf(`New("burst", 10) = %v, %v; want nil and an error`, s, err)
	}
	for _, a := range []pace.Arrival{pace.Constant, pace.Poisson, ""} {
		if s, err := pace.New(a, 1e-3, 1); err != nil || s == nil {
			t.Errorf("New(%q, 0.001) = %v, %v; want a schedule", a, s, err)
		}
	}
}

// TestConstantExact: the i-th start (from 0) is at i/rate seconds, to the
// nanosecond, however many starts came before. The exact offset is computed
// with integers: rate = num/den per second, offset = i·den·1e9/num ns.
func TestConstantExact(t *testing.T) {
	const steps = 1_000_000
	for _, r := range []struct{ num, den int64 }{
		{1, 1}, {3, 1}, {7, 1}, {1000, 1}, {30000, 1}, {1, 2}, {5, 2}, {1000000, 3}, {100000, 7},
	} {
		rate := float64(r.num) / float64(r.den)
		for _, a := range []pace.Arrival{pace.Constant, ""} {
			s, err := pace.New(a, rate, 42)
			if err != nil {
				t.Fatal(err)
			}
			bad, first := 0, ""
			for i := int64(0); i < steps; i++ {
				got := int64(s.Next())
				num := i * r.den * int64(time.Second)
				floor, exact := num/r.num, num%r.num == 0
				ok := got == floor || (!exact && got == floor+1)
				if !ok {
					if bad == 0 {
						first = fmt.Sprintf("i=%d: %d ns, want %d ns", i, got, floor)
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("New(%q, %v): %d of %d offsets are not i/rate to the ns; first: %s", a, rate, bad, steps, first)
			}
		}
	}
}

func TestSchedulesNonDecreasing(t *testing.T) {
	for _, a := range []pace.Arrival{pace.Constant, pace.Poisson} {
		for _, rate := range []float64{0.5, 3, 1e4, 1e9, 3e9} {
			s, err := pace.New(a, rate, 7)
			if err != nil {
				t.Fatal(err)
			}
			prev := time.Duration(-1)
			for i := 0; i < 100000; i++ {
				d := s.Next()
				if d < prev || d < 0 {
					t.Fatalf("%s at %v/s: offset %d = %v after %v", a, rate, i, d, prev)
				}
				prev = d
			}
		}
	}
}

// gaps returns n inter-arrival gaps (ns) of a schedule.
func gaps(t *testing.T, a pace.Arrival, rate float64, seed uint64, n int) []float64 {
	t.Helper()
	s, err := pace.New(a, rate, seed)
	if err != nil {
		t.Fatal(err)
	}
	prev := s.Next()
	out := make([]float64, n)
	for i := range out {
		d := s.Next()
		out[i] = float64(d - prev)
		prev = d
	}
	return out
}

func meanCV(xs []float64) (mean, cv float64) {
	var sum, sq float64
	for _, x := range xs {
		sum += x
	}
	mean = sum / float64(len(xs))
	for _, x := range xs {
		sq += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sq/float64(len(xs)-1)) / mean
}

func TestPoissonStatistics(t *testing.T) {
	const n = 200_000
	for _, rate := range []float64{10, 1000, 123.4} {
		g := gaps(t, pace.Poisson, rate, 99, n)
		want := float64(time.Second) / rate
		mean, cv := meanCV(g)
		// The standard error of the mean of n exponential gaps is mean/√n
		// (0.22 %); 1.5 % is ~7 standard errors.
		if math.Abs(mean/want-1) > 0.015 {
			t.Errorf("rate %v: mean gap %v, want %v ± 1.5 %%", rate, time.Duration(mean), time.Duration(want))
		}
		// An exponential distribution has a coefficient of variation of 1.
		if math.Abs(cv-1) > 0.02 {
			t.Errorf("rate %v: coefficient of variation %.4f, want 1 ± 0.02", rate, cv)
		}
		// P(gap > mean) = 1/e for an exponential distribution.
		above := 0
		for _, x := range g {
			if x > want {
				above++
			}
		}
		if p := float64(above) / n; math.Abs(p-1/math.E) > 0.01 {
			t.Errorf("rate %v: P(gap > 1/rate) = %.4f, want 1/e = %.4f ± 0.01", rate, p, 1/math.E)
		}
	}
	// A constant schedule has no variation at all.
	g := gaps(t, pace.Constant, 1000, 99, 10000)
	if mean, cv := meanCV(g); math.Abs(mean-1e6) > 1 || cv > 1e-6 {
		t.Errorf("constant 1000/s: mean gap %v ns, cv %v; want 1e6 ns, 0", mean, cv)
	}
}

func TestPoissonDeterministic(t *testing.T) {
	a := gaps(t, pace.Poisson, 500, 12345, 1000)
	b := gaps(t, pace.Poisson, 500, 12345, 1000)
	c := gaps(t, pace.Poisson, 500, 12346, 1000)
	same := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, gap %d differs: %v vs %v", i, a[i], b[i])
		}
		if a[i] == c[i] {
			same++
		}
	}
	if same > 10 {
		t.Errorf("seeds 12345 and 12346 share %d of 1000 gaps; want independent sequences", same)
	}
}

func TestThinkFixed(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, m := range []time.Duration{1, time.Millisecond, 3 * time.Second} {
		th := pace.Think{Mean: m}
		for i := 0; i < 100; i++ {
			if got := th.Draw(rng); got != m {
				t.Fatalf("Think{Mean: %v}.Draw = %v, want %v", m, got, m)
			}
		}
	}
	for _, th := range []pace.Think{{}, {Mean: -time.Second}, {Exponential: true}, {Mean: -1, Exponential: true}} {
		if got := th.Draw(rng); got != 0 {
			t.Errorf("%+v.Draw = %v, want 0", th, got)
		}
	}
}

func TestThinkExponential(t *testing.T) {
	const n = 1_000_000
	mean := 10 * time.Millisecond
	th := pace.Think{Mean: mean, Exponential: true}
	rng := rand.New(rand.NewPCG(3, 4))
	xs := make([]float64, n)
	capped := 0
	for i := range xs {
		d := th.Draw(rng)
		if d < 0 || d > 10*mean {
			t.Fatalf("draw %v outside [0, 10 means = %v]", d, 10*mean)
		}
		if d == 10*mean {
			capped++
		}
		xs[i] = float64(d)
	}
	// Truncating an exponential of mean m at 10m moves the tail mass e^-10
	// to 10m: the mean becomes m·(1 − e^-10).
	m, cv := meanCV(xs)
	want := float64(mean) * (1 - math.Exp(-10))
	if math.Abs(m/want-1) > 0.005 { // standard error 0.1 %
		t.Errorf("mean think time %v, want %v ± 0.5 %%", time.Duration(m), time.Duration(want))
	}
	if math.Abs(cv-1) > 0.01 {
		t.Errorf("coefficient of variation %.4f, want ≈ 1", cv)
	}
	// P(X > 10 means) = e^-10 ≈ 4.54e-5: ~45 of 1e6 draws are truncated.
	if exp := n * math.Exp(-10); float64(capped) < exp/3 || float64(capped) > exp*3 {
		t.Errorf("%d draws truncated at 10 means, want about %.0f", capped, exp)
	}
	// Deterministic for a given source.
	a, b := rand.New(rand.NewPCG(5, 5)), rand.New(rand.NewPCG(5, 5))
	for i := 0; i < 100; i++ {
		if x, y := th.Draw(a), th.Draw(b); x != y {
			t.Fatalf("same source, draw %d: %v vs %v", i, x, y)
		}
	}
}

// TestSkipMatchesNext: Skip consumes exactly the starts that Next would have
// returned before the cutoff, and Next then continues where Skip stopped.
func TestSkipMatchesNext(t *testing.T) {
	for _, a := range []pace.Arrival{pace.Constant, pace.Poisson} {
		for _, rate := range []float64{3, 1000, 12345.6} {
			ref, _ := pace.New(a, rate, 9)
			s, _ := pace.New(a, rate, 9)
			// Take a few starts, then skip to 2.5 s.
			for i := 0; i < 5; i++ {
				if x, y := ref.Next(), s.Next(); x != y {
					t.Fatalf("%s %v: schedules differ before skipping", a, rate)
				}
			}
			until := 2500 * time.Millisecond
			var want int64
			var next time.Duration
			for {
				next = ref.Next()
				if next >= until {
					break
				}
				want++
			}
			if got := s.Skip(until); got != want {
				t.Errorf("%s %v: Skip = %d, want %d", a, rate, got, want)
			}
			if got := s.Next(); got != next {
				t.Errorf("%s %v: Next after Skip = %v, want %v", a, rate, got, next)
			}
			if got := s.Skip(until); got != 0 {
				t.Errorf("%s %v: second Skip = %d, want 0", a, rate, got)
			}
		}
	}
}

func TestPoissonSkipLargeBacklog(t *testing.T) {
	s, _ := pace.New(pace.Poisson, 1e7, 1)
	n := s.Skip(100 * time.Second) // 1e9 expected: counted mostly in expectation
	if math.Abs(float64(n)-1e9)/1e9 > 1e-3 {
		t.Errorf("Skip = %d, want 1e9 within 0.1 %%", n)
	}
}
