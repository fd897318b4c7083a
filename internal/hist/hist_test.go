package hist_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/internal/hist"
)

// relTol is the precision the package documents: 3 significant digits, i.e.
// a value is kept to 0.1 %.
const relTol = 0.001

func within(got, want time.Duration, rel float64) bool {
	return math.Abs(float64(got)-float64(want)) <= rel*float64(want)
}

// uniform records 1 µs, 2 µs, …, n µs.
func uniform(n int) *hist.Histogram {
	h := hist.New()
	for i := 1; i <= n; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	return h
}

func TestEmpty(t *testing.T) {
	h := hist.New()
	if h.Count() != 0 || h.Clamped() != 0 {
		t.Fatalf("new histogram: count %d clamped %d, want 0 0", h.Count(), h.Clamped())
	}
	for _, q := range []float64{0, 0.5, 0.99, 1} {
		if got := h.Quantile(q); got != 0 {
			t.Errorf("empty Quantile(%v) = %v, want 0", q, got)
		}
	}
	if h.Mean() != 0 || h.Max() != 0 || h.Min() != 0 || h.StdDev() != 0 {
		t.Errorf("empty: mean %v max %v min %v stddev %v, want all 0", h.Mean(), h.Max(), h.Min(), h.StdDev())
	}
}

func TestQuantileUniform(t *testing.T) {
	const n = 10000
	h := uniform(n)
	if h.Count() != n {
		t.Fatalf("Count = %d, want %d", h.Count(), n)
	}
	// The k-th smallest value is k µs; quantile q of 1..n is about q·n µs.
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{
		{0.5, 5000 * time.Microsecond},
		{0.9, 9000 * time.Microsecond},
		{0.95, 9500 * time.Microsecond},
		{0.99, 9900 * time.Microsecond},
		{0.999, 9990 * time.Microsecond},
		{1, 10000 * time.Microsecond},
	} {
		if got := h.Quantile(tc.q); !within(got, tc.want, relTol) {
			t.Errorf("Quantile(%v) = %v, want %v ± 0.1 %%", tc.q, got, tc.want)
		}
	}
	if got, want := h.Max(), 10*time.Millisecond; !within(got, want, relTol) {
		t.Errorf("Max = %v, want %v ± 0.1 %%", got, want)
	}
	// Mean of 1..n µs is (n+1)/2 µs.
	if got, want := h.Mean(), 5000500*time.Nanosecond; !within(got, want, relTol) {
		t.Errorf("Mean = %v, want %v ± 0.1 %%", got, want)
	}
	// Standard deviation of a discrete uniform 1..n is sqrt((n²-1)/12).
	sd := time.Duration(math.Sqrt((n*n-1)/12.0) * float64(time.Microsecond))
	if got := h.StdDev(); !within(got, sd, 0.01) {
		t.Errorf("StdDev = %v, want %v ± 1 %%", got, sd)
	}
	// The smallest value is 1 µs: the lowest discernible value, so only its
	// order of magnitude is kept.
	if got := h.Min(); got > time.Microsecond {
		t.Errorf("Min = %v, want <= 1µs", got)
	}
	if got := h.Quantile(0); got > time.Microsecond {
		t.Errorf("Quantile(0) = %v, want <= 1µs", got)
	}
	// Quantiles never decrease with q.
	prev := time.Duration(0)
	for q := 0.0; q <= 1; q += 0.001 {
		got := h.Quantile(q)
		if got < prev {
			t.Fatalf("Quantile(%v) = %v < Quantile of a smaller q (%v)", q, got, prev)
		}
		prev = got
	}
}

// TestQuantileRandom compares quantiles of random latencies from 1 ms to 1 h
// with those of the sorted samples: whatever the rank convention, the answer
// lies between the neighbouring order statistics, to 0.1 %.
func TestQuantileRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	vals := make([]time.Duration, n)
	h := hist.New()
	for i := range vals {
		// log-uniform between 1 ms and 1 h
		v := time.Duration(float64(time.Millisecond) * math.Pow(3.6e6, rng.Float64()))
		vals[i] = v
		h.Record(v)
	}
	slices.Sort(vals)
	for _, q := range []float64{0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999} {
		lo := max(int(math.Floor(q*n))-1, 0)
		hi := min(int(math.Ceil(q*n)), n-1)
		got := float64(h.Quantile(q))
		if got < float64(vals[lo])*(1-relTol) || got > float64(vals[hi])*(1+relTol) {
			t.Errorf("Quantile(%v) = %v, want within 0.1 %% of [%v, %v]", q, time.Duration(got), vals[lo], vals[hi])
		}
	}
}

