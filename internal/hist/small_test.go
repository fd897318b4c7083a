package hist_test

import (
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/hist"
)

// TestFewValuesBufferedExactly: histograms around the buffer's size (4096
// values) and merges between buffered and counted ones give the same
// figures as recording every value into one.
func TestFewValuesBufferedExactly(t *testing.T) {
	for _, n := range []int{1, 2, 100, 4095, 4096, 4097, 8192, 8193, 20000} {
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

// TestIdleCountsLetGo: a burst that allocated the HDR counts does not keep
// them for good: after resets with few values they are let go, and the
// histogram still gives exact figures.
func TestIdleCountsLetGo(t *testing.T) {
	h := hist.New()
	burst := sample(5, 10000)
	for _, v := range burst {
		h.Record(v)
	}
	few := sample(6, 10)
	for range 20 {
		h.Reset()
		for _, v := range few {
			h.Record(v)
		}
	}
	sameHist(t, "after the counts were let go", h, record(few))
	allocs := testing.AllocsPerRun(10, func() {
		h.Reset()
		for _, v := range few {
			h.Record(v)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per interval of 10 values", allocs)
	}
	// A steady stream past the buffer keeps its counts (no allocation per reset).
	for range 3 {
		h.Reset()
		for _, v := range burst {
			h.Record(v)
		}
	}
	allocs = testing.AllocsPerRun(10, func() {
		h.Reset()
		for _, v := range burst {
			h.Record(v)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per interval of 10,000 values", allocs)
	}
	sameHist(t, "steady stream", h, record(burst))
}
