package datagen

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

const draws = 200_000

func mustDist(t *testing.T, k Kind) *Dist {
	t.Helper()
	d, err := NewDist(DefaultDistSpec(k))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func sample(d *Dist, seed uint64, a, b int64, n int) []int64 {
	s := NewSource(seed)
	out := make([]int64, n)
	for i := range out {
		out[i] = d.Next(s, a, b)
	}
	return out
}

func meanStd(xs []int64) (float64, float64) {
	var sum, sq float64
	for _, x := range xs {
		sum += float64(x)
	}
	m := sum / float64(len(xs))
	for _, x := range xs {
		sq += (float64(x) - m) * (float64(x) - m)
	}
	return m, math.Sqrt(sq / float64(len(xs)))
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.4f, want %.4f ± %.4f", what, got, want, tol)
	}
}

func TestRangeAndDeterminism(t *testing.T) {
	for _, k := range []Kind{Uniform, Gaussian, Special, Pareto, Zipfian} {
		d := mustDist(t, k)
		for _, r := range [][2]int64{{1, 1}, {1, 2}, {1, 10}, {5, 10000}, {1, 1 << 31}} {
			xs := sample(d, 7, r[0], r[1], 20_000)
			for _, x := range xs {
				if x < r[0] || x > r[1] {
					t.Fatalf("%v over [%d,%d]: %d out of range", k, r[0], r[1], x)
				}
			}
			ys := sample(d, 7, r[0], r[1], 20_000)
			for i := range xs {
				if xs[i] != ys[i] {
					t.Fatalf("%v: same seed gave different sequences", k)
				}
			}
		}
		if got := d.Next(NewSource(1), 9, 3); got != 9 {
			t.Errorf("%v: Next(9, 3) = %d, want 9 (b < a returns a)", k, got)
		}
	}
}

func TestUniform(t *testing.T) {
	xs := sample(mustDist(t, Uniform), 1, 1, 10000, draws)
	m, sd := meanStd(xs)
	within(t, "mean", m, 5000.5, 30)
	within(t, "std", sd, 10000/math.Sqrt(12), 30)
	// Every decile holds about 10 %.
	var dec [10]int
	for _, x := range xs {
		dec[(x-1)/1000]++
	}
	for i, c := range dec {
		within(t, "decile "+string(rune('0'+i)), float64(c)/draws, 0.1, 0.005)
	}
	// Both ends are reachable.
	s := NewSource(3)
	var lo, hi bool
	for range 10_000 {
		switch s.Uniform(1, 4) {
		case 1:
			lo = true
		case 4:
			hi = true
		}
	}
	if !lo || !hi {
		t.Errorf("Uniform(1,4) never reached an end: lo=%v hi=%v", lo, hi)
	}
}

func TestGaussian(t *testing.T) {
	xs := sample(mustDist(t, Gaussian), 2, 1, 10000, draws)
	m, sd := meanStd(xs)
	within(t, "mean", m, 5000.5, 15)
	// The mean of 12 uniforms over a range of n has std n/sqrt(12*12).
	within(t, "std", sd, 10000/12.0, 15)
}

func TestSpecial(t *testing.T) {
	const a, b = 1, 100000
	xs := sample(mustDist(t, Special), 3, a, b, draws)
	// 75 % of the values fall uniformly in the central 1 % band:
	// [a + t/2 - t/200, a + t/2 + t/200] with t = b - a.
	tt := float64(b - a)
	lo, hi := int64(a+tt/2-tt/200), int64(a+tt/2+tt/200+1)
	in := 0
	for _, x := range xs {
		if x >= lo && x <= hi {
			in++
		}
	}
	// The gaussian 25 % also puts about 0.25 * P(|Z| < 0.5%/sd) there: std of the
	// gaussian part is t/12, so the band is ±0.06 sd wide: about 4.8 % of 25 %.
	within(t, "share in special band", float64(in)/draws, 0.75+0.25*0.048, 0.01)
	// sysbench reuses the draw that chose the branch (rnd in [0.25, 1)) to place
	// the value in the band, so only the upper three quarters of the band are
	// used: its mean sits at 0.625 of the band, slightly above the middle.
	m, _ := meanStd(xs)
	band := tt/100 + 1
	within(t, "mean", m, a+tt/2+0.75*(0.625*band-tt/200), 40)
}

func TestPareto(t *testing.T) {
	const n = 10000
	xs := sample(mustDist(t, Pareto), 4, 1, n, draws)
	// h = 0.2: 80 % of the values in the lowest 20 % of the range; in general
	// P(X-1 < q*n) = q^(1/power) with power = log(0.2)/log(0.8).
	low := 0
	for _, x := range xs {
		if x <= n/5 {
			low++
		}
	}
	within(t, "share in lowest 20 %", float64(low)/draws, 0.8, 0.01)
	power := math.Log(0.2) / math.Log(0.8)
	first := 0
	for _, x := range xs {
		if x <= n/100 {
			first++
		}
	}
	within(t, "share in lowest 1 %", float64(first)/draws, math.Pow(0.01, 1/power), 0.01)
}

