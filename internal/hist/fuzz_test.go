package hist_test

import (
	"errors"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rightsize/rightsize/internal/hist"
)

// FuzzFromSnapshot: FromSnapshot never panics; it either fails with
// ErrSnapshot or returns a histogram that survives another round trip.
func FuzzFromSnapshot(f *testing.F) {
	h := hist.New()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i*i) * time.Microsecond)
	}
	h.Record(2 * hist.Highest)
	for _, hh := range []*hist.Histogram{hist.New(), h} {
		s, err := hh.Snapshot()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(s)
		f.Add(s[:len(s)/2])
	}
	for _, g := range []struct {
		lo, hi int64
		d      int
	}{{1000, int64(time.Hour), 2}, {1, int64(time.Hour), 3}, {1000, int64(2 * time.Hour), 3}, {1, 2, 1}} {
		o := hdr.New(g.lo, g.hi, g.d)
		_ = o.RecordValue(g.hi)
		b, err := o.Encode(hdr.V2CompressedEncodingCookieBase)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("")
	f.Add("HISTFAAAAB94nJNpmSzMwMDAxQABzFCaEUzbf4AIAEGaA/8=")
	f.Add("not base64")
	f.Add("AAAAAAAAAAA=")

	f.Fuzz(func(t *testing.T, s string) {
		h, err := hist.FromSnapshot(s)
		if err != nil {
			if !errors.Is(err, hist.ErrSnapshot) {
				t.Fatalf("error %v does not wrap ErrSnapshot", err)
			}
			if h != nil {
				t.Fatalf("histogram returned with error %v", err)
			}
			return
		}
		if h == nil {
			t.Fatal("nil histogram and nil error")
		}
		_ = h.Quantile(0.99)
		_ = h.Mean()
		again, err := h.Snapshot()
		if err != nil {
			t.Fatalf("Snapshot of a decoded histogram: %v", err)
		}
		h2, err := hist.FromSnapshot(again)
		if err != nil {
			t.Fatalf("decoded histogram does not decode after re-encoding: %v", err)
		}
		if h2.Count() != h.Count() || h2.Max() != h.Max() {
			t.Fatalf("re-encoded: count %d max %v, want %d %v", h2.Count(), h2.Max(), h.Count(), h.Max())
		}
	})
}