// TestDocumentedPrecision checks the package comment's promise: "a 120 µs NVMe
// read and a 2.5 s stall are both kept to 0.1 %".
func TestDocumentedPrecision(t *testing.T) {
	for _, d := range []time.Duration{
		120 * time.Microsecond,
		999 * time.Microsecond,
		5 * time.Millisecond,
		2500 * time.Millisecond,
		59 * time.Minute,
	} {
		h := hist.New()
		h.Record(d)
		for _, got := range []time.Duration{h.Quantile(0.5), h.Max(), h.Min(), h.Mean()} {
			if !within(got, d, relTol) {
				t.Errorf("recorded %v, read back %v: off by %.3f %%, documented 0.1 %%",
					d, got, 100*math.Abs(float64(got-d))/float64(d))
				break
			}
		}
	}
}

func TestQuantileArgumentClamped(t *testing.T) {
	h := uniform(1000)
	p0, p100 := h.Quantile(0), h.Quantile(1)
	if p0 >= p100 {
		t.Fatalf("Quantile(0) = %v >= Quantile(1) = %v", p0, p100)
	}
	for _, q := range []float64{-1, -0.001, math.NaN(), math.Inf(-1)} {
		if got := h.Quantile(q); got != p0 {
			t.Errorf("Quantile(%v) = %v, want Quantile(0) = %v", q, got, p0)
		}
	}
	// 99 is the classic percent-for-fraction mistake: it must not read beyond
	// the maximum.
	for _, q := range []float64{1.0000001, 99, 100, math.Inf(1)} {
		if got := h.Quantile(q); got != p100 {
			t.Errorf("Quantile(%v) = %v, want Quantile(1) = %v", q, got, p100)
		}
	}
}

func TestBelowLowest(t *testing.T) {
	h := hist.New()
	for _, d := range []time.Duration{-time.Second, -1, 0, 1, 100, 999} {
		h.Record(d)
	}
	if h.Count() != 6 {
		t.Fatalf("Count = %d, want 6 (values below 1 µs are recorded, not dropped)", h.Count())
	}
	if h.Clamped() != 0 {
		t.Errorf("Clamped = %d, want 0: only values above Highest are clamped", h.Clamped())
	}
	// The resolution at the bottom is 1 ns: values under 2 µs are exact, and
	// negative durations count as zero.
	if got := h.Quantile(1); got != 999 {
		t.Errorf("Quantile(1) = %v, want 999ns", got)
	}
	if got := h.Min(); got != 0 {
		t.Errorf("Min = %v, want 0 (negative durations count as zero)", got)
	}
	if got, want := h.Mean(), time.Duration((0+0+0+1+100+999)/6); got != want {
		t.Errorf("Mean = %v, want %v", got, want)
	}
}

func TestAboveHighestClamped(t *testing.T) {
	h := hist.New()
	h.Record(time.Millisecond)
	h.Record(hist.Highest) // exactly Highest is not clamped
	if h.Clamped() != 0 {
		t.Fatalf("Record(Highest): Clamped = %d, want 0", h.Clamped())
	}
	h.Record(hist.Highest + 1)
	h.Record(2 * hist.Highest)
	h.Record(time.Duration(math.MaxInt64))
	if h.Count() != 5 {
		t.Errorf("Count = %d, want 5 (clamped values are still recorded)", h.Count())
	}
	if h.Clamped() != 3 {
		t.Errorf("Clamped = %d, want 3", h.Clamped())
	}
	if got := h.Max(); !within(got, hist.Highest, relTol) {
		t.Errorf("Max = %v, want %v ± 0.1 %% (clamped to Highest)", got, hist.Highest)
	}
	// 4 of 5 values are at (or clamped to) Highest, so the median is Highest.
	if got := h.Quantile(0.5); !within(got, hist.Highest, relTol) {
		t.Errorf("Quantile(0.5) = %v, want %v ± 0.1 %%", got, hist.Highest)
	}
}

// sample returns reproducible latencies, some clamped.
func sample(seed uint64, n int) []time.Duration {
	rng := rand.New(rand.NewPCG(seed, seed))
	out := make([]time.Duration, n)
	for i := range out {
		switch rng.IntN(50) {
		case 0:
			out[i] = hist.Highest + time.Duration(rng.Int64N(int64(time.Hour)))
		case 1:
			out[i] = time.Duration(rng.Int64N(1000))
		default:
			out[i] = time.Duration(rng.ExpFloat64() * float64(3*time.Millisecond))
		}
	}
	return out
}

func record(vals ...[]time.Duration) *hist.Histogram {
	h := hist.New()
	for _, vs := range vals {
		for _, v := range vs {
			h.Record(v)
		}
	}
	return h
}

var qs = []float64{0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999, 1}