func TestZipfian(t *testing.T) {
	const n = 1000
	const e = 0.8
	xs := sample(mustDist(t, Zipfian), 5, 1, n, draws)
	cnt := make([]int, n+1)
	for _, x := range xs {
		cnt[x]++
	}
	var norm float64
	for k := 1; k <= n; k++ {
		norm += math.Pow(float64(k), -e)
	}
	for _, k := range []int{1, 2, 3, 10, 100} {
		want := math.Pow(float64(k), -e) / norm
		got := float64(cnt[k]) / draws
		// 5 standard errors of a binomial proportion.
		tol := 5 * math.Sqrt(want*(1-want)/draws)
		within(t, "P(k="+itoa(k)+")", got, want, tol)
	}
	within(t, "P(1)/P(2)", float64(cnt[1])/float64(cnt[2]), math.Pow(2, e), 0.06)

	// Offset ranges shift the distribution: a is the most frequent value.
	ys := sample(mustDist(t, Zipfian), 6, 101, 200, 50_000)
	c := map[int64]int{}
	for _, y := range ys {
		c[y]++
	}
	if c[101] <= c[102] || c[102] <= c[110] {
		t.Errorf("zipfian over [101,200] not decreasing from 101: %d %d %d", c[101], c[102], c[110])
	}

	// Exponent 1 goes through the log branch.
	cfg := DefaultDistSpec(Zipfian)
	cfg.ZipfExp = 1
	d, err := NewDist(cfg)
	if err != nil {
		t.Fatal(err)
	}
	zs := sample(d, 8, 1, 100, draws)
	cnt = make([]int, 101)
	for _, z := range zs {
		cnt[z]++
	}
	within(t, "P(1)/P(2) e=1", float64(cnt[1])/float64(cnt[2]), 2, 0.08)
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestParseKindAndValidate(t *testing.T) {
	for _, n := range KindNames() {
		k, err := ParseKind(strings.ToUpper(n))
		if err != nil || k.String() != n {
			t.Errorf("ParseKind(%q) = %v, %v", n, k, err)
		}
	}
	if _, err := ParseKind("normal"); err == nil {
		t.Error("ParseKind(normal) accepted")
	}
	bad := DistSpec{Kind: 9, SpecIter: 0, SpecPct: 101, SpecRes: 100, ParetoH: 1, ZipfExp: -1}
	err := bad.Validate()
	if err == nil {
		t.Fatal("bad config accepted")
	}
	for _, want := range []string{"distribution", "rand-spec-iter", "rand-spec-pct", "rand-spec-res", "rand-pareto-h", "rand-zipfian-exp"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	if _, err := NewDist(bad); err == nil {
		t.Error("NewDist accepted a bad config")
	}
	if _, err := NewDist(DistSpec{Kind: Zipfian, SpecIter: 1, ParetoH: 0.5, ZipfExp: math.NaN()}); err == nil {
		t.Error("NaN exponent accepted")
	}
}

func TestTemplate(t *testing.T) {
	c := NewTemplate(CTemplate)
	pad := NewTemplate(PadTemplate)
	if c.Len() != 119 || pad.Len() != 59 {
		t.Fatalf("lengths %d %d, want 119 59", c.Len(), pad.Len())
	}
	s := NewSource(9)
	buf := make([]byte, 0, 128)
	var digits [10]int
	total := 0
	for range 20_000 {
		out := c.Fill(s, buf)
		if len(out) != 119 {
			t.Fatalf("len %d", len(out))
		}
		for i, ch := range out {
			if (i+1)%12 == 0 {
				if ch != '-' {
					t.Fatalf("byte %d = %q, want '-' in %s", i, ch, out)
				}
				continue
			}
			if ch < '0' || ch > '9' {
				t.Fatalf("byte %d = %q, want a digit in %s", i, ch, out)
			}
			digits[ch-'0']++
			total++
		}
	}
	for d, n := range digits {
		within(t, "digit "+string(rune('0'+d)), float64(n)/float64(total), 0.1, 0.002)
	}
	// Digits at each position are uniform too (no position bias from the
	// 12-digits-per-draw extraction).
	var pos [12][10]int
	for range 20_000 {
		out := c.Fill(s, buf)
		for p := range 12 {
			if out[p] != '-' {
				pos[p][out[p]-'0']++
			}
		}
	}
	for p := range 11 {
		for d := range 10 {
			within(t, "position digit", float64(pos[p][d])/20_000, 0.1, 0.012)
		}
	}

	letters := NewTemplate("@@-##")
	out := letters.Fill(s, nil)
	if len(out) != 5 || out[2] != '-' || out[0] < 'a' || out[0] > 'z' || out[4] < '0' || out[4] > '9' {
		t.Errorf("@@-## -> %q", out)
	}
	if got := NewTemplate("abc").Fill(s, nil); string(got) != "abc" {
		t.Errorf("literal template -> %q", got)
	}
	if allocs := testing.AllocsPerRun(100, func() { c.Fill(s, buf) }); allocs != 0 {
		t.Errorf("Fill allocates %v times", allocs)
	}
}

func TestUnique(t *testing.T) {
	u := NewUnique(42)
	seen := map[uint32]bool{}
	for range 200_000 {
		v := u.Next()
		if seen[v] {
			t.Fatalf("value %d repeated", v)
		}
		seen[v] = true
	}
	// permute is a bijection on a small sample of the domain edges.
	for _, x := range []uint32{0, 1, 2, 4294967290, 4294967291, 4294967295} {
		_ = permute(x)
	}
	a, b := NewUnique(1), NewUnique(1)
	for range 100 {
		if a.Next() != b.Next() {
			t.Fatal("same seed, different sequence")
		}
	}
}

func BenchmarkCTemplate(b *testing.B) {
	c := NewTemplate(CTemplate)
	s := NewSource(1)
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	for b.Loop() {
		buf = c.Fill(s, buf)
	}
}

func BenchmarkSpecial(b *testing.B) {
	d, _ := NewDist(DefaultDistSpec(Special))
	s := NewSource(1)
	b.ReportAllocs()
	for b.Loop() {
		d.Next(s, 1, 10000)
	}
}

func BenchmarkZipfian(b *testing.B) {
	d, _ := NewDist(DefaultDistSpec(Zipfian))
	s := NewSource(1)
	b.ReportAllocs()
	for b.Loop() {
		d.Next(s, 1, 10000)
	}
}
