package hist_test

import (
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/hist"
)

// TestFewValuesBufferedExactly: histograms around the buffer's size (128
// values) and merges between buffered and counted ones give the same
// figures as recording every value into one.
func TestFewValuesBufferedExactly(t *testing.T) {
	for _, n := range []int{1, 2, 127, 128, 129, 255, 256, 257, 1000} {
		vals := sample(uint64(n), n)
		sameHist(t, "recorded", record(vals), record(vals[:n/2], vals[n/2:]))
		for _, split := range []int{0, 1, n / 3, n - 1, n} {
			a, b := record(vals[:split]), record(vals[split:])
			a.Merge(b)
			sameHist(t, "merged", a, record(vals))
			if a.Count() != int64(n) {
				t.Errorf("n %d split %d: Count %d", n, split, a.Count())
			}
			// Reading does not change what is held.
			c := a.Clone()
			_ = c.Quantile(0.5)
			c.Merge(record(vals[:1]))
			sameHist(t, "clone after read and merge", c, record(vals, vals[:1]))
			sameHist(t, "original after its clone changed", a, record(vals))
			s, err := a.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			back, err := hist.FromSnapshot(s)
			if err != nil {
				t.Fatal(err)
			}
			sameHist(t, "snapshot round trip", back, a)
		}
	}
}

// TestFewValuesAreCheap: a histogram of a few values does not allocate the
// 256 KB of HDR counts, so a tick merging a thousand virtual users'
// intervals costs a few records each, not a walk over every bucket.
func TestFewValuesAreCheap(t *testing.T) {
	allocs := testing.AllocsPerRun(20, func() {
		h := hist.New()
		for i := 1; i <= 100; i++ {
			h.Record(time.Duration(i) * time.Millisecond)
		}
		h.Reset()
		h.Record(time.Second)
	})
	if allocs > 3 {
		t.Errorf("%v allocations for 100 values", allocs)
	}
	total := record(sample(9, 10000))
	vus := make([]*hist.Histogram, 1000)
	for i := range vus {
		vus[i] = record(sample(uint64(i), 15))
	}
	start := time.Now()
	for _, v := range vus {
		total.Merge(v)
		v.Reset()
	}
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("merging and resetting 1,000 histograms of 15 values took %v", d)
	}
	if total.Count() != 10000+1000*15 {
		t.Errorf("Count %d", total.Count())
	}
}