// sameHist fails t when a and b differ in anything the package exposes.
func sameHist(t *testing.T, what string, got, want *hist.Histogram) {
	t.Helper()
	if got.Count() != want.Count() {
		t.Errorf("%s: Count = %d, want %d", what, got.Count(), want.Count())
	}
	if got.Max() != want.Max() || got.Min() != want.Min() || got.Mean() != want.Mean() {
		t.Errorf("%s: max/min/mean = %v/%v/%v, want %v/%v/%v", what, got.Max(), got.Min(), got.Mean(), want.Max(), want.Min(), want.Mean())
	}
	for _, q := range qs {
		if g, w := got.Quantile(q), want.Quantile(q); g != w {
			t.Errorf("%s: Quantile(%v) = %v, want %v", what, q, g, w)
		}
	}
}

func TestMergeEqualsRecordingBoth(t *testing.T) {
	a, b := sample(1, 5000), sample(2, 7000)
	ha, hb := record(a), record(b)
	want := record(a, b)
	ha.Merge(hb)
	sameHist(t, "merged", ha, want)
	if ha.Clamped() != want.Clamped() || want.Clamped() == 0 {
		t.Errorf("merged Clamped = %d, want %d (> 0)", ha.Clamped(), want.Clamped())
	}
	// The argument is left alone.
	sameHist(t, "merge argument", hb, record(b))

	// Merging nil or an empty histogram changes nothing.
	ha.Merge(nil)
	ha.Merge(hist.New())
	sameHist(t, "after merging nil and empty", ha, want)

	// Merging into an empty histogram copies.
	e := hist.New()
	e.Merge(want)
	sameHist(t, "empty merged with", e, want)
	if e.Clamped() != want.Clamped() {
		t.Errorf("Clamped = %d, want %d", e.Clamped(), want.Clamped())
	}
}

func TestReset(t *testing.T) {
	vals := sample(3, 1000)
	h := record(vals)
	h.Record(2 * hist.Highest)
	h.Reset()
	if h.Count() != 0 || h.Clamped() != 0 || h.Quantile(0.5) != 0 || h.Max() != 0 || h.Mean() != 0 {
		t.Fatalf("after Reset: count %d clamped %d p50 %v max %v mean %v, want all 0",
			h.Count(), h.Clamped(), h.Quantile(0.5), h.Max(), h.Mean())
	}
	for _, v := range vals {
		h.Record(v)
	}
	sameHist(t, "re-recorded after Reset", h, record(vals))
}

func TestCloneIndependent(t *testing.T) {
	vals := sample(4, 1000)
	h := record(vals)
	c := h.Clone()
	sameHist(t, "clone", c, h)
	if c.Clamped() != h.Clamped() {
		t.Errorf("clone Clamped = %d, want %d", c.Clamped(), h.Clamped())
	}
	c.Record(30 * time.Minute)
	c.Record(2 * hist.Highest)
	sameHist(t, "original after recording into clone", h, record(vals))
	if h.Clamped() == c.Clamped() {
		t.Errorf("recording into the clone changed the original's Clamped")
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	for name, h := range map[string]*hist.Histogram{
		"empty":   hist.New(),
		"one":     record([]time.Duration{1234567}),
		"uniform": uniform(10000),
		"mixed":   record(sample(5, 20000)),
	} {
		t.Run(name, func(t *testing.T) {
			s, err := h.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			got, err := hist.FromSnapshot(s)
			if err != nil {
				t.Fatalf("FromSnapshot(Snapshot()) = %v", err)
			}
			sameHist(t, "decoded", got, h)
			// A decoded histogram merges with a native one as the original would.
			extra := sample(6, 100)
			got.Merge(record(extra))
			want := h.Clone()
			want.Merge(record(extra))
			sameHist(t, "decoded then merged", got, want)
		})
	}
	// The empty string stands for an empty histogram.
	h, err := hist.FromSnapshot("")
	if err != nil || h == nil || h.Count() != 0 {
		t.Fatalf(`FromSnapshot("") = %v, %v; want an empty histogram`, h, err)
	}
}

func TestSnapshotIsStandardHdr(t *testing.T) {
	h := uniform(1000)
	s, err := h.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// Other HDR tools must be able to read it.
	o, err := hdr.Decode([]byte(s))
	if err != nil {
		t.Fatalf("hdrhistogram-go cannot decode a snapshot: %v", err)
	}
	if o.TotalCount() != 1000 || o.SignificantFigures() != hist.Digits ||
		o.LowestTrackableValue() != int64(hist.Lowest) || o.HighestTrackableValue() != int64(hist.Highest) {
		t.Errorf("decoded with hdrhistogram-go: count %d, geometry %d..%d %d digits; want 1000, %d..%d %d digits",
			o.TotalCount(), o.LowestTrackableValue(), o.HighestTrackableValue(), o.SignificantFigures(),
			int64(hist.Lowest), int64(hist.Highest), hist.Digits)
	}
}

func foreign(t *testing.T, lowest, highest int64, digits int, vals ...time.Duration) string {
	t.Helper()
	f := hdr.New(lowest, highest, digits)
	for _, v := range vals {
		if err := f.RecordValue(int64(v)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := f.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFromSnapshotRejectsGarbage(t *testing.T) {
	good, err := uniform(100).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{
		"not base64":       "this is not base64!",
		"base64 of text":   "aGVsbG8gd29ybGQ=",
		"too short":        "AAAA",
		"truncated":        good[:len(good)/2],
		"base64 corrupted": good[:20] + "!!!!" + good[24:],
		"json":             `{"count": 3}`,
		"whitespace":       " ",
	} {
		t.Run(name, func(t *testing.T) {
			h, err := hist.FromSnapshot(s)
			if !errors.Is(err, hist.ErrSnapshot) {
				t.Fatalf("FromSnapshot(%.30q) = %v, %v; want an error wrapping ErrSnapshot", s, h, err)
			}
			if h != nil {
				t.Errorf("histogram returned with an error")
			}
		})
	}
}

// TestFromSnapshotForeignGeometry: "The decoded histogram must have the
// package's geometry, so that it merges exactly with others." A histogram of
// another geometry is either refused with ErrSnapshot or, at the very least,
// must not lose or move values silently.
func TestFromSnapshotForeignGeometry(t *testing.T) {
	ms := int64(time.Millisecond)
	for _, tc := range []struct {
		name            string
		lowest, highest int64
		digits          int
		vals            []time.Duration
		mustRefuse      bool // geometry differs in a way Merge cannot hide
		refuseOrKeepAll bool
	}{
		{name: "2 digits", lowest: 1000, highest: int64(time.Hour), digits: 2, vals: []time.Duration{5 * time.Millisecond}, mustRefuse: true},
		{name: "4 digits", lowest: 1000, highest: int64(time.Hour), digits: 4, vals: []time.Duration{5 * time.Millisecond}, mustRefuse: true},
		{name: "1 digit", lowest: 1000, highest: int64(time.Hour), digits: 1, vals: []time.Duration{5 * time.Millisecond}, mustRefuse: true},
		{name: "highest 1 s", lowest: 1000, highest: int64(time.Second), digits: 3, vals: []time.Duration{5 * time.Millisecond}, mustRefuse: true},
		// A 1 ms lowest discernible value keeps 1.5 ms as ~1.05 ms: merging it
		// into a 1 µs histogram is not exact.
		{name: "lowest 1 ms", lowest: ms, highest: int64(time.Hour), digits: 3, vals: []time.Duration{1500 * time.Microsecond}, mustRefuse: true},
		// A wider range holds values a 1 h histogram cannot: they must not
		// vanish from the count.
		{name: "highest 2 h, value at 90 min", lowest: 1000, highest: int64(2 * time.Hour), digits: 3, vals: []time.Duration{time.Millisecond, 90 * time.Minute}, refuseOrKeepAll: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := foreign(t, tc.lowest, tc.highest, tc.digits, tc.vals...)
			h, err := hist.FromSnapshot(s)
			switch {
			case tc.mustRefuse:
				if !errors.Is(err, hist.ErrSnapshot) {
					t.Fatalf("FromSnapshot(histogram of %d..%d ns, %d digits) = %v; want ErrSnapshot", tc.lowest, tc.highest, tc.digits, err)
				}
			case tc.refuseOrKeepAll:
				if err != nil {
					if !errors.Is(err, hist.ErrSnapshot) {
						t.Fatalf("error %v does not wrap ErrSnapshot", err)
					}
					return
				}
				if h.Count() != int64(len(tc.vals)) {
					t.Fatalf("FromSnapshot accepted a %d..%d ns histogram of %d values but kept %d (values silently dropped)",
						tc.lowest, tc.highest, len(tc.vals), h.Count())
				}
			}
		})
	}
	// Same geometry built directly with hdrhistogram-go is accepted as is.
	s := foreign(t, int64(hist.Lowest), int64(hist.Highest), hist.Digits, 7*time.Millisecond, 9*time.Millisecond)
	h, err := hist.FromSnapshot(s)
	if err != nil {
		t.Fatalf("FromSnapshot(native geometry via hdrhistogram-go) = %v", err)
	}
	sameHist(t, "native geometry", h, record([]time.Duration{7 * time.Millisecond, 9 * time.Millisecond}))
}
